// An identity key made the way a browser device makes it: WebCrypto ECDSA P-256, public half
// exported as JWK, challenges signed with ECDSA SHA-256 (IEEE P1363 r||s, base64url).
import crypto from "node:crypto";

const subtle = crypto.webcrypto.subtle;

export interface DeviceKey {
	publicJwk: crypto.webcrypto.JsonWebKey;
	/** Lowercase hex SHA-256 of the SPKI DER, computed independently of the server. */
	fingerprint: string;
	sign(message: string): Promise<string>;
}

export async function deviceKey(): Promise<DeviceKey> {
	const pair = (await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
		"sign",
		"verify",
	])) as crypto.webcrypto.CryptoKeyPair;
	const publicJwk = await subtle.exportKey("jwk", pair.publicKey);
	const spki = Buffer.from(await subtle.exportKey("spki", pair.publicKey));
	return {
		publicJwk,
		fingerprint: crypto.createHash("sha256").update(spki).digest("hex"),
		async sign(message: string) {
			const sig = await subtle.sign(
				{ name: "ECDSA", hash: "SHA-256" },
				pair.privateKey,
				new TextEncoder().encode(message),
			);
			return Buffer.from(sig).toString("base64url");
		},
	};
}
