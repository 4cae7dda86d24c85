// Hostile encodings, on the current dialect (the suite runs this file on SQLite and on PostgreSQL):
// - every route that takes a body, sent a compressed bomb (64 MiB of zeros as gzip, deflate and
//   br, a few KiB on the wire) with its Content-Encoding: refused before a byte is read (415
//   `unsupported_media_type`, `Accept-Encoding: identity`), nothing changed, nothing inflated;
// - the addressbook's PROPFIND and REPORT, sent generated XML with deep nesting, entity floods,
//   internal DTDs and `__proto__`/`constructor` element names, on a real share and an unknown one:
//   a 207 or a 4xx, never a 5xx, and no view taken.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import zlib from "node:zlib";
import fc from "fast-check";
import { publicOrigin } from "../../src/config.ts";
import { contactShare, dav, views } from "../formats/helpers.ts";
import { dialect, makeApp, type TestApp } from "../helpers/app.ts";
import { differences, snapshot, tableNames } from "../helpers/db-snapshot.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type Op, operationsOf } from "../helpers/fuzz-requests.ts";
import type { OpenApiDoc } from "../helpers/fuzz-schema.ts";

const SEED = 20261127;
let t: TestApp;
let a: TestAccount;
let slug: string;
let ops: Op[];
let tables: string[];

before(async () => {
	t = await makeApp();
	a = await buildAccount(t.app, { name: "Encodings" });
	slug = (await contactShare(t.app, a)).slug;
	const doc = (await t.app.inject({ url: "/api/openapi.json" })).json() as OpenApiDoc;
	ops = operationsOf(doc).filter((op) => op.json !== undefined || op.multipart !== undefined);
	tables = await tableNames(t.app);
});
after(() => t.close());

let clients = 0;
function nextIp(): string {
	clients += 1;
	return `10.77.${(clients >> 8) & 255}.${clients & 255}`;
}

const ZEROS = Buffer.alloc(64 * 1024 * 1024);
const BOMBS: Record<string, Buffer> = {
	gzip: zlib.gzipSync(ZEROS, { level: 9 }),
	deflate: zlib.deflateSync(ZEROS, { level: 9 }),
	br: zlib.brotliCompressSync(ZEROS),
	"gzip, br": zlib.brotliCompressSync(zlib.gzipSync(ZEROS, { level: 9 })),
};

/** A path with every `{param}` filled: the body is refused before the path's ids are looked up. */
function urlOf(op: Op): string {
	return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "slug" ? slug : "x0000000000000000"));
}

test(`a compressed body is refused on every route that takes one, unread (${dialect})`, async () => {
	assert.ok(ops.length >= 30, `${ops.length} operations take a body`);
	const before = await snapshot(t.app, tables, new Set());
	const statuses = new Map<number, number>();
	for (const op of ops) {
		for (const [coding, bomb] of Object.entries(BOMBS)) {
			const res = await t.app.inject({
				method: op.method as "POST",
				url: urlOf(op),
				headers: {
					...a.headers,
					host: new URL(publicOrigin(t.app.config)).host,
					origin: publicOrigin(t.app.config),
					"content-type": op.json ? "application/json" : "multipart/form-data; boundary=x",
					"content-encoding": coding,
				},
				payload: bomb,
				remoteAddress: nextIp(),
			});
			const where = `${op.method} ${op.path} (${coding}) -> ${res.statusCode} ${res.body.slice(0, 200)}`;
			statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
			assert.ok(res.statusCode < 500, where);
			// A route that refuses the request outright (a read-only addressbook's 405, a rate limit)
			// answers before the body; every other refuses the encoding itself.
			if (res.statusCode !== 405) {
				assert.equal(res.statusCode, 415, where);
				assert.equal(res.json().code, "unsupported_media_type", where);
				assert.equal(res.headers["accept-encoding"], "identity", where);
			}
		}
	}
	assert.deepEqual(differences(before, await snapshot(t.app, tables, new Set())), [], "nothing changed");
	assert.ok((statuses.get(415) ?? 0) >= ops.length * 3, `statuses: ${JSON.stringify([...statuses])}`);
});

test(`identity and an empty body with a Content-Encoding are read as usual (${dialect})`, async () => {
	const created = await t.app.inject({
		method: "POST",
		url: "/api/collections/records/records",
		headers: { ...a.headers, "content-type": "application/json", "content-encoding": "identity" },
		payload: JSON.stringify({ key: "plain", value: "as sent" }),
	});
	assert.equal(created.statusCode, 200, created.body);
	const bodiless = await t.app.inject({
		method: "GET",
		url: "/api/collections/records/records",
		headers: { ...a.headers, "content-encoding": "gzip" },
	});
	assert.equal(bodiless.statusCode, 200, "a GET without a body is not refused for its header");
});

const NAMES = [
	"d:prop",
	"d:propfind",
	"card:addressbook-query",
	"__proto__",
	"constructor",
	"prototype",
	"x:y",
];

/** A propfind or addressbook-query wrapped in `depth` elements, with `refs` entity references and a DTD. */
const xmlArb = fc
	.record({
		report: fc.boolean(),
		depth: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 120, max: 20_000 })),
		refs: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 900, max: 50_000 })),
		name: fc.constantFrom(...NAMES),
		dtd: fc.constantFrom("", '<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'),
		ref: fc.constantFrom("&amp;", "&#13;", "&a;", "&b;", "&#x10FFFF;", "&lt;"),
		real: fc.boolean(),
	})
	.map((x) => {
		const root = x.report ? "card:addressbook-query" : "d:propfind";
		const inner = `<${x.name}>${x.ref.repeat(x.refs)}</${x.name}>`;
		const nested = "<d:prop>".repeat(x.depth) + inner + "</d:prop>".repeat(x.depth);
		const ns = 'xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav" xmlns:x="urn:x"';
		return { ...x, body: `<?xml version="1.0"?>${x.dtd}<${root} ${ns}>${nested}</${root}>` };
	});

test(`addressbook XML: deep nesting, entity floods and prototype names never 5xx (${dialect})`, async () => {
	const seen = new Map<number, number>();
	await fc.assert(
		fc.asyncProperty(xmlArb, async (x) => {
			const url = `/dav/s/${x.real ? slug : "no-such-share"}/`;
			const res = await dav(t.app, x.report ? "REPORT" : "PROPFIND", url, {
				body: x.body,
				headers: { depth: "1" },
			});
			seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
			const where = `${x.report ? "REPORT" : "PROPFIND"} depth ${x.depth} refs ${x.refs} ${x.name} ${x.ref} ${x.dtd ? "dtd" : ""} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
			assert.ok(res.statusCode < 500, where);
			assert.ok(res.statusCode === 207 || (res.statusCode >= 400 && res.statusCode < 500), where);
		}),
		{ seed: SEED, numRuns: 60, includeErrorInReport: true },
	);
	assert.equal(await views(t.app, slug), 0, "an addressbook read takes no view");
	assert.ok((seen.get(207) ?? 0) > 0 && [...seen.keys()].some((s) => s >= 400), JSON.stringify([...seen]));
});
