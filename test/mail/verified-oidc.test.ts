// A verified address reaches the services that sign people in (issue 41): with mail on, a passkey
// sign-up is sent a verify link (through a real SMTP server, read back with mailparser); before the
// link is opened the ID token says `email_verified: false`, after it `true` — checked by a relying
// party we did not write (openid-client 6), the ID token's signature verified against the JWKS.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { freePort } from "../helpers/browser.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { linkIn, type SmtpServer, startSmtp } from "../helpers/smtp.ts";
import { pkce } from "../helpers/webauthn.ts";

const SERVICE = "http://127.0.0.1:41011";
const CALLBACK = `${SERVICE}/auth/callback`;

let t: TestApp;
let smtp: SmtpServer;
let origin: string;
let person: PasskeyClient;

before(async () => {
	smtp = await startSmtp();
	const port = await freePort();
	t = await makeApp({
		port,
		allowSignups: true,
		smtpUrl: smtp.url,
		mailFrom: "svc@localhost",
		smtpTlsCa: smtp.caFile,
	});
	await t.app.listen({ port, host: "127.0.0.1" });
	origin = `http://localhost:${port}`;
	person = new PasskeyClient(t.app);
});
after(async () => {
	await t.close();
	await smtp.close();
});

/** The code flow as a service runs it with openid-client; the page's passkey sign-in and consent. */
async function idToken(): Promise<Record<string, unknown>> {
	const config = await oidc.discovery(new URL(origin), SERVICE, undefined, oidc.None(), {
		execute: [oidc.allowInsecureRequests],
	});
	oidc.enableNonRepudiationChecks(config);
	const verifier = oidc.randomPKCECodeVerifier();
	const state = oidc.randomState();
	const nonce = oidc.randomNonce();
	const url = oidc.buildAuthorizationUrl(config, {
		redirect_uri: CALLBACK,
		scope: "openid email",
		code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
		code_challenge_method: "S256",
		state,
		nonce,
	});
	const page = await person.request("GET", `${url.pathname}${url.search}`);
	const handle = /data-request="([^"]+)"/.exec(page.body)?.[1];
	assert.ok(handle, page.body);
	const login = pkce();
	const signedIn = await person.login(login.challenge);
	const session = await person.post("/oidc/authorize/session", {
		request: handle,
		code: signedIn.json().code,
		verifier: login.verifier,
	});
	assert.equal(session.statusCode, 200, session.body);
	const data = session.json() as { ticket: string; scopes: { scope: string }[] };
	const consent = await person.post("/oidc/authorize/consent", {
		ticket: data.ticket,
		approve: true,
		scopes: data.scopes.map((s) => s.scope),
		links: {},
	});
	assert.equal(consent.statusCode, 200, consent.body);
	const tokens = await oidc.authorizationCodeGrant(config, new URL(consent.json().redirect), {
		pkceCodeVerifier: verifier,
		expectedState: state,
		expectedNonce: nonce,
		idTokenExpected: true,
	});
	assert.ok(tokens.id_token);
	// openid-client does not check the signature of an ID token it got from the token endpoint: jose does.
	const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${origin}/oidc/jwks`)), {
		issuer: origin,
		audience: SERVICE,
		algorithms: ["RS256"],
	});
	assert.deepEqual(tokens.claims()?.email, payload.email);
	return payload;
}

test("a sign-up is mailed a verify link; once opened, the ID token says email_verified: true", async () => {
	await person.signup("grace@example.org", { name: "Grace" });
	await t.app.background.drainOnce(Date.now());
	const [got] = await smtp.waitFor(1);
	assert.ok(got);
	assert.deepEqual(got.to, ["grace@example.org"]);
	assert.equal(got.mail.subject, "Confirm your e-mail address for localhost");

	const before = await idToken();
	assert.equal(before.email, "grace@example.org");
	assert.equal(before.email_verified, false);

	const link = linkIn(got, origin);
	const confirmed = await t.app.inject({
		method: "POST",
		url: "/api/auth/email/confirm",
		payload: { token: link.split("#")[1] },
	});
	assert.equal(confirmed.statusCode, 200, confirmed.body);

	const after = await idToken();
	assert.equal(after.email, "grace@example.org");
	assert.equal(after.email_verified, true);
});
