// What a verification (verify.ts) asks of this server or of others: the attester's certified
// credential keys, a bit of its status list, and the standing of the holder's identity.
import { calculateJwkThumbprint, type JWK } from "jose";
import { openEnvelope } from "../../lib/crypto.ts";
import { asEnvelope, fetchJson, type PeerOptions, resolvePeerKey } from "../../lib/peer.ts";
import { fetchPeerStanding } from "../identity/service.ts";
import type { KeyRing } from "../server/service.ts";
import { MAX_LIST_BITS, type StatusListCache } from "./status-list-reader.ts";

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
	/** Other attesters' status lists as read, kept per address (one for the app, not per request). */
	statusLists: StatusListCache;
	/** Whether an identity of this server stands: `active`, `revoked` or `unknown`. */
	localStanding: (fingerprint: string) => Promise<"active" | "revoked" | "unknown">;
	/** Spends an (audience, nonce) pair: false when it was used before. */
	spendNonce: (audience: string, nonce: string) => Promise<boolean>;
	now: number;
}

export interface AttesterKeys {
	state: string;
	reason: string;
	keys?: Map<string, JWK>;
	base?: string;
}

/** The attester's credential keys, each certification checked against its pinned root key. */
export async function attesterKeys(domain: string, source: AttesterSource): Promise<AttesterKeys> {
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

/**
 * The credential's bit in the attester's status list: this server's own from the table the list is
 * made from; another's from its list, read through `source.statusLists` (capped, kept per address).
 */
export async function statusBit(
	source: AttesterSource,
	domain: string,
	attester: { keys?: Map<string, JWK>; base?: string },
	uri: string,
	idx: number,
	issuerOrigin: string,
): Promise<{ state: "set" | "clear" } | { state: "unknown"; reason: string }> {
	let path: string;
	try {
		const url = new URL(uri);
		if (url.origin !== issuerOrigin)
			return { state: "unknown", reason: "the status list is not on the attester's origin" };
		path = url.pathname;
	} catch {
		return { state: "unknown", reason: "the status list's address cannot be read" };
	}
	if (domain === source.self.domain) {
		const bit = await source.self.statusBit(idx);
		return bit === "unknown"
			? { state: "unknown", reason: "the status list does not reach the credential" }
			: { state: bit };
	}
	if (idx >= MAX_LIST_BITS)
		return { state: "unknown", reason: `the position is past the ${MAX_LIST_BITS} a status list may hold` };
	const list = await source.statusLists.read(
		`${attester.base}${path}`,
		attester.keys ?? new Map(),
		source.peer,
		source.now,
	);
	if ("reason" in list) return { state: "unknown", reason: list.reason };
	if (idx >> 3 >= list.bytes.length)
		return { state: "unknown", reason: "the status list does not reach the credential" };
	return { state: (((list.bytes[idx >> 3] as number) >> (idx & 7)) & 1) === 1 ? "set" : "clear" };
}

export async function holderStanding(
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
