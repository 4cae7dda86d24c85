// What a verification (verify.ts) asks of this server or of others: the attester's certified
// credential keys, a bit of its status list, and the standing of the holder's identity.
import zlib from "node:zlib";
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";
import { openEnvelope } from "../../lib/crypto.ts";
import { asEnvelope, fetchJson, type PeerOptions, peerFetchText, resolvePeerKey } from "../../lib/peer.ts";
import { fetchPeerStanding } from "../identity/service.ts";
import type { KeyRing } from "../server/service.ts";

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

export async function statusBit(
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
