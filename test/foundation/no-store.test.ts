// Secrets are never kept by a cache (issue 35.8): every answer to a request carrying a credential
// (session, API key, connection token, even a wrong one) and every answer of a route handing out a
// secret (session token, sign-in code, ceremony, grant values) is `Cache-Control: no-store`, unless
// the route chose its own; public reads keep the caching they have by design (docs/api.md "Caching").
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { createLink, createValue, nextIp } from "../shares/helpers.ts";

let t: TestApp;
let owner: TestAccount;
let key: Record<string, string>;
let slug: string;

before(async () => {
	t = await makeApp();
	owner = await buildAccount(t.app);
	key = buildApiKey(t.app, owner).headers;
	const record = await createValue(t.app, owner, { key: "email", value: "ann@example.org" });
	slug = (await createLink(t.app, owner, { label: "Card", records: [record.id] })).slug;
});
after(() => t.close());

type Method = "GET" | "POST";
interface Row {
	name: string;
	method: Method;
	url: string;
	headers?: () => Record<string, string>;
	payload?: object;
	status: number;
	cache: string | undefined;
}

const passkeys = () => new PasskeyClient(t.app).headers();

const ROWS: Row[] = [
	// Authenticated answers: no-store, whatever they carry.
	{
		name: "me (session)",
		method: "GET",
		url: "/api/auth/me",
		headers: () => owner.headers,
		status: 200,
		cache: "no-store",
	},
	{
		name: "share list with addresses (session)",
		method: "GET",
		url: "/api/collections/links/records",
		headers: () => owner.headers,
		status: 200,
		cache: "no-store",
	},
	{
		name: "share list (API key)",
		method: "GET",
		url: "/api/collections/links/records",
		headers: () => key,
		status: 200,
		cache: "no-store",
	},
	{
		name: "file token",
		method: "POST",
		url: "/api/files/token",
		headers: () => owner.headers,
		status: 200,
		cache: "no-store",
	},
	{
		name: "passkey ticket",
		method: "POST",
		url: "/api/passkeys/tickets",
		headers: () => owner.headers,
		status: 200,
		cache: "no-store",
	},
	{
		name: "a wrong bearer token",
		method: "GET",
		url: "/api/auth/me",
		headers: () => ({ authorization: "Bearer nope" }),
		status: 401,
		cache: "no-store",
	},
	{
		name: "a wrong connection token",
		method: "GET",
		url: "/api/connection",
		headers: () => ({ "x-svc-connection": "nope" }),
		status: 401,
		cache: "no-store",
	},
	// Unauthenticated answers that carry a secret: no-store, refusals included.
	{
		name: "passkey login begin (ceremony)",
		method: "POST",
		url: "/api/passkeys/login/begin",
		headers: passkeys,
		payload: { challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" },
		status: 200,
		cache: "no-store",
	},
	{
		name: "passkey token redemption",
		method: "POST",
		url: "/api/passkeys/token",
		headers: passkeys,
		payload: { code: "x".repeat(43), verifier: "y".repeat(43) },
		status: 400,
		cache: "no-store",
	},
	{
		name: "bulk grant read",
		method: "POST",
		url: "/api/grants/resolve",
		payload: { grants: [{ id: "nope", token: "nope" }] },
		status: 200,
		cache: "no-store",
	},
	// Public reads keep their own caching.
	{ name: "share probe", method: "GET", url: "/api/public/links/{slug}", status: 200, cache: "no-store" },
	{
		name: "share as CSV",
		method: "GET",
		url: "/s/{slug}?format=csv",
		status: 200,
		cache: "private, no-cache",
	},
	{ name: "OIDC keys", method: "GET", url: "/oidc/jwks", status: 200, cache: "public, max-age=300" },
	{ name: "health", method: "GET", url: "/healthz", status: 200, cache: undefined },
];

describe("Cache-Control of authenticated and secret-carrying answers", () => {
	for (const row of ROWS) {
		test(`${row.name}: ${row.cache ?? "no Cache-Control"}`, async () => {
			const res = await t.app.inject({
				method: row.method,
				url: row.url.replace("{slug}", slug),
				remoteAddress: nextIp(),
				headers: row.headers?.() ?? {},
				...(row.payload ? { payload: row.payload } : {}),
			});
			assert.equal(res.statusCode, row.status, res.body);
			assert.equal(res.headers["cache-control"], row.cache);
		});
	}
});
