// `POST /api/attestations/verify` (spec "Verify response", verdict meanings): a presentation checked
// along two chains. Attester: the issuer from `iss`, its root key tied to its domain by the `_svc`
// TXT record, the credential key certified by that root key, the signature, the status position.
// Holder: the key binding (`kb+jwt` over audience, nonce and the hash of exactly the disclosures
// presented) against `cnf.jwk`, and the word of the server that issued the holder's identity.
// Always a verdict, never an error: unreadable is `invalid`, a check that cannot complete is
// `unverified`, and without `audience` and `nonce` the verdict is never `verified`.
import crypto from "node:crypto";
import zlib from "node:zlib";
import {
	calculateJwkThumbprint,
	decodeJwt,
	decodeProtectedHeader,
	importJWK,
	type JWK,
	jwtVerify,
} from "jose";
import { openEnvelope } from "../../lib/crypto.ts";
import { asEnvelope, fetchJson, type PeerOptions, peerFetchText, resolvePeerKey } from "../../lib/peer.ts";
import { fetchPeerStanding } from "../identity/trust.ts";
import type { KeyRing } from "../server/certified-keys.ts";

export type VerdictState =
	| "verified"
	| "unverified"
	| "dnsMissing"
	| "spoofed"
	| "revoked"
	| "expired"
	| "invalid";

export interface Verdict {
	state: VerdictState;
	reason: string;
	issuer: string;
	issuerState: string;
	type: string;
	claims?: Record<string, unknown>;
	withheld: number;
	status: "valid" | "revoked" | "unknown";
	issuedAt?: number;
	expiresAt?: number;
	holder: { fingerprint: string; domain: string; state: string; status: string };
	keyBound: boolean;
}

/** How the attester is reached: this server's own keys and list, or another server's. */
export interface AttesterSource {
	/** This server's domain and issuer origin, its key ring and its status list as served. */
	self: {
		domain: string;
		issuer: string;
		keys: () => Promise<KeyRing>;
		/** A position of this server's own list, read where the list is made from. */
		statusBit: (position: number) => Promise<"set" | "clear" | "unknown">;
	};
	peer: PeerOptions;
	/** Whether an identity of this server stands: `active`, `revoked` or `unknown`. */
	localStanding: (fingerprint: string) => Promise<"active" | "revoked" | "unknown">;
	/** Spends an (audience, nonce) pair: false when it was used before. */
	spendNonce: (audience: string, nonce: string) => Promise<boolean>;
	now: number;
}

/** Key-binding JWTs older than this, or this far in the future, are refused. */
const KB_MAX_AGE_S = 300;
const KB_SKEW_S = 60;

const PRECEDENCE: VerdictState[] = [
	"invalid",
	"dnsMissing",
	"spoofed",
	"revoked",
	"expired",
	"unverified",
	"verified",
];

class Verdicts {
	state: VerdictState = "verified";
	reason = "";
	/** Records a finding; the worst one decides the state, the first of it gives the reason. */
	hold(state: VerdictState, reason: string): void {
		if (PRECEDENCE.indexOf(state) < PRECEDENCE.indexOf(this.state)) {
			this.state = state;
			this.reason = reason;
		}
	}
}

const sha256b64u = (s: string) => crypto.createHash("sha256").update(s, "ascii").digest("base64url");

/** The attester's credential keys, each certification checked against its pinned root key. */
async function attesterKeys(
	domain: string,
	source: AttesterSource,
): Promise<{ state: string; reason: string; keys?: Map<string, JWK>; base?: string }> {
	if (domain === source.self.domain) {
		const ring = await source.self.keys();
		return { state: "verified", reason: "", keys: new Map(ring.all.map((k) => [k.kid, k.jwk as JWK])) };
	}
	const pin = await resolvePeerKey(domain, source.peer);
	if (pin.state !== "verified") return { state: pin.state, reason: pin.reason };
	let meta: unknown;
	try {
		meta = await fetchJson(`${pin.base}/.well-known/jwt-vc-issuer`, { ...source.peer, timeoutMs: 5000 });
	} catch (err) {
		return { state: "unreachable", reason: (err as Error).message };
	}
	const listed = (meta as { jwks?: { keys?: unknown } })?.jwks?.keys;
	const keys = new Map<string, JWK>();
	if (Array.isArray(listed)) {
		for (const k of listed) {
			const jwk = k as JWK & { svc_certification?: unknown };
			const envelope = asEnvelope(jwk.svc_certification);
			const body = envelope && openEnvelope(pin.publicKey, envelope, "credential-key-v1");
			if (!body || body.domain !== domain || typeof jwk.kid !== "string" || body.kid !== jwk.kid) continue;
			const { svc_certification: _c, ...plain } = jwk;
			try {
				if ((await calculateJwkThumbprint(plain, "sha256")) !== jwk.kid) continue;
			} catch {
				continue;
			}
			keys.set(jwk.kid, plain);
		}
	}
	return { state: "verified", reason: "", keys, base: pin.base };
}

export async function verifyPresentation(
	source: AttesterSource,
	input: {
		presentation: string;
		audience?: string | undefined;
		nonce?: string | undefined;
		/** A held credential's status: no key binding is asked for, so its absence holds nothing back. */
		held?: boolean;
	},
): Promise<Verdict> {
	const v = new Verdicts();
	const verdict: Verdict = {
		state: "invalid",
		reason: "",
		issuer: "",
		issuerState: "unknown",
		type: "",
		withheld: 0,
		status: "unknown",
		holder: { fingerprint: "", domain: "", state: "unknown", status: "unknown" },
		keyBound: false,
	};
	const finish = (): Verdict => ({ ...verdict, state: v.state, reason: v.reason });

	// Reading: `<issuer JWT>~<disclosure>~…~[<kb JWT>]`.
	const parts = input.presentation.split("~");
	if (parts.length < 2) {
		v.hold("invalid", "not an SD-JWT: no ~ separator");
		return finish();
	}
	const jwt = parts[0] as string;
	const kb = parts[parts.length - 1] as string;
	const disclosures = parts.slice(1, -1);
	let header: ReturnType<typeof decodeProtectedHeader>;
	let payload: Record<string, unknown>;
	try {
		header = decodeProtectedHeader(jwt);
		payload = decodeJwt(jwt);
	} catch {
		v.hold("invalid", "the issuer JWT cannot be read");
		return finish();
	}
	if (header.typ !== "dc+sd-jwt" || header.alg !== "ES256") {
		v.hold("invalid", "not a dc+sd-jwt signed ES256");
		return finish();
	}
	let issuerUrl: URL;
	try {
		issuerUrl = new URL(String(payload.iss));
	} catch {
		v.hold("invalid", "iss is not an address");
		return finish();
	}
	const domain = issuerUrl.hostname.toLowerCase();
	verdict.issuer = domain;
	verdict.type = typeof payload.vct === "string" ? payload.vct : "";
	if (typeof payload.iat === "number") verdict.issuedAt = payload.iat;
	if (typeof payload.exp === "number") verdict.expiresAt = payload.exp;
	const holder = (payload.svc_holder ?? {}) as { fingerprint?: unknown; domain?: unknown };
	verdict.holder.fingerprint = typeof holder.fingerprint === "string" ? holder.fingerprint : "";
	verdict.holder.domain = typeof holder.domain === "string" ? holder.domain : "";

	// Disclosures: each must be one of the digests the issuer signed.
	const digests = new Set(Array.isArray(payload._sd) ? (payload._sd as unknown[]) : []);
	const claims: Record<string, unknown> = {};
	for (const d of disclosures) {
		let decoded: unknown;
		try {
			decoded = JSON.parse(Buffer.from(d, "base64url").toString("utf8"));
		} catch {
			decoded = undefined;
		}
		if (!Array.isArray(decoded) || decoded.length !== 3 || typeof decoded[1] !== "string") {
			v.hold("invalid", "a disclosure cannot be read");
			return finish();
		}
		if (!digests.has(sha256b64u(d))) {
			v.hold("invalid", `the disclosure of ${decoded[1]} is not one the issuer signed`);
			return finish();
		}
		claims[decoded[1] as string] = decoded[2];
	}
	verdict.withheld = Math.max(0, digests.size - disclosures.length);

	// Attester chain: the pinned root key, the certified credential key, the signature.
	const attester = await attesterKeys(domain, source);
	verdict.issuerState = attester.state;
	if (attester.state === "dnsMissing") v.hold("dnsMissing", attester.reason);
	else if (attester.state === "spoofed") v.hold("spoofed", attester.reason);
	else if (attester.state !== "verified")
		v.hold("unverified", `the attester could not be asked: ${attester.reason}`);
	let signed = false;
	if (attester.keys) {
		const jwk = typeof header.kid === "string" ? attester.keys.get(header.kid) : undefined;
		if (!jwk) v.hold("spoofed", "not signed by a key the attester's root key certified");
		else {
			try {
				await jwtVerify(jwt, await importJWK(jwk, "ES256"), {
					algorithms: ["ES256"],
					currentDate: new Date(source.now),
					clockTolerance: 1e9,
				});
				signed = true;
			} catch {
				v.hold("spoofed", "the signature does not verify with the attester's certified key");
			}
		}
	}
	if (signed) verdict.claims = claims;
	if (signed && typeof payload.exp === "number" && payload.exp * 1000 <= source.now) {
		v.hold("expired", "past the credential's validity");
	}

	// Status position.
	if (signed) {
		const ref = (payload.status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)
			?.status_list;
		const idx =
			typeof ref?.idx === "number" && Number.isInteger(ref.idx) && ref.idx >= 0 ? ref.idx : undefined;
		if (idx === undefined || typeof ref?.uri !== "string") {
			v.hold("invalid", "the credential names no status position");
		} else {
			const bit = await statusBit(source, domain, attester, ref.uri, idx, issuerUrl.origin);
			if (bit.state === "set") {
				verdict.status = "revoked";
				v.hold("revoked", "the attester revoked the credential");
			} else if (bit.state === "clear") verdict.status = "valid";
			else if ("reason" in bit) v.hold("unverified", bit.reason);
		}
	}

	// Holder chain: the identity's server's word on it.
	if (verdict.holder.fingerprint && verdict.holder.domain) {
		const standing = await holderStanding(source, verdict.holder.domain, verdict.holder.fingerprint);
		verdict.holder.state = standing.state;
		verdict.holder.status = standing.status;
		if (standing.status === "revoked") v.hold("revoked", "the holder's identity was withdrawn");
		else if (standing.status !== "active") v.hold("unverified", `the holder's identity: ${standing.reason}`);
	} else v.hold("invalid", "the credential names no holder");

	// Key binding, only for an audience and a nonce.
	if (input.held) return finish();
	if (input.audience === undefined || input.nonce === undefined) {
		v.hold("unverified", "no audience and nonce given: the holder's key was not checked");
		return finish();
	}
	if (kb === "") {
		v.hold("invalid", "no key binding JWT");
		return finish();
	}
	const bound = await checkKeyBinding(payload, kb, `${parts.slice(0, -1).join("~")}~`, input, source.now);
	if (!bound.ok) {
		v.hold("invalid", bound.reason);
		return finish();
	}
	if (!(await source.spendNonce(input.audience, input.nonce))) {
		v.hold("invalid", "this nonce was already presented for this audience");
		return finish();
	}
	verdict.keyBound = true;
	return finish();
}

async function checkKeyBinding(
	payload: Record<string, unknown>,
	kb: string,
	presented: string,
	input: { audience?: string | undefined; nonce?: string | undefined },
	now: number,
): Promise<{ ok: true } | { ok: false; reason: string }> {
	const cnf = (payload.cnf as { jwk?: JWK } | undefined)?.jwk;
	if (cnf?.kty !== "EC" || cnf.crv !== "P-256") return { ok: false, reason: "cnf.jwk is not a P-256 key" };
	let kbPayload: Record<string, unknown>;
	try {
		const header = decodeProtectedHeader(kb);
		if (header.typ !== "kb+jwt") return { ok: false, reason: "the key binding JWT is not typ kb+jwt" };
		const key = await importJWK({ kty: cnf.kty, crv: cnf.crv, x: cnf.x, y: cnf.y }, "ES256");
		kbPayload = (
			await jwtVerify(kb, key, { algorithms: ["ES256"], currentDate: new Date(now), clockTolerance: 1e9 })
		).payload as Record<string, unknown>;
	} catch {
		return { ok: false, reason: "the key binding is not signed by the key in cnf" };
	}
	if (kbPayload.aud !== input.audience)
		return { ok: false, reason: "the key binding is for another audience" };
	if (kbPayload.nonce !== input.nonce) return { ok: false, reason: "the key binding is for another nonce" };
	const iat = Number(kbPayload.iat);
	const nowS = Math.floor(now / 1000);
	if (!Number.isFinite(iat) || iat > nowS + KB_SKEW_S || iat < nowS - KB_MAX_AGE_S) {
		return { ok: false, reason: "the key binding is too old or from the future" };
	}
	if (kbPayload.sd_hash !== sha256b64u(presented)) {
		return { ok: false, reason: "the key binding does not cover exactly the disclosures presented" };
	}
	return { ok: true };
}

async function statusBit(
	source: AttesterSource,
	domain: string,
	attester: { keys?: Map<string, JWK>; base?: string },
	uri: string,
	idx: number,
	issuerOrigin: string,
): Promise<{ state: "set" | "clear" } | { state: "unknown"; reason: string }> {
	let listJwt: string;
	try {
		if (new URL(uri).origin !== issuerOrigin)
			return { state: "unknown", reason: "the status list is not on the attester's origin" };
		if (domain === source.self.domain) {
			const bit = await source.self.statusBit(idx);
			return bit === "unknown"
				? { state: "unknown", reason: "the status list does not reach the credential" }
				: { state: bit };
		}
		listJwt = await fetchText(`${attester.base}${new URL(uri).pathname}`, source.peer);
	} catch (err) {
		return { state: "unknown", reason: `the status list could not be fetched: ${(err as Error).message}` };
	}
	let list: { status_list?: { bits?: unknown; lst?: unknown } };
	try {
		const header = decodeProtectedHeader(listJwt);
		const jwk = typeof header.kid === "string" ? attester.keys?.get(header.kid) : undefined;
		if (header.typ !== "statuslist+jwt" || !jwk)
			return { state: "unknown", reason: "the status list is not signed by a certified key" };
		list = (await jwtVerify(listJwt, await importJWK(jwk, "ES256"), { currentDate: new Date(source.now) }))
			.payload as typeof list;
	} catch {
		return { state: "unknown", reason: "the status list does not verify or has expired" };
	}
	if (list.status_list?.bits !== 1 || typeof list.status_list.lst !== "string") {
		return { state: "unknown", reason: "the status list is not a 1-bit list" };
	}
	let bytes: Buffer;
	try {
		bytes = zlib.inflateSync(Buffer.from(list.status_list.lst, "base64url"));
	} catch {
		return { state: "unknown", reason: "the status list cannot be decompressed" };
	}
	if (idx >> 3 >= bytes.length)
		return { state: "unknown", reason: "the status list does not reach the credential" };
	return { state: (((bytes[idx >> 3] as number) >> (idx & 7)) & 1) === 1 ? "set" : "clear" };
}

function fetchText(url: string, peer: PeerOptions): Promise<string> {
	return peerFetchText(url, { ...peer, timeoutMs: 5000 });
}

async function holderStanding(
	source: AttesterSource,
	domain: string,
	fingerprint: string,
): Promise<{ state: string; status: string; reason: string }> {
	if (domain === source.self.domain) {
		const status = await source.localStanding(fingerprint);
		return {
			state: "verified",
			status,
			reason: status === "unknown" ? "not an identity of this server" : "",
		};
	}
	const standing = await fetchPeerStanding(domain, fingerprint, source.peer);
	if (standing.state === "verified") return { state: "verified", status: standing.status, reason: "" };
	return { state: standing.state, status: "unknown", reason: standing.reason };
}
