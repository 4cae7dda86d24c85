// Identities of other servers: the certificate and parent signature checked against the peer's
// DNS-pinned root key, and the peer's own signed word on the identity's standing.
import crypto from "node:crypto";
import { openEnvelope, rsaVerifyHex, spkiFingerprint } from "../../lib/crypto.ts";
import {
	asEnvelope,
	fetchJson,
	PEER_UNREACHABLE,
	type PeerKey,
	type PeerOptions,
	resolvePeerKey,
} from "../../lib/peer.ts";
import { FINGERPRINT, STATUS_TYPE, type Standing } from "./standing.ts";

type Failed = Exclude<PeerKey, { state: "verified" }>;

export type PeerIdentity =
	| { state: "verified"; publicKey: crypto.KeyObject; fingerprint: string; name: string; root: string }
	| Failed
	| { state: "invalid" | "expired"; reason: string };

/**
 * Checks an identity issued by `domain`: the certificate is the one fingerprinted, it was issued by
 * the peer's CA, and the peer's DNS-pinned root key signed the fingerprint. Says nothing about
 * standing: see fetchPeerStanding.
 */
export async function verifyPeerIdentity(
	domain: string,
	identity: { certificate: string; fingerprint: string; parentSignature: string },
	opts: PeerOptions,
	pinned?: PeerKey,
): Promise<PeerIdentity> {
	const pin = pinned ?? (await resolvePeerKey(domain, opts));
	if (pin.state !== "verified") return pin;
	let cert: crypto.X509Certificate;
	try {
		cert = new crypto.X509Certificate(identity.certificate);
	} catch {
		return { state: "invalid", reason: "the certificate cannot be read" };
	}
	const key = cert.publicKey;
	if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
		return { state: "invalid", reason: "the certified key is not P-256" };
	}
	const fingerprint = spkiFingerprint(key);
	if (fingerprint !== identity.fingerprint) {
		return { state: "invalid", reason: "the fingerprint is not the certificate's key" };
	}
	if (!rsaVerifyHex(pin.publicKey, fingerprint, identity.parentSignature) || !cert.verify(pin.publicKey)) {
		return {
			state: "spoofed",
			fingerprint: pin.fingerprint,
			reason: "not certified by the domain's pinned root key",
		};
	}
	if (Date.parse(cert.validTo) <= (opts.now ?? Date.now())) {
		return { state: "expired", reason: "the certificate is past its validity" };
	}
	const cn = cert.toLegacyObject().subject?.CN;
	const name = typeof cn === "string" ? cn : "";
	return { state: "verified", publicKey: key, fingerprint, name, root: pin.fingerprint };
}

export type PeerStanding =
	| { state: "verified"; status: Standing; exp: number }
	| Failed
	| { state: "invalid"; reason: string };

/**
 * Asks `domain` for the standing of an identity it issued and checks the answer with the pinned
 * root key: a proxy cannot rewrite it, an old answer (past `exp`) is refused.
 */
export async function fetchPeerStanding(
	domain: string,
	fingerprint: string,
	opts: PeerOptions,
	pinned?: PeerKey,
): Promise<PeerStanding> {
	if (!FINGERPRINT.test(fingerprint)) return { state: "invalid", reason: "not a lowercase hex SHA-256" };
	const pin = pinned ?? (await resolvePeerKey(domain, opts));
	if (pin.state !== "verified") return pin;
	let answer: unknown;
	try {
		answer = await fetchJson(`${pin.base}/api/identities/${fingerprint}/status`, {
			...opts,
			timeoutMs: opts.timeoutMs ?? 5000,
		});
	} catch (err) {
		return { state: "unreachable", reason: (err as Error).message };
	}
	const envelope = asEnvelope(answer);
	const body = envelope && openEnvelope(pin.publicKey, envelope, STATUS_TYPE);
	if (!body)
		return {
			state: "spoofed",
			fingerprint: pin.fingerprint,
			reason: "the standing is not signed by the root key",
		};
	const nowSec = Math.floor((opts.now ?? Date.now()) / 1000);
	const { status, exp, iat } = body as { status?: unknown; exp?: unknown; iat?: unknown };
	if (body.fingerprint !== fingerprint || body.domain !== domain) {
		return { state: "invalid", reason: "the answer is about another identity or domain" };
	}
	if (typeof exp !== "number" || exp <= nowSec || typeof iat !== "number" || iat > nowSec + 60) {
		return { state: "invalid", reason: "the answer is outside its validity" };
	}
	if (status !== "active" && status !== "revoked" && status !== "unknown") {
		return { state: "invalid", reason: "the answer names no standing" };
	}
	return { state: "verified", status, exp };
}

export interface PeerVerdict {
	domain: string;
	state: "verified" | "unverified" | "dnsMissing" | "spoofed" | "revoked" | "invalid";
	reason?: string;
	/** The peer's root key fingerprint as served (absent when nothing was fetched). */
	fingerprint?: string;
	identity?: { fingerprint: string; status: Standing };
	checkedAt: string;
	/** How the peer could not be reached, for the operator's log; never answered. */
	internal?: string;
}

/** An unreachable peer: the caller learns only that (a refused port is not told from a timeout). */
const unreached = (reason: string) => ({ reason: `the peer ${PEER_UNREACHABLE}`, internal: reason });

/** The verdict of `POST /api/verify-peer`: the DNS pin, and with `identity`, the peer's word on it. */
export async function verifyPeer(
	domain: string,
	identityFingerprint: string | undefined,
	opts: PeerOptions,
): Promise<PeerVerdict> {
	const checkedAt = new Date(opts.now ?? Date.now()).toISOString();
	const pin = await resolvePeerKey(domain, opts);
	switch (pin.state) {
		case "dnsMissing":
			return { domain, state: "dnsMissing", reason: pin.reason, checkedAt };
		case "unreachable":
			return { domain, state: "unverified", ...unreached(pin.reason), checkedAt };
		case "spoofed":
			return { domain, state: "spoofed", reason: pin.reason, fingerprint: pin.fingerprint, checkedAt };
		case "verified":
			break;
	}
	const verdict: PeerVerdict = { domain, state: "verified", fingerprint: pin.fingerprint, checkedAt };
	if (identityFingerprint === undefined) return verdict;

	const standing = await fetchPeerStanding(domain, identityFingerprint, opts, pin);
	switch (standing.state) {
		case "verified": {
			const identity = { fingerprint: identityFingerprint, status: standing.status };
			if (standing.status === "revoked") return { ...verdict, state: "revoked", identity };
			// `unknown` is not `revoked` (spec): the peer does not vouch, so the check is incomplete.
			if (standing.status === "unknown") {
				return { ...verdict, state: "unverified", reason: "the peer does not know this identity", identity };
			}
			return { ...verdict, identity };
		}
		case "unreachable":
			return { ...verdict, state: "unverified", ...unreached(standing.reason) };
		case "spoofed":
			return { ...verdict, state: "spoofed", reason: standing.reason };
		case "dnsMissing":
			return { ...verdict, state: "dnsMissing", reason: standing.reason };
		case "invalid":
			return { ...verdict, state: "invalid", reason: standing.reason };
	}
}
