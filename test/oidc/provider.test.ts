// The OpenID Connect provider against a relying party we did not write (openid-client 6): the code
// flow with PKCE on a listening server, the ID token's signature checked explicitly against the
// JWKS (openid-client does not unless told), userinfo and `svc_links`, the grant read with
// POST /api/grants/resolve as a service would, and every refusal the spec names. The page's
// passkey sign-in runs here as its script does, with the software authenticator (the browser test
// drives the real page).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import {
	calculateJwkThumbprint,
	createLocalJWKSet,
	createRemoteJWKSet,
	decodeJwt,
	decodeProtectedHeader,
	importJWK,
	type JWK,
	jwtVerify,
} from "jose";
import * as oidc from "openid-client";
import { OIDC_KEYS, rotateKey } from "../../src/features/server/certified-keys.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { freePort } from "../helpers/browser.ts";
import type { TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { entryArgs } from "../helpers/root.ts";
import { pkce } from "../helpers/webauthn.ts";
import { createValue, LINKS, nextIp, RECORDS } from "../shares/helpers.ts";

let t: TestApp;
let origin: string;
let person: PasskeyClient;
let owner: TestAccount;
/** Two services, each its own origin (loopback origins are allowed with DOMAIN=localhost). */
const SERVICE_A = "http://127.0.0.1:41001";
const SERVICE_B = "http://127.0.0.1:41002";
const callback = (client: string) => `${client}/auth/callback`;

before(async () => {
	const port = await freePort();
	t = await makeApp({ port, allowSignups: true });
	await t.app.listen({ port, host: "127.0.0.1" });
	origin = `http://localhost:${port}`;
	person = new PasskeyClient(t.app);
	const { token, record } = await person.signup("ada@example.org", { name: "Ada" });
	owner = {
		accountId: record.id,
		workspaceId: "",
		email: record.email,
		token,
		headers: { authorization: `Bearer ${token}` },
	};
});
after(() => t.close());

interface ConsentData {
	ticket: string;
	client: string;
	account: { name: string; email: string };
	scopes: { scope: string; reveals: Record<string, unknown> }[];
	keys: { key: string; entries: { id: string; name: string; type: string; hidden: boolean }[] }[];
}

/** Opens the page for an authorization address; answers its request handle (or the raw reply). */
async function openPage(url: string) {
	const u = new URL(url);
	const res = await person.request("GET", `${u.pathname}${u.search}`);
	const handle = /data-request="([^"]+)"/.exec(res.body)?.[1];
	return { res, handle };
}

/** The page's passkey sign-in: its own PKCE pair, the ceremony, the code sent with the request. */
async function signInOnPage(handle: string) {
	const { verifier, challenge } = pkce();
	const login = await person.login(challenge);
	assert.equal(login.statusCode, 200, login.body);
	return person.post("/oidc/authorize/session", { request: handle, code: login.json().code, verifier });
}

async function consentTo(
	url: string,
	answer: { approve?: boolean; scopes?: string[]; links?: Record<string, string> } = {},
): Promise<{ data: ConsentData; redirect: URL }> {
	const { res, handle } = await openPage(url);
	assert.equal(res.statusCode, 200, res.body);
	assert.ok(handle);
	const session = await signInOnPage(handle);
	assert.equal(session.statusCode, 200, session.body);
	const data = session.json() as ConsentData;
	const consent = await person.post("/oidc/authorize/consent", {
		ticket: data.ticket,
		approve: answer.approve ?? true,
		scopes: answer.scopes ?? data.scopes.map((s) => s.scope),
		links: answer.links ?? {},
	});
	assert.equal(consent.statusCode, 200, consent.body);
	return { data, redirect: new URL(consent.json().redirect) };
}

/** An authorization address as a service builds it by hand. */
function authorizeUrl(params: Record<string, string>, client = SERVICE_A) {
	const { challenge } = pkce();
	const q = new URLSearchParams({
		client_id: client,
		redirect_uri: callback(client),
		response_type: "code",
		scope: "openid",
		code_challenge: challenge,
		code_challenge_method: "S256",
		state: "st-1",
		...params,
	});
	return `${origin}/oidc/authorize?${q}`;
}

/** A relying party as openid-client builds it, against the listening server. */
async function relyingParty(client = SERVICE_A) {
	const config = await oidc.discovery(new URL(origin), client, undefined, oidc.None(), {
		execute: [oidc.allowInsecureRequests],
	});
	oidc.enableNonRepudiationChecks(config);
	return config;
}

async function codeFlow(
	client: string,
	options: { scope: string; claims?: unknown; links?: (data: ConsentData) => Record<string, string> },
) {
	const config = await relyingParty(client);
	const verifier = oidc.randomPKCECodeVerifier();
	const state = oidc.randomState();
	const nonce = oidc.randomNonce();
	const url = oidc.buildAuthorizationUrl(config, {
		redirect_uri: callback(client),
		scope: options.scope,
		code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
		code_challenge_method: "S256",
		state,
		nonce,
		...(options.claims ? { claims: JSON.stringify(options.claims) } : {}),
	});
	let links: Record<string, string> = {};
	const { data, redirect } = await (async () => {
		const { res, handle } = await openPage(url.href);
		assert.equal(res.statusCode, 200, res.body);
		const session = await signInOnPage(handle as string);
		assert.equal(session.statusCode, 200, session.body);
		const consentData = session.json() as ConsentData;
		links = options.links ? options.links(consentData) : {};
		const consent = await person.post("/oidc/authorize/consent", {
			ticket: consentData.ticket,
			approve: true,
			scopes: consentData.scopes.map((s) => s.scope),
			links,
		});
		assert.equal(consent.statusCode, 200, consent.body);
		return { data: consentData, redirect: new URL(consent.json().redirect) };
	})();
	const tokens = await oidc.authorizationCodeGrant(config, redirect, {
		pkceCodeVerifier: verifier,
		expectedState: state,
		expectedNonce: nonce,
		idTokenExpected: true,
	});
	return { config, tokens, data, redirect, nonce };
}

function resolveGrant(grant: { id: string; token: string }) {
	return t.app.inject({
		method: "POST",
		url: "/api/grants/resolve",
		payload: { grants: [{ id: grant.id, token: grant.token }] },
		remoteAddress: nextIp(),
	});
}

describe("discovery and keys", () => {
	test("metadata names the issuer from the Host: localhost as http://localhost:<port>, else the domain", async () => {
		const res = await fetch(`${origin}/.well-known/openid-configuration`);
		assert.equal(res.status, 200);
		const meta = (await res.json()) as Record<string, unknown>;
		assert.equal(meta.issuer, origin);
		assert.equal(meta.authorization_endpoint, `${origin}/oidc/authorize`);
		assert.equal(meta.token_endpoint, `${origin}/oidc/token`);
		assert.equal(meta.userinfo_endpoint, `${origin}/oidc/userinfo`);
		assert.equal(meta.jwks_uri, `${origin}/oidc/jwks`);
		assert.deepEqual(meta.response_types_supported, ["code"]);
		assert.deepEqual(meta.code_challenge_methods_supported, ["S256"]);
		assert.deepEqual(meta.token_endpoint_auth_methods_supported, ["none"]);
		assert.deepEqual(meta.subject_types_supported, ["pairwise"]);
		assert.deepEqual(meta.id_token_signing_alg_values_supported, ["RS256"]);

		const other = await t.app.inject({
			method: "GET",
			url: "/.well-known/openid-configuration",
			headers: { host: "evil.example" },
		});
		assert.equal(other.json().issuer, `http://localhost:${t.app.config.port}`);
	});

	test("the JWKS key is not the root key and is certified by it (oidc-key-v1, kid = RFC 7638 thumbprint)", async () => {
		const res = await fetch(`${origin}/oidc/jwks`);
		const { keys } = (await res.json()) as {
			keys: (JWK & { svc_certification: { payload: string; signature: string } })[];
		};
		assert.equal(keys.length, 1);
		const [key] = keys as [(typeof keys)[number]];
		assert.equal(key.kty, "RSA");
		assert.equal(key.alg, "RS256");
		assert.equal(key.d, undefined, "no private part");
		const { svc_certification: cert, ...jwk } = key;
		const thumbprint = await calculateJwkThumbprint({ kty: jwk.kty, n: jwk.n, e: jwk.e } as JWK, "sha256");
		assert.equal(key.kid, thumbprint);
		const root = crypto.createPublicKey(t.app.rootKey.publicPem);
		assert.ok(crypto.verify("sha256", Buffer.from(cert.payload), root, Buffer.from(cert.signature, "hex")));
		const payload = JSON.parse(Buffer.from(cert.payload, "base64url").toString("utf8"));
		assert.equal(Object.keys(payload)[0], "type");
		assert.equal(payload.type, "oidc-key-v1");
		assert.equal(payload.domain, "localhost");
		assert.equal(payload.kid, thumbprint);
		const rootJwk = crypto.createPublicKey(t.app.rootKey.publicPem).export({ format: "jwk" });
		assert.notEqual(rootJwk.n, key.n, "a key of its own");
		await importJWK(jwk as JWK, "RS256");
	});
});

describe("the code flow with openid-client", () => {
	test("sign in with PKCE: the ID token verifies against the JWKS and carries the spec's claims", async () => {
		const { tokens, nonce } = await codeFlow(SERVICE_A, { scope: "openid profile email" });
		assert.equal(tokens.token_type.toLowerCase(), "bearer");
		assert.equal(tokens.expires_in, 3600);
		assert.equal(tokens.scope, "openid profile email");
		assert.ok(tokens.id_token);
		// Explicitly, with jose, against the published keys.
		const { payload, protectedHeader } = await jwtVerify(
			tokens.id_token,
			createRemoteJWKSet(new URL(`${origin}/oidc/jwks`)),
			{ issuer: origin, audience: SERVICE_A, algorithms: ["RS256"] },
		);
		assert.equal(protectedHeader.alg, "RS256");
		assert.equal(payload.nonce, nonce);
		assert.equal(payload.name, "Ada");
		assert.equal(payload.email, "ada@example.org");
		assert.equal(payload.email_verified, false);
		assert.equal((payload.exp as number) - (payload.iat as number), 600);
		assert.equal(typeof payload.auth_time, "number");
		assert.ok(payload.sub && payload.sub !== owner.accountId, "pairwise, not the account id");
		assert.equal(payload.svc_links, undefined);
	});

	test("a declined optional scope is left out of the ID token and userinfo", async () => {
		const config = await relyingParty(SERVICE_A);
		const verifier = oidc.randomPKCECodeVerifier();
		const url = oidc.buildAuthorizationUrl(config, {
			redirect_uri: callback(SERVICE_A),
			scope: "openid profile email",
			code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
			code_challenge_method: "S256",
			state: "s",
		});
		const { redirect } = await consentTo(url.href, { scopes: ["profile"] });
		const tokens = await oidc.authorizationCodeGrant(config, redirect, {
			pkceCodeVerifier: verifier,
			expectedState: "s",
		});
		const claims = tokens.claims();
		assert.ok(claims);
		assert.equal(claims.name, "Ada");
		assert.equal(claims.email, undefined);
		assert.equal(tokens.scope, "openid profile");
		const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
		assert.equal(info.name, "Ada");
		assert.equal(info.email, undefined);
	});

	test("two services get different subjects for one person; one service always the same", async () => {
		const a1 = (await codeFlow(SERVICE_A, { scope: "openid" })).tokens.claims()?.sub;
		const a2 = (await codeFlow(SERVICE_A, { scope: "openid" })).tokens.claims()?.sub;
		const b = (await codeFlow(SERVICE_B, { scope: "openid" })).tokens.claims()?.sub;
		assert.ok(a1 && b);
		assert.equal(a1, a2);
		assert.notEqual(a1, b);
	});

	test("a requested key answered with an entry: svc_links at userinfo only, read live, and gone when revoked", async () => {
		const iban = await createValue(t.app, owner, { key: "iban", name: "Main account", value: "DE00 1111" });
		await createValue(t.app, owner, { key: "phone", value: "+49 30 1" });
		const claims = { userinfo: { svc_links: { values: ["iban", "phone"] } } };
		const { config, tokens, data } = await codeFlow(SERVICE_A, {
			scope: "openid",
			claims,
			// The person answers iban and leaves phone out.
			links: () => ({ iban: iban.id }),
		});
		assert.deepEqual(
			data.keys.map((k) => [k.key, k.entries.map((e) => e.name)]),
			[
				["iban", ["Main account"]],
				["phone", ["phone"]],
			],
		);
		assert.equal(decodeJwt(tokens.id_token as string).svc_links, undefined, "never in the ID token");
		const sub = tokens.claims()?.sub as string;
		const info = (await oidc.fetchUserInfo(config, tokens.access_token, sub)) as Record<string, unknown>;
		const links = info.svc_links as {
			endpoint: string;
			grants: { id: string; token: string; keys: string[] }[];
		};
		assert.equal(links.endpoint, `${origin}/api/grants/resolve`);
		assert.equal(links.grants.length, 1);
		const [grant] = links.grants as [{ id: string; token: string; keys: string[] }];
		assert.deepEqual(grant.keys, ["iban"]);

		let read = await resolveGrant(grant);
		assert.equal(read.statusCode, 200, read.body);
		assert.equal(read.json().items[0].status, "active");
		assert.deepEqual(
			read.json().items[0].values.map((v: { key: string; value: string }) => [v.key, v.value]),
			[["iban", "DE00 1111"]],
		);
		// The value changes in the vault: the service reads the new one.
		const patched = await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${iban.id}`,
			headers: owner.headers,
			payload: { value: "DE00 2222" },
		});
		assert.equal(patched.statusCode, 200, patched.body);
		read = await resolveGrant(grant);
		assert.equal(read.json().items[0].values[0].value, "DE00 2222");

		// The link is the person's, like any other: marked with the service's origin.
		const listed = await t.app.inject({ method: "GET", url: `${LINKS}/${grant.id}`, headers: owner.headers });
		assert.equal(listed.statusCode, 200, listed.body);
		assert.equal(listed.json().signInClient, SERVICE_A);

		// A second sign-in that shares again: the same link, a fresh token; the old token stops working.
		const again = await codeFlow(SERVICE_A, { scope: "openid", claims, links: () => ({ iban: iban.id }) });
		const info2 = (await oidc.fetchUserInfo(
			again.config,
			again.tokens.access_token,
			again.tokens.claims()?.sub as string,
		)) as Record<string, unknown>;
		const [grant2] = (info2.svc_links as { grants: { id: string; token: string }[] }).grants as [
			{ id: string; token: string },
		];
		assert.equal(grant2.id, grant.id);
		assert.notEqual(grant2.token, grant.token);
		assert.equal((await resolveGrant(grant)).json().items[0].status, "not_found");
		assert.equal((await resolveGrant(grant2)).json().items[0].status, "active");
		// userinfo lists only a grant that still stands: the first sign-in's access token no longer
		// names the old token, the second's names the new one.
		const listedAt = async (flow: { config: oidc.Configuration; tokens: typeof tokens }) => {
			const sub = flow.tokens.claims()?.sub as string;
			const got = (await oidc.fetchUserInfo(flow.config, flow.tokens.access_token, sub)) as Record<
				string,
				unknown
			>;
			return (got.svc_links as { grants: { id: string }[] } | undefined)?.grants.map((g) => g.id) ?? [];
		};
		assert.deepEqual(await listedAt({ config, tokens }), [], "a replaced token is not listed");
		assert.deepEqual(await listedAt(again), [grant.id]);

		// Paused by the person: the service reads `paused` and no values; revoked: not_found, as if the
		// grant had never been handed out; deleted: not_found too.
		const paused = await t.app.inject({
			method: "PATCH",
			url: `${LINKS}/${grant.id}`,
			headers: owner.headers,
			payload: { status: "paused" },
		});
		assert.equal(paused.statusCode, 200, paused.body);
		read = await resolveGrant(grant2);
		assert.equal(read.json().items[0].status, "paused");
		assert.equal(read.json().items[0].values, undefined);
		assert.deepEqual(await listedAt(again), [grant.id], "a paused grant still stands");
		const revoked = await t.app.inject({
			method: "PATCH",
			url: `${LINKS}/${grant.id}`,
			headers: owner.headers,
			payload: { status: "revoked" },
		});
		assert.equal(revoked.statusCode, 200, revoked.body);
		read = await resolveGrant(grant2);
		assert.equal(read.json().items[0].status, "not_found");
		assert.equal(read.json().items[0].code, "not_found");
		assert.equal(read.json().items[0].values, undefined);
		assert.deepEqual(await listedAt(again), [], "a revoked grant is no longer listed");
		const removed = await t.app.inject({
			method: "DELETE",
			url: `${LINKS}/${grant.id}`,
			headers: owner.headers,
		});
		assert.equal(removed.statusCode, 204, removed.body);
		assert.equal((await resolveGrant(grant2)).json().items[0].status, "not_found");

		// The next sign-in that shares makes a new link for the service.
		const third = await codeFlow(SERVICE_A, { scope: "openid", claims, links: () => ({ iban: iban.id }) });
		const info3 = (await oidc.fetchUserInfo(
			third.config,
			third.tokens.access_token,
			third.tokens.claims()?.sub as string,
		)) as Record<string, unknown>;
		const [grant3] = (info3.svc_links as { grants: { id: string; token: string }[] }).grants as [
			{ id: string; token: string },
		];
		assert.notEqual(grant3.id, grant.id);
		assert.equal((await resolveGrant(grant3)).json().items[0].values[0].value, "DE00 2222");
	});

	test("a sign-in's share that expired is not revived: the next sign-in that shares makes a new one", async () => {
		const city = await createValue(t.app, owner, { key: "town", value: "Bonn" });
		const claims = { userinfo: { svc_links: { values: ["town"] } } };
		const grantOf = async (flow: Awaited<ReturnType<typeof codeFlow>>) => {
			const info = await oidc.fetchUserInfo(
				flow.config,
				flow.tokens.access_token,
				flow.tokens.claims()?.sub as string,
			);
			return (info.svc_links as { grants: { id: string; token: string }[] }).grants[0] as {
				id: string;
				token: string;
			};
		};
		const first = await grantOf(
			await codeFlow(SERVICE_B, { scope: "openid", claims, links: () => ({ town: city.id }) }),
		);
		// The person gives the share an expiry (a past one is refused), and it passes: the app's
		// clock is moved past it, not waited for (docs/testing.md "Time in tests").
		const real = t.app.clock.now;
		const exp = real() + 1000;
		const patched = await t.app.inject({
			method: "PATCH",
			url: `${LINKS}/${first.id}`,
			headers: owner.headers,
			payload: { expiresAt: new Date(exp).toISOString() },
		});
		assert.equal(patched.statusCode, 200, patched.body);
		try {
			t.app.clock.now = () => exp - 1;
			assert.equal((await resolveGrant(first)).json().items[0].status, "active", "at exp-1");
			// From here on the app's time runs on, a second ahead: every later moment is past exp.
			t.app.clock.now = () => real() + 1001;
			assert.equal((await resolveGrant(first)).json().items[0].status, "expired");

			const second = await grantOf(
				await codeFlow(SERVICE_B, { scope: "openid", claims, links: () => ({ town: city.id }) }),
			);
			assert.notEqual(second.id, first.id);
			const read = (await resolveGrant(second)).json().items[0];
			assert.equal(read.status, "active");
			assert.equal(read.values[0].value, "Bonn");
			const old = await t.app.inject({ method: "GET", url: `${LINKS}/${first.id}`, headers: owner.headers });
			assert.equal(old.json().status, "expired", "the expired share stays as it was");
		} finally {
			t.app.clock.now = real;
		}
	});
});

/** Posts a token request as a form. */
function tokenRequest(form: Record<string, string>) {
	return t.app.inject({
		method: "POST",
		url: "/oidc/token",
		headers: { "content-type": "application/x-www-form-urlencoded" },
		payload: new URLSearchParams(form).toString(),
		remoteAddress: nextIp(),
	});
}

/** A code for SERVICE_A with its verifier. */
async function freshCode() {
	const { verifier, challenge } = pkce();
	const url = authorizeUrl({ code_challenge: challenge });
	const { redirect } = await consentTo(url);
	const code = redirect.searchParams.get("code");
	assert.ok(code);
	return { code, verifier };
}

describe("the token endpoint's refusals", () => {
	test("a replayed code is invalid_grant, and so is the first use after a wrong presentation", async () => {
		const { code, verifier } = await freshCode();
		const form = {
			grant_type: "authorization_code",
			code,
			client_id: SERVICE_A,
			redirect_uri: callback(SERVICE_A),
			code_verifier: verifier,
		};
		const first = await tokenRequest(form);
		assert.equal(first.statusCode, 200, first.body);
		assert.equal(first.headers["cache-control"], "no-store");
		const replay = await tokenRequest(form);
		assert.equal(replay.statusCode, 400);
		assert.equal(replay.json().error, "invalid_grant");
		assert.equal(typeof replay.json().error_description, "string");

		const next = await freshCode();
		const wrong = await tokenRequest({ ...form, code: next.code, code_verifier: pkce().verifier });
		assert.equal(wrong.json().error, "invalid_grant");
		const right = await tokenRequest({ ...form, code: next.code, code_verifier: next.verifier });
		assert.equal(right.json().error, "invalid_grant", "spent the moment it was presented");
	});

	test("one code presented ten times at once is exchanged once", async () => {
		const { code, verifier } = await freshCode();
		const form = {
			grant_type: "authorization_code",
			code,
			client_id: SERVICE_A,
			redirect_uri: callback(SERVICE_A),
			code_verifier: verifier,
		};
		const answers = await Promise.all(Array.from({ length: 10 }, () => tokenRequest(form)));
		assert.deepEqual(
			answers.map((a) => a.statusCode).sort(),
			[200, 400, 400, 400, 400, 400, 400, 400, 400, 400],
		);
	});

	test("sign-ins exchanged at once by one person for one service share one link", async () => {
		const entry = await createValue(t.app, owner, { key: "city", value: "Berlin" });
		const client = "http://127.0.0.1:41003";
		const claims = JSON.stringify({ userinfo: { svc_links: { values: ["city"] } } });
		const codes = [];
		for (let i = 0; i < 4; i++) {
			const { verifier, challenge } = pkce();
			const { redirect } = await consentTo(authorizeUrl({ code_challenge: challenge, claims }, client), {
				links: { city: entry.id },
			});
			codes.push({ code: redirect.searchParams.get("code") as string, verifier });
		}
		const answers = await Promise.all(
			codes.map((c) =>
				tokenRequest({
					grant_type: "authorization_code",
					code: c.code,
					client_id: client,
					redirect_uri: callback(client),
					code_verifier: c.verifier,
				}),
			),
		);
		for (const a of answers) assert.equal(a.statusCode, 200, a.body);
		const grants = [];
		for (const a of answers) {
			const info = await t.app.inject({
				method: "GET",
				url: "/oidc/userinfo",
				headers: { authorization: `Bearer ${a.json().access_token}` },
				remoteAddress: nextIp(),
			});
			const listed = info.json().svc_links as { grants: { id: string; token: string }[] } | undefined;
			if (listed) grants.push(...listed.grants);
		}
		// Each exchange gave the one link a fresh token: userinfo lists it only for the access token
		// whose grant token still stands, the last one.
		assert.equal(grants.length, 1, "the last fresh token alone is listed");
		assert.equal(
			(await resolveGrant(grants[0] as { id: string; token: string })).json().items[0].status,
			"active",
		);
		const listed = await t.app.inject({ method: "GET", url: `${LINKS}?perPage=200`, headers: owner.headers });
		const mine = (listed.json().items as { signInClient: string | null }[]).filter(
			(l) => l.signInClient === client,
		);
		assert.equal(mine.length, 1);
	});

	test("a wrong redirect address or client is invalid_grant", async () => {
		for (const change of [{ redirect_uri: `${SERVICE_A}/other` }, { client_id: SERVICE_B }]) {
			const { code, verifier } = await freshCode();
			const res = await tokenRequest({
				grant_type: "authorization_code",
				code,
				client_id: SERVICE_A,
				redirect_uri: callback(SERVICE_A),
				code_verifier: verifier,
				...change,
			});
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().error, "invalid_grant", JSON.stringify(change));
		}
	});

	test("an expired code is invalid_grant", async () => {
		const { code, verifier } = await freshCode();
		const real = t.app.clock.now;
		t.app.clock.now = () => real() + 61_000;
		try {
			const res = await tokenRequest({
				grant_type: "authorization_code",
				code,
				client_id: SERVICE_A,
				redirect_uri: callback(SERVICE_A),
				code_verifier: verifier,
			});
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().error, "invalid_grant");
			assert.match(res.json().error_description, /expired/);
		} finally {
			t.app.clock.now = real;
		}
	});

	test("unsupported_grant_type, invalid_request for missing or repeated parameters and for JSON", async () => {
		let res = await tokenRequest({ grant_type: "refresh_token", refresh_token: "x" });
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().error, "unsupported_grant_type");
		res = await tokenRequest({ grant_type: "authorization_code" });
		assert.equal(res.json().error, "invalid_request");
		res = await t.app.inject({
			method: "POST",
			url: "/oidc/token",
			headers: { "content-type": "application/x-www-form-urlencoded" },
			payload: "grant_type=authorization_code&code=a&code=b",
			remoteAddress: nextIp(),
		});
		assert.equal(res.json().error, "invalid_request");
		res = await t.app.inject({
			method: "POST",
			url: "/oidc/token",
			payload: { grant_type: "authorization_code" },
			remoteAddress: nextIp(),
		});
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().error, "invalid_request");
	});

	test("a service's page may call token and userinfo: preflights and answers allow any origin", async () => {
		for (const [url, methods] of [
			["/oidc/token", "POST"],
			["/oidc/userinfo", "GET, POST"],
		] as const) {
			const pre = await t.app.inject({
				method: "OPTIONS",
				url,
				headers: {
					origin: SERVICE_A,
					"access-control-request-method": "POST",
					"access-control-request-headers": "authorization",
				},
				remoteAddress: nextIp(),
			});
			assert.equal(pre.statusCode, 204, url);
			assert.equal(pre.headers["access-control-allow-origin"], "*");
			assert.equal(pre.headers["access-control-allow-methods"], methods);
			assert.match(String(pre.headers["access-control-allow-headers"]), /authorization/);
		}
		const refused = await t.app.inject({
			method: "GET",
			url: "/oidc/userinfo",
			headers: { origin: SERVICE_A },
			remoteAddress: nextIp(),
		});
		assert.equal(refused.headers["access-control-allow-origin"], "*", "the refusal is readable too");
	});

	test("userinfo without a valid token is 401 invalid_token with WWW-Authenticate", async () => {
		for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: "Basic abc" }]) {
			const res = await t.app.inject({
				method: "GET",
				url: "/oidc/userinfo",
				headers,
				remoteAddress: nextIp(),
			});
			assert.equal(res.statusCode, 401);
			assert.equal(res.json().error, "invalid_token");
			assert.match(String(res.headers["www-authenticate"]), /^Bearer error="invalid_token"/);
		}
	});

	test("userinfo takes the token as the form field on POST, and refuses it twice", async () => {
		const { code, verifier } = await freshCode();
		const issued = await tokenRequest({
			grant_type: "authorization_code",
			code,
			client_id: SERVICE_A,
			redirect_uri: callback(SERVICE_A),
			code_verifier: verifier,
		});
		const token = issued.json().access_token as string;
		const form = await t.app.inject({
			method: "POST",
			url: "/oidc/userinfo",
			headers: { "content-type": "application/x-www-form-urlencoded" },
			payload: `access_token=${encodeURIComponent(token)}`,
			remoteAddress: nextIp(),
		});
		assert.equal(form.statusCode, 200, form.body);
		assert.ok(form.json().sub);
		const both = await t.app.inject({
			method: "POST",
			url: "/oidc/userinfo",
			headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Bearer ${token}` },
			payload: `access_token=${encodeURIComponent(token)}`,
			remoteAddress: nextIp(),
		});
		assert.equal(both.statusCode, 400);
		assert.equal(both.json().error, "invalid_request");
		// An hour later the token is gone.
		const real = t.app.clock.now;
		t.app.clock.now = () => real() + 3600_000;
		try {
			const late = await t.app.inject({
				method: "GET",
				url: "/oidc/userinfo",
				headers: { authorization: `Bearer ${token}` },
				remoteAddress: nextIp(),
			});
			assert.equal(late.statusCode, 401);
		} finally {
			t.app.clock.now = real;
		}
	});
});

describe("the authorize page's refusals", () => {
	test("a client or redirect address that does not check out is shown on the page, never redirected", async () => {
		const cases = [
			authorizeUrl({ client_id: "not an origin" }),
			authorizeUrl({ client_id: "http://example.org" }),
			authorizeUrl({ redirect_uri: "http://127.0.0.1:9/elsewhere" }),
			authorizeUrl({ redirect_uri: `${SERVICE_A}/cb#frag` }),
			authorizeUrl({ redirect_uri: `${callback(SERVICE_A)}#` }),
			`${origin}/oidc/authorize?redirect_uri=${encodeURIComponent(callback(SERVICE_A))}`,
		];
		for (const url of cases) {
			const { res } = await openPage(url);
			assert.equal(res.statusCode, 400, url);
			assert.equal(res.headers.location, undefined);
			assert.match(String(res.headers["content-type"]), /text\/html/);
			assert.match(res.body, /oidc_request_invalid/);
			assert.match(String(res.headers["content-security-policy"]), /script-src 'self'/);
		}
	});

	test("later refusals go back to the service with error, state and iss", async () => {
		const cases: [Record<string, string>, string][] = [
			[{ prompt: "none" }, "login_required"],
			[{ response_type: "token" }, "unsupported_response_type"],
			[{ scope: "profile" }, "invalid_scope"],
			[{ scope: "openid offline_access" }, "invalid_scope"],
			[{ code_challenge_method: "plain" }, "invalid_request"],
			[{ code_challenge: "short" }, "invalid_request"],
			[{ claims: "{not json" }, "invalid_request"],
			[
				{
					claims: JSON.stringify({
						userinfo: { svc_links: { values: Array.from({ length: 21 }, (_, i) => `k${i}`) } },
					}),
				},
				"invalid_request",
			],
			[{ request: "eyJ..." }, "request_not_supported"],
		];
		for (const [params, error] of cases) {
			const { res } = await openPage(authorizeUrl(params));
			assert.equal(res.statusCode, 302, JSON.stringify(params));
			const to = new URL(String(res.headers.location));
			assert.equal(`${to.origin}${to.pathname}`, callback(SERVICE_A));
			assert.equal(to.searchParams.get("error"), error, JSON.stringify(params));
			assert.equal(to.searchParams.get("state"), "st-1");
			assert.equal(to.searchParams.get("iss"), origin);
		}
	});

	test("prompt=none answers login_required before any other fault of the request", async () => {
		const cases: [string, (q: URLSearchParams) => void][] = [
			["no PKCE challenge", (q) => q.delete("code_challenge")],
			["no PKCE method", (q) => q.delete("code_challenge_method")],
			["an unknown scope", (q) => q.set("scope", "openid offline_access")],
			["response_type token", (q) => q.set("response_type", "token")],
			["a request object", (q) => q.set("request", "eyJ...")],
			["bad claims", (q) => q.set("claims", "{not json")],
			["prompt repeated", (q) => q.append("prompt", "login")],
			["prompt=login none", (q) => q.set("prompt", "login none")],
		];
		for (const [name, change] of cases) {
			const url = new URL(authorizeUrl({ prompt: "none" }));
			change(url.searchParams);
			const { res } = await openPage(url.toString());
			assert.equal(res.statusCode, 302, name);
			const to = new URL(String(res.headers.location));
			assert.equal(to.searchParams.get("error"), "login_required", name);
			assert.equal(to.searchParams.get("state"), "st-1", name);
			assert.equal(to.searchParams.get("iss"), origin, name);
		}
		// Before the redirect address checks out, nothing is redirected, prompt=none or not.
		const { res } = await openPage(authorizeUrl({ prompt: "none", client_id: "not an origin" }));
		assert.equal(res.statusCode, 400);
		assert.equal(res.headers.location, undefined);
	});

	test("declining answers access_denied with state and iss", async () => {
		const { redirect } = await consentTo(authorizeUrl({ scope: "openid email" }), { approve: false });
		assert.equal(redirect.searchParams.get("error"), "access_denied");
		assert.equal(redirect.searchParams.get("state"), "st-1");
		assert.equal(redirect.searchParams.get("iss"), origin);
		assert.equal(redirect.searchParams.get("code"), null);
	});

	test("the request takes one sign-in, the ticket one answer; a foreign entry is oidc_link_record_invalid", async () => {
		const url = authorizeUrl({ claims: JSON.stringify({ userinfo: { svc_links: { values: ["iban"] } } }) });
		const { handle } = await openPage(url);
		assert.ok(handle);
		const first = await signInOnPage(handle);
		assert.equal(first.statusCode, 200, first.body);
		const second = await signInOnPage(handle);
		assert.equal(second.statusCode, 400);
		assert.equal(second.json().code, "oidc_request_invalid");

		const { ticket } = first.json() as ConsentData;
		const other = new PasskeyClient(t.app);
		const { token } = await other.signup("grace@example.org");
		const foreign = await createValue(
			t.app,
			{ ...owner, headers: { authorization: `Bearer ${token}` } },
			{ key: "iban", value: "GB00" },
		);
		const refused = await person.post("/oidc/authorize/consent", {
			ticket,
			approve: true,
			scopes: [],
			links: { iban: foreign.id },
		});
		assert.equal(refused.statusCode, 400);
		assert.equal(refused.json().code, "oidc_link_record_invalid");
		const again = await person.post("/oidc/authorize/consent", {
			ticket,
			approve: true,
			scopes: [],
			links: {},
		});
		assert.equal(again.statusCode, 400);
		assert.equal(again.json().code, "oidc_request_invalid", "the ticket was spent");
	});

	test("a bad passkey code spends nothing of the request; an unknown request is oidc_request_invalid", async () => {
		const { handle } = await openPage(authorizeUrl({}));
		assert.ok(handle);
		const bad = await person.post("/oidc/authorize/session", {
			request: handle,
			code: "nope",
			verifier: pkce().verifier,
		});
		assert.equal(bad.statusCode, 400);
		assert.equal(bad.json().code, "passkey_grant_invalid");
		const good = await signInOnPage(handle);
		assert.equal(good.statusCode, 200, good.body);
		const unknown = await person.post("/oidc/authorize/session", {
			request: "x".repeat(43),
			code: "c",
			verifier: pkce().verifier,
		});
		assert.equal(unknown.statusCode, 400);
		assert.equal(unknown.json().code, "oidc_request_invalid");
	});
});

describe("key rotation", () => {
	const cli = (...args: string[]) =>
		new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
			const child = spawn(process.execPath, [...entryArgs("cli/svc.ts"), ...args], {
				env: {
					...process.env,
					DATA_DIR: t.env.config.dataDir,
					DATABASE_URL: t.env.config.databaseUrl,
					DATABASE_SCHEMA: t.env.config.databaseSchema,
					DOMAIN: "localhost",
					LOG_LEVEL: "silent",
				},
				stdio: ["ignore", "pipe", "pipe"],
			});
			let stdout = "";
			let stderr = "";
			child.stdout.on("data", (d: Buffer) => {
				stdout += d.toString();
			});
			child.stderr.on("data", (d: Buffer) => {
				stderr += d.toString();
			});
			child.on("close", (code) => resolve({ code, stdout, stderr }));
		});

	async function idToken(): Promise<string> {
		const { code, verifier } = await freshCode();
		const res = await tokenRequest({
			grant_type: "authorization_code",
			code,
			client_id: SERVICE_A,
			redirect_uri: callback(SERVICE_A),
			code_verifier: verifier,
		});
		assert.equal(res.statusCode, 200, res.body);
		return res.json().id_token as string;
	}
	const jwks = async () => (await t.app.inject({ method: "GET", url: "/oidc/jwks" })).json().keys as JWK[];

	test("svc admin oidc-rotate: the new key signs, tokens of the old one still verify, the newest 20 are kept", async () => {
		const before = await idToken();
		const oldKid = decodeProtectedHeader(before).kid;
		const rotated = await cli("admin", "oidc-rotate");
		assert.equal(rotated.code, 0, rotated.stderr);
		const newKid = rotated.stdout.trim();
		assert.notEqual(newKid, oldKid);
		assert.equal(await cli("admin", "oidc-rotate", "--now").then((r) => r.code), 2);

		const real = t.app.clock.now;
		t.app.clock.now = () => real() + 61_000; // past this node's one-minute copy of the key list
		try {
			const after = await idToken();
			assert.equal(decodeProtectedHeader(after).kid, newKid);
			const set = createLocalJWKSet({ keys: await jwks() });
			for (const token of [before, after]) {
				await jwtVerify(token, set, { issuer: origin, audience: SERVICE_A, currentDate: new Date(real()) });
			}
			for (let i = 0; i < 20; i++)
				await rotateKey(t.app.store.db, OIDC_KEYS, t.app.rootKey, "localhost", real());
		} finally {
			t.app.clock.now = real;
		}
		t.app.clock.now = () => real() + 122_000;
		try {
			const keys = await jwks();
			assert.equal(keys.length, 20);
			assert.ok(!keys.some((k) => k.kid === oldKid || k.kid === newKid), "the oldest are dropped");
			const root = crypto.createPublicKey(t.app.rootKey.publicPem);
			for (const k of keys) {
				const cert = (k as JWK & { svc_certification: { payload: string; signature: string } })
					.svc_certification;
				assert.ok(
					crypto.verify("sha256", Buffer.from(cert.payload), root, Buffer.from(cert.signature, "hex")),
				);
				assert.equal(JSON.parse(Buffer.from(cert.payload, "base64url").toString()).kid, k.kid);
			}
			const latest = await idToken();
			assert.ok(keys.some((k) => k.kid === decodeProtectedHeader(latest).kid));
		} finally {
			t.app.clock.now = real;
		}
	});
});
