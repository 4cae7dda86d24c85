// "Prove this identity": answers a challenge with a key this browser holds, for any screen that
// needs a handshake (shares and requests with `requireHandshake`, attestation offers).
//
//   import { signChallenge } from "../identities/prove.ts";
//   const { nonce } = await request("GET", `/api/challenges/link/${slug}`, { auth: false }).data;
//   const challengeSignature = await signChallenge(identityId, nonce);
//   // then send { identityId, challengeNonce: nonce, challengeSignature } where the endpoint asks.
//
// The signature is what docs/api.md "Challenges" asks for: ECDSA P-256 with SHA-256 over the UTF-8
// bytes of the nonce, in IEEE P1363 form (r||s, 64 bytes; WebCrypto's own output), base64url
// without padding. It throws NoLocalKeyError when this browser does not hold the identity's key.

import { base64url } from "./keys.ts";
import { keyById } from "./keystore.ts";

export class NoLocalKeyError extends Error {
	constructor(readonly identityId: string) {
		super(`this browser holds no key for identity ${identityId}`);
		this.name = "NoLocalKeyError";
	}
}

/** Whether this browser holds the private key of the identity `identityId`. */
export async function holdsKey(identityId: string): Promise<boolean> {
	return (await keyById(identityId)) !== undefined;
}

/** Signs `nonce` with the identity's stored key: base64url of the 64-byte r||s signature. */
export async function signChallenge(identityId: string, nonce: string): Promise<string> {
	const stored = await keyById(identityId);
	if (!stored) throw new NoLocalKeyError(identityId);
	const signature = await crypto.subtle.sign(
		{ name: "ECDSA", hash: "SHA-256" },
		stored.keyPair.privateKey,
		new TextEncoder().encode(nonce),
	);
	return base64url(signature);
}
