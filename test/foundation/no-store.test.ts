// Secrets are never kept by a cache (issue 35.8): every answer to a request carrying a credential
// (session, API key, connection token, even a wrong one) and every answer of a route handing out a
// secret (session token, sign-in code, ceremony, grant or share values, one-time download tokens),
// refusals included, is `Cache-Control: no-store`, unless the route chose its own (a share's file and
// archive: `private, no-store`); public reads keep the caching they have by design (docs/api.md
// "Caching").
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { randomToken, sha256Hex } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { createLink, createValue, nextIp, resolveLink, uploadFile } from "../shares/helpers.ts";

let t: TestApp;
let owner: TestAccount;
let key: Record<string, string>;
/** A share granting a value and a file, so its resolve hands out values and one-time tokens. */
let slug: string;
let fileId: string;
/** The same share handed out as a grant (`grant_tokens`), as another server would hold it. */
let grant: { id: string; token: string };
/** A share behind a password, for the resolve's refusal. */
let locked: string;

before(async () => {
	t = await makeApp();
	owner = await buildAccount(t.app);
	key = buildApiKey(t.app, owner).headers;
	const record = await createValue(t.app, owner, { key: "email", value: "ann@example.org" });
	fileId = (
		await uploadFile(
			t.app,
			owner,
			{ key: "lease", name: "Lease" },
			{ bytes: Buffer.from("Lease, flat 3.\n"), name: "lease.txt" },
		)
	).id;
	const link = await createLink(t.app, owner, { label: "Card", records: [record.id, fileId] });
	slug = link.slug;
	const token = randomToken();
	const now = t.app.clock.now();
	await t.app.store.db
		.insertInto("grant_tokens")
		.values({
			link: link.id,
			token_hash: sha256Hex(token),
			keys: JSON.stringify({ email: record.id, lease: fileId }),
			peer: null,
			request_slug: null,
			created: now,
			updated: now,
		})
		.execute();
	grant = { id: link.id, token };
	locked = (
		await createLink(t.app, owner, { label: "Locked", records: [record.id], password: "open sesame" })
	).slug;
});
after(() => t.close());

/** A resolve of the share, for the one-time tokens it hands out (each row spends its own). */
async function resolved(): Promise<{ downloadToken: string; archiveToken: string }> {
	const res = await resolveLink(t.app, slug);
	assert.equal(res.statusCode, 200, res.body);
	const body = res.json() as { records: { id: string; downloadToken?: string }[]; archiveToken?: string };
	const downloadToken = body.records.find((r) => r.id === fileId)?.downloadToken;
	assert.ok(downloadToken && body.archiveToken, res.body);
	return { downloadToken, archiveToken: body.archiveToken };
}

type Method = "GET" | "POST";
interface Row {
	name: string;
	method: Method;
	/** `{slug}` is the share's; a function for an address holding a one-time token. */
	url: string | (() => Promise<string>);
	headers?: () => Record<string, string>;
	payload?: object | (() => object);
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
	{
		name: "a grant's file (a one-time download token)",
		method: "POST",
		url: "/api/grants/files",
		payload: () => ({ ...grant, key: "lease" }),
		status: 200,
		cache: "no-store",
	},
	{
		name: "a grant's file, a wrong token (refusal)",
		method: "POST",
		url: "/api/grants/files",
		payload: () => ({ id: grant.id, token: "nope", key: "lease" }),
		status: 404,
		cache: "no-store",
	},
	// The share's public API: the probe says which gates; the resolve carries the values and
	// one-time tokens (a file's downloadToken, the archiveToken), its refusals too; the file and the
	// archive those tokens open are the share's bytes, once.
	{ name: "share probe", method: "GET", url: "/api/public/links/{slug}", status: 200, cache: "no-store" },
	{
		name: "share resolve (values and one-time tokens)",
		method: "POST",
		url: "/api/public/links/{slug}",
		status: 200,
		cache: "no-store",
	},
	{
		name: "share resolve, a wrong password (refusal)",
		method: "POST",
		url: "/api/public/links/{locked}",
		payload: { password: "wrong" },
		status: 401,
		cache: "no-store",
	},
	{
		name: "share file, by its download token",
		method: "GET",
		url: async () => `/api/public/links/${slug}/files/${fileId}?dl=${(await resolved()).downloadToken}`,
		status: 200,
		cache: "private, no-store",
	},
	{
		name: "share archive, by its archive token",
		method: "GET",
		url: async () => `/api/public/links/${slug}/archive?dl=${(await resolved()).archiveToken}`,
		status: 200,
		cache: "private, no-store",
	},
	// Public reads keep their own caching.
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
			const url = typeof row.url === "string" ? row.url : await row.url();
			const payload = typeof row.payload === "function" ? row.payload() : row.payload;
			const res = await t.app.inject({
				method: row.method,
				url: url.replace("{slug}", slug).replace("{locked}", locked),
				remoteAddress: nextIp(),
				headers: row.headers?.() ?? {},
				...(payload ? { payload } : {}),
			});
			assert.equal(res.statusCode, row.status, res.body);
			assert.equal(
				res.headers["cache-control"],
				row.cache,
				`${row.method} ${url.split("?")[0]} answered Cache-Control: ${res.headers["cache-control"] ?? "(none)"}`,
			);
		});
	}
});
