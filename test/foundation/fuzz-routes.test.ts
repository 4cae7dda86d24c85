// Every route of the OpenAPI document, fed generated bad input on the current dialect (the suite
// runs this file on SQLite and again on PostgreSQL): wrong types, NUL and other control
// characters, lone surrogates, deep nesting, huge and negative numbers, `__proto__` and
// `constructor` members, malformed JSON, bad ids in the path, bad filters and sorts, multipart
// parts the parser would drop; without credentials, with a real session and with a real API key.
// Each request carries at least one poison (test/helpers/fuzz-requests.ts), so the server must
// refuse it (4xx, never 5xx) and change nothing: every row of every table and every blob is
// compared after each route's requests. The seed is fixed, so a failure prints the seed and a shrunk case.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { collections } from "../../src/app.ts";
import { publicOrigin } from "../../src/config.ts";
import { dialect, makeApp, type TestApp } from "../helpers/app.ts";
import { differences, type Snapshot, snapshot, tableNames } from "../helpers/db-snapshot.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type Op, operationsOf, requestArb, type Seeds } from "../helpers/fuzz-requests.ts";
import type { OpenApiDoc } from "../helpers/fuzz-schema.ts";

const SEED = 20261124;
/** Per route and dialect: 80 routes x 22 runs x 2 dialects is about 3,500 requests. */
const RUNS = 22;
/**
 * Columns that move on a request which changes nothing else: an API key's `last_used` is written
 * on use (at most once a minute, src/features/apikeys/service.ts), whatever the request then does.
 * Sessions, passkeys and everything else stay still on a refused request.
 */
const IGNORED = new Set(["api_keys.last_used"]);

let t: TestApp;
let a: TestAccount;
let seeds: Seeds;
let ops: Op[];
let tables: string[];

async function call(method: string, url: string, payload?: unknown, headers = a.headers) {
	const res = await t.app.inject({
		method: method as "POST",
		url,
		headers,
		...(payload ? { payload: payload as string } : {}),
	});
	assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
	return res;
}

before(async () => {
	t = await makeApp();
	a = await buildAccount(t.app, { name: "Fuzz" });
	const C = "/api/collections";
	const permissions = (
		(await call("GET", "/api/permissions")).json() as { permissions: { name: string }[] }
	).permissions
		.map((p) => p.name)
		.filter((n) => !n.startsWith("vault:"));
	const minted = await call("POST", `${C}/apiKeys/records`, { name: "fuzz", permissions });
	const apiKey = String(minted.headers["x-plain-token"]);
	const value = (await call("POST", `${C}/records/records`, { key: "iban", value: "DE00 1234" })).json();
	const form = new FormData();
	form.append("key", "passport");
	form.append("file", new Blob([new Uint8Array(Buffer.from("%PDF-1.4 fuzz"))]), "passport.pdf");
	const file = (await call("POST", `${C}/records/records`, form)).json();
	const section = (await call("POST", `${C}/sections/records`, { key: "docs", name: "Docs" })).json();
	const items = [{ key: "name", label: "Name", type: "text", required: true }];
	const template = (await call("POST", `${C}/templates/records`, { name: "Tenancy", items })).json();
	const link = (
		await call("POST", `${C}/links/records`, { label: "Flat", records: [value.id, file.id] })
	).json();
	const request = (await call("POST", `${C}/requests/records`, { label: "Tenant", items })).json();
	const key = await deviceKey();
	const identity = (
		await call("POST", `${C}/identities/records`, { name: "phone", publicKey: key.publicJwk })
	).json();
	const member = ((await call("GET", `${C}/members/records`)).json() as { items: { id: string }[] }).items[0];

	const byCollection: Record<string, string[]> = {
		workspaces: [a.workspaceId],
		members: member ? [member.id] : [],
		records: [value.id, file.id],
		sections: [section.id],
		templates: [template.id],
		apiKeys: [minted.json().id],
		identities: [identity.id],
		requests: [request.id],
		links: [link.id],
	};
	const params = (op: Op): Record<string, string>[] => {
		const collection = /^\/api\/collections\/(\w+)\/records\/\{id\}$/.exec(op.path)?.[1];
		if (collection) return (byCollection[collection] ?? []).map((id) => ({ id }));
		if (op.path.startsWith("/api/public/links/")) return [{ slug: link.slug, recordId: file.id }];
		if (op.path.startsWith("/api/links/")) return [{ id: link.id }];
		if (op.path.startsWith("/api/public/requests/")) return [{ slug: request.slug }];
		if (op.path.startsWith("/api/requests/")) return [{ id: request.id }];
		if (op.path.startsWith("/api/files/")) return [{ recordId: file.id }];
		if (op.path.startsWith("/api/challenges/")) {
			return [
				{ scope: "link", slug: link.slug },
				{ scope: "request", slug: request.slug },
			];
		}
		if (op.path.startsWith("/api/certificate/")) return [{ id: identity.id }];
		if (op.path.startsWith("/api/identities/")) return [{ fingerprint: identity.fingerprint }];
		return [];
	};
	const origin = publicOrigin(t.app.config);
	const doc = (await call("GET", "/api/openapi.json")).json() as OpenApiDoc;
	seeds = {
		doc,
		pools: { ids: Object.values(byCollection).flat() },
		params,
		credentials: {
			none: {},
			session: a.headers,
			apiKey: { "x-api-key": apiKey },
			bogusBearer: { authorization: "Bearer not-a-session" },
			bogusKey: { "x-api-key": "svc_not_a_key" },
		},
		base: { host: new URL(origin).host, origin },
	};
	ops = operationsOf(doc);
	tables = await tableNames(t.app);
});

after(() => t.close());

let clients = 0;
/** A fresh client address per request, so per-client rate limits never stand between a request and its handler. */
function nextIp(): string {
	clients += 1;
	return `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
}

test(`every route refuses poisoned input and changes nothing (${dialect})`, async (ctx) => {
	assert.ok(ops.length >= 70, `the OpenAPI document lists ${ops.length} operations`);
	let current: Snapshot = await snapshot(t.app, tables, IGNORED);
	const statuses = new Map<number, number>();
	for (const [i, op] of ops.entries()) {
		await ctx.test(`${op.method} ${op.path}`, async () => {
			// Every request of the route, in order, for the blame when the state moved.
			const sent: string[] = [];
			const property = fc.asyncProperty(requestArb(op, seeds), async (req) => {
				const res = await t.app.inject({
					method: req.method as "GET",
					url: req.url,
					headers: req.headers,
					remoteAddress: nextIp(),
					...(req.payload === undefined ? {} : { payload: req.payload }),
				});
				statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
				const where = `${req.method} ${req.url} [${req.poison}] -> ${res.statusCode} ${res.body.slice(0, 300)}`;
				sent.push(where);
				assert.ok(res.statusCode < 500, where);
				assert.ok(res.statusCode >= 400, `a poisoned request was accepted: ${where}`);
			});
			await fc.assert(property, { seed: SEED + i, numRuns: RUNS, includeErrorInReport: true });
			// The state is compared once per route, after all its requests, against the state
			// before them: every request was refused, so none may have changed a row or a blob.
			// (Each table's rows are read whole, which per request was most of this file's time.)
			const now = await snapshot(t.app, tables, IGNORED);
			const changed = differences(current, now);
			current = now;
			assert.deepEqual(changed, [], `the database changed under these requests:\n${sent.join("\n")}`);
		});
	}
	ctx.diagnostic(
		`statuses: ${[...statuses]
			.sort(([x], [y]) => x - y)
			.map(([s, n]) => `${s}x${n}`)
			.join(" ")}`,
	);
	assert.ok((statuses.get(429) ?? 0) === 0, "no request was turned away by a rate limit");
});

/**
 * Integers at the edges of int4 and of JavaScript's safe integers, in every integer and date field
 * of every collection's filter, with every ordering operator. PostgreSQL's `integer` columns
 * answered 500 past 2^31 (SQLite 200): the answer must be the same on both, 200 or 400
 * `filter_invalid`, never a 5xx, and a read changes nothing.
 */
const EDGES = [
	"2147483647",
	"2147483648",
	"-2147483648",
	"-2147483649",
	"4294967296",
	"9007199254740991",
	"-9007199254740991",
	"9007199254740992",
	"-9007199254740992",
	"9223372036854775808",
];
const NUMERIC_OPS = ["=", "!=", ">", ">=", "<", "<="];

test(`integers at 2^31 and 2^53 in every numeric filter are 200 or 400, never 5xx (${dialect})`, async () => {
	const before = await snapshot(t.app, tables, IGNORED);
	let asked = 0;
	const fields: string[] = [];
	for (const { module } of collections) {
		if (!module.access.list) continue;
		const listing = `/api/collections/${module.name}/records`;
		const base = await t.app.inject({
			method: "GET",
			url: listing,
			headers: a.headers,
			remoteAddress: nextIp(),
		});
		for (const [name, field] of Object.entries(module.query)) {
			if (field.filter === false || (field.type !== "integer" && field.type !== "date")) continue;
			fields.push(`${module.name}.${name}`);
			for (const value of EDGES) {
				for (const op of NUMERIC_OPS) {
					for (const filter of [`${name} ${op} ${value}`, `${value} ${op} ${name}`]) {
						const url = `${listing}?filter=${encodeURIComponent(filter)}`;
						const res = await t.app.inject({
							method: "GET",
							url,
							headers: a.headers,
							remoteAddress: nextIp(),
						});
						asked += 1;
						const where = `${url} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
						assert.ok(res.statusCode < 500, where);
						if (res.statusCode !== 200) {
							assert.equal(res.statusCode, 400, where);
							assert.equal(res.json().code, "filter_invalid", where);
						}
						// Within the safe integers the answer is a comparison by value, as SQLite makes it.
						const safe = Number.isSafeInteger(Number(value));
						if (base.statusCode === 200) assert.equal(res.statusCode, safe ? 200 : 400, where);
					}
				}
			}
		}
	}
	for (const named of [
		"records.version",
		"sections.ordering",
		"links.viewCount",
		"links.maxViews",
		"linkReads.view",
	])
		assert.ok(fields.includes(named), `${named} is among the numeric filter fields (${fields.join(", ")})`);
	assert.ok(asked > 0);
	assert.deepEqual(differences(before, await snapshot(t.app, tables, IGNORED)), [], "reads change nothing");
});
