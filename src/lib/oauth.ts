// The checks OAuth-style flows make of what a client sends, written once for the OIDC provider and
// for connected tools: the redirect address (RFC 6749 3.1.2) and PKCE S256 (RFC 7636).
import crypto from "node:crypto";
import { safeEqual } from "./crypto.ts";

/**
 * Whether `value` is an absolute address on `origin`, without credentials or fragment. A bare
 * trailing `#` is a fragment too (RFC 6749 3.1.2: "MUST NOT include a fragment component"), though
 * `URL#hash` reads it as "".
 */
export function isRedirectOnOrigin(value: string, origin: string): boolean {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return false;
	}
	return url.origin === origin && url.username === "" && url.password === "" && !value.includes("#");
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `value` has the form of a PKCE S256 challenge: base64url of a SHA-256 digest, 43 characters. */
export function isS256Challenge(value: string): boolean {
	return S256_CHALLENGE.test(value);
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The S256 challenge of a well-formed verifier (RFC 7636 4.1, 4.2); undefined when malformed. */
export function s256Of(verifier: string): string | undefined {
	if (!VERIFIER.test(verifier)) return undefined;
	return crypto.createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** RFC 7636 4.6: the verifier is well formed and its S256 transform equals the challenge. */
export function verifierMatches(challenge: string, verifier: string): boolean {
	const derived = s256Of(verifier);
	return derived !== undefined && safeEqual(derived, challenge);
}
