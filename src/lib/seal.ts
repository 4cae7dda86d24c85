// Sealing a short secret at rest (AES-256-GCM, a fresh 96-bit nonce each time) under a key derived
// with HKDF-SHA256 from key material the caller holds and a purpose label, so a database copy alone
// does not give the secret back. Knows nothing of the app.
import crypto from "node:crypto";

/** A 256-bit key for `purpose`, derived from `material` (e.g. a private key's DER). */
export function deriveKey(material: Uint8Array, purpose: string): Buffer {
	return Buffer.from(crypto.hkdfSync("sha256", material, Buffer.alloc(0), purpose, 32));
}

/** base64url of nonce (12) | tag (16) | ciphertext. */
export function seal(key: Buffer, plaintext: string): string {
	const iv = crypto.randomBytes(12);
	const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
	const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
	return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
}

/** The plaintext of `sealed`; throws when it was not sealed under `key` or was altered. */
export function unseal(key: Buffer, sealed: string): string {
	const raw = Buffer.from(sealed, "base64url");
	const decipher = crypto.createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
	decipher.setAuthTag(raw.subarray(12, 28));
	return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
