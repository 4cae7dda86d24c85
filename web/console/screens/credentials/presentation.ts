// The presentation the console sends for `svc://present` (spec "App links"): the held SD-JWT VC with
// the disclosures of the claims left ticked, and a key binding JWT (`kb+jwt`: `iat`, `aud` = the
// service's origin, `nonce`, `sd_hash`) signed ES256 by the identity key this browser holds. Built
// by @sd-jwt/core with WebCrypto for the hash and the
// signature: the private key never leaves IndexedDB. @sd-jwt/core is the base of @sd-jwt/sd-jwt-vc
// (the library the server and `svc` use) without its VC type checks, which bring zod: 26 KB in the
// page instead of 470.
import { base64url } from "../identities/keys.ts";
import { keyById } from "../identities/keystore.ts";
import { NoLocalKeyError } from "../identities/prove.ts";

export async function buildPresentation(
	credential: string,
	options: { identityId: string; claims: readonly string[]; audience: string; nonce: string },
): Promise<string> {
	const stored = await keyById(options.identityId);
	if (!stored) throw new NoLocalKeyError(options.identityId);
	const { SDJwtInstance } = await import("@sd-jwt/core");
	const sdjwt = new SDJwtInstance({
		hasher: async (data, alg) => {
			if (alg !== "sha-256") throw new Error(`unsupported hash ${alg}`);
			const bytes = typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data);
			return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
		},
		hashAlg: "sha-256",
		kbSigner: async (input: string) =>
			base64url(
				await crypto.subtle.sign(
					{ name: "ECDSA", hash: "SHA-256" },
					stored.keyPair.privateKey,
					new TextEncoder().encode(input),
				),
			),
		kbSignAlg: "ES256",
	});
	const frame = Object.fromEntries(options.claims.map((name) => [name, true]));
	return sdjwt.present(credential, frame as never, {
		kb: {
			payload: { iat: Math.floor(Date.now() / 1000), aud: options.audience, nonce: options.nonce },
		},
	});
}
