// The redirect and PKCE checks connected tools and the OIDC provider share (src/lib/oauth.ts).
// Runs once, not per database: the redirect and PKCE checks, with no database.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { test } from "node:test";
import { isRedirectOnOrigin, isS256Challenge, verifierMatches } from "../../src/lib/oauth.ts";

const ORIGIN = "https://tool.example";

test("a redirect address is an absolute address on the origin, without credentials or fragment", () => {
	for (const ok of [
		`${ORIGIN}/back`,
		`${ORIGIN}/`,
		`${ORIGIN}`,
		`${ORIGIN}/back?x=1`,
		"https://tool.example:443/b",
	]) {
		assert.equal(isRedirectOnOrigin(ok, ORIGIN), true, ok);
	}
	for (const bad of [
		`${ORIGIN}/back#x`,
		// `new URL(...).hash` is "" here: the copy in connections that asked `hash` took this one.
		`${ORIGIN}/back#`,
		`${ORIGIN}#`,
		"https://evil.example/back",
		"https://tool.example:8443/back",
		"http://tool.example/back",
		"https://user:pw@tool.example/back",
		"https://user@tool.example/back",
		"/back",
		"",
	]) {
		assert.equal(isRedirectOnOrigin(bad, ORIGIN), false, bad);
	}
});

test("PKCE S256: a challenge is 43 base64url; the verifier's SHA-256 must equal it", () => {
	const verifier = crypto.randomBytes(32).toString("base64url");
	const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
	assert.equal(isS256Challenge(challenge), true);
	for (const bad of [`${challenge}=`, challenge.slice(1), `${challenge.slice(1)}+`, ""]) {
		assert.equal(isS256Challenge(bad), false, bad);
	}
	assert.equal(verifierMatches(challenge, verifier), true);
	assert.equal(verifierMatches(challenge, `${verifier}x`), false, "another verifier");
	// RFC 7636 4.1: 43 to 128 unreserved characters, whatever it hashes to.
	const short = verifier.slice(0, 42);
	assert.equal(verifierMatches(crypto.createHash("sha256").update(short).digest("base64url"), short), false);
	// RFC 7636 appendix B's example.
	assert.equal(
		verifierMatches(
			"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
			"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
		),
		true,
	);
});
