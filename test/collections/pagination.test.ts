// Pages and sorting: edges of page and perPage, stable pages when rows share a timestamp, sorting
// on several fields, and the bounds of both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type Scenario, scenarios } from "../helpers/scenario.ts";

interface Page {
	page: number;
	perPage: number;
	totalItems: number;
	totalPages: number;
	items: { id: string; key: string; name: string; hidden: boolean; ordering?: number }[];
}

describe("pagination and sort", () => {
	let t: TestApp;
	let a: TestAccount;
	// Frozen: every record below shares one creation millisecond, so order rests on the tie-breaker.
	const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
	const TOTAL = 45;

	const list = async (query: string): Promise<Page> => {
		const res = await t.app.inject({
			method: "GET",
			url: `/api/collections/records/records?${query}`,
			headers: a.headers,
		});
		assert.equal(res.statusCode, 200, res.body);
		return res.json() as Page;
	};

	before(async () => {
		t = await makeApp({}, { clock });
		a = await buildAccount(t.app);
		for (let i = 0; i < TOTAL; i++) {
			const res = await t.app.inject({
				method: "POST",
				url: "/api/collections/records/records",
				headers: a.headers,
				// Names repeat (n0..n4) so a two-field sort has ties to break.
				payload: {
					key: `k${String(i).padStart(2, "0")}`,
					name: `n${i % 5}`,
					value: String(i),
					hidden: i % 2 === 0,
				},
			});
			assert.equal(res.statusCode, 200, res.body);
		}
	});
	after(() => t.close());

	test("defaults: page 1, 30 per page, newest first", async () => {
		const p = await list("");
		assert.equal(p.page, 1);
		assert.equal(p.perPage, 30);
		assert.equal(p.totalItems, TOTAL);
		assert.equal(p.totalPages, 2);
		assert.equal(p.items.length, 30);
	});

	test("the last page is partial and a page past the end is empty", async () => {
		const last = await list("perPage=20&page=3");
		assert.equal(last.items.length, 5);
		assert.equal(last.totalPages, 3);
		const past = await list("perPage=20&page=4");
		assert.deepEqual(past.items, []);
		assert.equal(past.totalItems, TOTAL);
		assert.equal(past.page, 4);
	});

	test("perPage 1 and perPage 1000 (PocketBase's largest page) are the bounds", async () => {
		const one = await list("perPage=1&page=45");
		assert.equal(one.items.length, 1);
		assert.equal(one.totalPages, 45);
		const all = await list("perPage=1000");
		assert.equal(all.items.length, TOTAL);
		assert.equal(all.perPage, 1000);
		assert.equal(all.totalPages, 1);
	});

	test("pages are stable and complete when every row shares a timestamp", async () => {
		const seen: string[] = [];
		for (let page = 1; page <= 5; page++)
			seen.push(...(await list(`perPage=10&page=${page}`)).items.map((i) => i.key));
		assert.equal(seen.length, TOTAL);
		assert.equal(new Set(seen).size, TOTAL, "no row twice, none missing");
		const again = (await list("perPage=500")).items.map((i) => i.key);
		assert.deepEqual(seen, again);
	});

	test("skipTotal answers -1 for the totals", async () => {
		const p = await list("perPage=10&skipTotal=true");
		assert.equal(p.totalItems, -1);
		assert.equal(p.totalPages, -1);
		assert.equal(p.items.length, 10);
	});

	test("skipTotal takes 1 and 0 as common clients send them", async () => {
		const skipped = await list("perPage=10&skipTotal=1");
		assert.equal(skipped.totalItems, -1);
		assert.equal(skipped.items.length, 10);
		for (const counted of ["skipTotal=0", "skipTotal=false", ""]) {
			assert.equal((await list(`perPage=10&${counted}`)).totalItems, TOTAL, counted);
		}
	});

	test("sort on several fields", async () => {
		const items = (await list("perPage=500&sort=-hidden,name,-key")).items;
		const expected = [...items].sort((x, y) => {
			if (x.hidden !== y.hidden) return x.hidden ? -1 : 1;
			if (x.name !== y.name) return x.name < y.name ? -1 : 1;
			return x.key < y.key ? 1 : -1;
		});
		assert.deepEqual(
			items.map((i) => i.key),
			expected.map((i) => i.key),
		);
		assert.equal(items[0]?.hidden, true);
		assert.equal(items[0]?.name, "n0");
	});

	test("ascending with + and descending with -", async () => {
		const up = (await list("perPage=3&sort=%2Bkey")).items.map((i) => i.key);
		const down = (await list("perPage=3&sort=-key")).items.map((i) => i.key);
		assert.deepEqual(up, ["k00", "k01", "k02"]);
		assert.deepEqual(down, ["k44", "k43", "k42"]);
	});

	test("filter, sort and pages together", async () => {
		const p = await list(`perPage=4&page=2&sort=key&filter=${encodeURIComponent("hidden = true")}`);
		assert.equal(p.totalItems, 23);
		assert.equal(p.totalPages, 6);
		assert.deepEqual(
			p.items.map((i) => i.key),
			["k08", "k10", "k12", "k14"],
		);
	});

	describe("refused", () => {
		const bad = (name: string, query: string, code: string, field: string): Scenario => ({
			name,
			method: "GET",
			url: `/api/collections/records/records?${query}`,
			headers: () => a.headers,
			status: 400,
			code,
			check: (res) => assert.equal((res.json() as { field: string }).field, field),
		});
		scenarios(
			() => t.app,
			[
				bad("perPage 0", "perPage=0", "validation_failed", "querystring.perPage"),
				bad("perPage 1001", "perPage=1001", "validation_failed", "querystring.perPage"),
				bad("page 0", "page=0", "validation_failed", "querystring.page"),
				bad("page -1", "page=-1", "validation_failed", "querystring.page"),
				bad("page not a number", "page=abc", "validation_failed", "querystring.page"),
				bad("page too far", "page=100001", "validation_failed", "querystring.page"),
				bad("perPage a decimal", "perPage=2.5", "validation_failed", "querystring.perPage"),
				bad(
					"skipTotal neither a word nor a digit",
					"skipTotal=yes",
					"validation_failed",
					"querystring.skipTotal",
				),
				bad("skipTotal 2", "skipTotal=2", "validation_failed", "querystring.skipTotal"),
				bad("sort on an unknown field", "sort=nope", "sort_invalid", "querystring.sort"),
				bad("sort on a field that does not sort", "sort=value", "sort_invalid", "querystring.sort"),
				bad("the same field twice", "sort=key,-key", "sort_invalid", "querystring.sort"),
				bad("an empty sort term", "sort=key,,name", "sort_invalid", "querystring.sort"),
				bad(
					"more than five sort fields",
					"sort=key,name,hidden,created,updated,version",
					"sort_invalid",
					"querystring.sort",
				),
			],
		);
	});

	test("other collections sort by their own default: sections by ordering", async () => {
		for (const [key, ordering] of [
			["c", 3],
			["a", 1],
			["b", 2],
		] as const) {
			const res = await t.app.inject({
				method: "POST",
				url: "/api/collections/sections/records",
				headers: a.headers,
				payload: { key, name: key.toUpperCase(), ordering },
			});
			assert.equal(res.statusCode, 200, res.body);
		}
		const res = await t.app.inject({
			method: "GET",
			url: "/api/collections/sections/records",
			headers: a.headers,
		});
		assert.deepEqual(
			(res.json() as Page).items.map((i) => i.ordering),
			[1, 2, 3],
		);
	});
});
