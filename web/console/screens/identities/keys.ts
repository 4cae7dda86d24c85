// Making an identity key in this browser: an ECDSA P-256 pair whose private half is
// non-extractable, its public half as the JWK the API takes, and its fingerprint (lowercase hex
// SHA-256 of the SPKI DER, as docs/api.md "Identities and standing" defines it).

export const ALGORITHM: EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };

export function generateKeyPair(): Promise<CryptoKeyPair> {
	// false: the private key can sign here but never be exported (the public key always can).
	return crypto.subtle.generateKey(ALGORITHM, false, ["sign", "verify"]);
}

/** The public half as `{kty, crv, x, y}` (WebCrypto adds key_ops and ext, which the API ignores). */
export async function publicJwk(key: CryptoKey): Promise<{ kty: string; crv: string; x: string; y: string }> {
	const jwk = await crypto.subtle.exportKey("jwk", key);
	return { kty: jwk.kty ?? "EC", crv: jwk.crv ?? "P-256", x: jwk.x ?? "", y: jwk.y ?? "" };
}

export function hex(bytes: ArrayBuffer | Uint8Array): string {
	return Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (b) =>
		b.toString(16).padStart(2, "0"),
	).join("");
}

export async function fingerprintOf(publicKey: CryptoKey): Promise<string> {
	const spki = await crypto.subtle.exportKey("spki", publicKey);
	return hex(await crypto.subtle.digest("SHA-256", spki));
}

export function base64url(bytes: ArrayBuffer): string {
	let binary = "";
	for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
	return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `3f2a9c1b…77e0d4`: enough to tell keys apart at a glance; the full value is on the identity's page. */
export function shortFingerprint(fingerprint: string): string {
	return `${fingerprint.slice(0, 12)}…${fingerprint.slice(-6)}`;
}
