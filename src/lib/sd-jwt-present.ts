// Building a presentation for `svc://present` (spec "App links", "Credential content"): the holder
// picks the claims to disclose one by one, and a key binding JWT (`kb+jwt`) signed with the
// identity key covers the audience (the service's origin), the nonce and `sd_hash`, the hash of
// exactly the issuer JWT and disclosures presented. Made with @sd-jwt/sd-jwt-vc; the signature is
// the caller's (a device key never leaves its device), in the JWS ES256 form (r||s, base64url).
import { sdJwtLibrary } from "./sd-jwt.ts";

export interface PresentOptions {
	/** Names of the claims to disclose; every other claim stays a digest. */
	claims: readonly string[];
	audience: string;
	nonce: string;
	/** Signs the key binding JWT's signing input with the identity key: base64url ES256 signature. */
	sign: (signingInput: string) => Promise<string>;
	/** Seconds since the epoch for the key binding's `iat`. */
	now: number;
}

const NONCE = /^[A-Za-z0-9._~-]{8,256}$/;

export async function buildPresentation(credential: string, options: PresentOptions): Promise<string> {
	if (!NONCE.test(options.nonce)) throw new Error("nonce must be 8 to 256 characters of [A-Za-z0-9._~-]");
	const { SDJwtVcInstance, digest } = await sdJwtLibrary();
	const sdjwt = new SDJwtVcInstance({
		hasher: digest,
		hashAlg: "sha-256",
		kbSigner: options.sign,
		kbSignAlg: "ES256",
	});
	const frame = Object.fromEntries(options.claims.map((name) => [name, true]));
	return sdjwt.present(credential, frame as never, {
		kb: { payload: { iat: Math.floor(options.now), aud: options.audience, nonce: options.nonce } },
	});
}
