// Identity keys: ECDSA P-256 public keys as a device hands them over (JWK from WebCrypto, or SPKI
// PEM/base64), and challenge signatures in the form WebCrypto produces (IEEE P1363 r||s).
import crypto from "node:crypto";

export class KeyFormatError extends Error {}

const B64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Parses the public half of a P-256 key. Refuses private keys (a JWK with `d`, a PEM private key):
 * the private half never leaves the owner's device, so receiving it is a client bug to surface.
 */
export function parseP256PublicKey(input: unknown): crypto.KeyObject {
	let key: crypto.KeyObject;
	if (input !== null && typeof input === "object" && !Array.isArray(input)) {
		const jwk = input as Record<string, unknown>;
		if ("d" in jwk) throw new KeyFormatError("a private key was sent; send only the public half");
		if (jwk.kty !== "EC" || jwk.crv !== "P-256") throw new KeyFormatError("the key must be EC P-256");
		if (typeof jwk.x !== "string" || typeof jwk.y !== "string")
			throw new KeyFormatError("the JWK lacks x or y");
		key = tryCreate({ key: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, format: "jwk" });
	} else if (typeof input === "string") {
		const text = input.trim();
		if (/PRIVATE KEY/.test(text))
			throw new KeyFormatError("a private key was sent; send only the public half");
		if (text.startsWith("-----BEGIN PUBLIC KEY-----")) key = tryCreate(text);
		else if (B64.test(text) && text.length < 4096) {
			key = tryCreate({
				key: Buffer.from(text, text.includes("-") || text.includes("_") ? "base64url" : "base64"),
				format: "der",
				type: "spki",
			});
		} else throw new KeyFormatError("the key is neither a JWK, SPKI PEM nor base64 SPKI");
	} else throw new KeyFormatError("the key is neither a JWK, SPKI PEM nor base64 SPKI");

	if (key.type !== "public") throw new KeyFormatError("send only the public half of the key");
	if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
		throw new KeyFormatError("the key must be EC P-256");
	}
	return key;
}

function tryCreate(arg: Parameters<typeof crypto.createPublicKey>[0]): crypto.KeyObject {
	try {
		return crypto.createPublicKey(arg);
	} catch {
		throw new KeyFormatError("the key cannot be read");
	}
}

/** ECDSA P-256 SHA-256 over the UTF-8 bytes of `message`; `signature` is base64url r||s (64 bytes). */
export function verifyP256(key: crypto.KeyObject, message: string, signature: string): boolean {
	if (!/^[A-Za-z0-9_-]{86}$/.test(signature)) return false;
	const raw = Buffer.from(signature, "base64url");
	if (raw.length !== 64) return false;
	try {
		return crypto.verify("sha256", Buffer.from(message, "utf8"), { key, dsaEncoding: "ieee-p1363" }, raw);
	} catch {
		return false;
	}
}
