// The `fields` parameter: the top-level members a list item, a view, a create and an update answer
// with; `*` and an empty value mean every member. Names outside the record schema (a write-only
// password, a nested path, a PocketBase modifier) are refused before anything is written, and a pick
// never carries more than the record already served (an API key still sees no share slug).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { App } from "../../src/app.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { type Scenario, scenarios } from "../helpers/scenario.ts";

const RECORDS = "/api/collections/records/records";
const LINKS = "/api/collections/links/records";

let t: TestApp;
let a: TestAccount;
let valueId: string;
let fileId: string;
let linkId: string;
const app = (): App => t.app;

const keysOf = (body: unknown) => Object.keys(body as object).sort();

async function count(): Promise<number> {
	const res = await t.app.inject({ url: RECORDS, headers: a.headers });
	return (res.json() as { totalItems: number }).totalItems;
}

before(async () => {
	t = await makeApp();
	a = await buildAccount(t.app);
	const value = await t.app.inject({
		method: "POST",
		url: RECORDS,
		headers: a.headers,
		payload: { key: "iban", name: "Bank", value: "DE00 1234" },
	});
	valueId = value.json().id;
	const form = new FormData();
	form.append("key", "passport");
	form.append("file", new Blob([new Uint8Array(Buffer.from("%PDF-1.4 passport"))]), "passport.pdf");
	const file = await t.app.inject({ method: "POST", url: RECORDS, headers: a.headers, payload: form });
	fileId = file.json().id;
	const link = await t.app.inject({
		method: "POST",
		url: LINKS,
		headers: a.headers,
		payload: { label: "Flat", records: [valueId], password: "hunter22" },
	});
	assert.equal(link.statusCode, 200, link.body);
	linkId = link.json().id;
});
after(() => t.close());

describe("fields picks members", () => {
	test("list: each item carries the named members; the envelope stays whole", async () => {
		const res = await t.app.inject({ url: `${RECORDS}?fields=id,key&sort=key`, headers: a.headers });
		assert.equal(res.statusCode, 200, res.body);
		// A picked answer is JSON as a whole one is (it once went out with no Content-Type).
		assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
		const page = res.json();
		assert.deepEqual(keysOf(page), ["items", "page", "perPage", "totalItems", "totalPages"]);
		assert.equal(page.totalItems, 2);
		assert.deepEqual(page.items, [
			{ id: valueId, key: "iban" },
			{ id: fileId, key: "passport" },
		]);
	});

	test("spaces, empty names and repeats are forgiven", async () => {
		const res = await t.app.inject({
			url: `${RECORDS}/${valueId}?fields=${encodeURIComponent(" value , ,name,value")}`,
			headers: a.headers,
		});
		assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
		assert.deepEqual(res.json(), { value: "DE00 1234", name: "Bank" });
	});

	test("`*`, `*` beside names and an empty value give every member", async () => {
		const whole = (await t.app.inject({ url: `${RECORDS}/${valueId}`, headers: a.headers })).json();
		assert.ok(keysOf(whole).length > 10);
		for (const fields of ["*", "id,*", "", ","]) {
			const res = await t.app.inject({
				url: `${RECORDS}/${valueId}?fields=${encodeURIComponent(fields)}`,
				headers: a.headers,
			});
			assert.deepEqual(res.json(), whole, `fields=${fields}`);
		}
	});

	test("view: a nested member comes whole", async () => {
		const res = await t.app.inject({ url: `${RECORDS}/${fileId}?fields=file,type`, headers: a.headers });
		const body = res.json();
		assert.equal(body.type, "file");
		assert.deepEqual(keysOf(body.file), ["name", "sha256", "size", "type"]);
		assert.equal(body.file.name, "passport.pdf");
	});

	test("create (JSON and multipart) and update answer the pick; the record is whole", async () => {
		const created = await t.app.inject({
			method: "POST",
			url: `${RECORDS}?fields=id,version`,
			headers: a.headers,
			payload: { key: "email", value: "a@example.org" },
		});
		assert.equal(created.statusCode, 200, created.body);
		assert.deepEqual(keysOf(created.json()), ["id", "version"]);
		const id = created.json().id;
		const stored = (await t.app.inject({ url: `${RECORDS}/${id}`, headers: a.headers })).json();
		assert.equal(stored.value, "a@example.org");

		const updated = await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${id}?fields=version,value`,
			headers: a.headers,
			payload: { value: "b@example.org" },
		});
		assert.deepEqual(updated.json(), { version: 2, value: "b@example.org" });

		const form = new FormData();
		form.append("key", "photo");
		form.append("file", new Blob([new Uint8Array(Buffer.from("%PDF-1.4 photo"))]), "photo.pdf");
		const uploaded = await t.app.inject({
			method: "POST",
			url: `${RECORDS}?fields=file`,
			headers: a.headers,
			payload: form,
		});
		assert.equal(uploaded.statusCode, 200, uploaded.body);
		assert.deepEqual(keysOf(uploaded.json()), ["file"]);
		assert.equal(uploaded.json().file.name, "photo.pdf");
	});

	test("an API key made with fields still gets its token header", async () => {
		const res = await t.app.inject({
			method: "POST",
			url: "/api/collections/apiKeys/records?fields=name",
			headers: a.headers,
			payload: { name: "tool", permissions: ["links:read"] },
		});
		assert.equal(res.statusCode, 200, res.body);
		assert.deepEqual(res.json(), { name: "tool" });
		assert.ok(String(res.headers["x-plain-token"]).length > 20);
	});

	test("a pick never reaches past the record: an API key asking for the slug gets null", async () => {
		const key = buildApiKey(t.app, a);
		const res = await t.app.inject({ url: `${LINKS}/${linkId}?fields=slug,label`, headers: key.headers });
		assert.equal(res.statusCode, 200, res.body);
		assert.deepEqual(res.json(), { slug: null, label: "Flat" });
	});
});

describe("fields refused", () => {
	const refused = (name: string, url: () => string, method: Scenario["method"] = "GET", body?: unknown) =>
		({
			name,
			method,
			url,
			headers: () => a.headers,
			...(body === undefined ? {} : { body }),
			status: 400,
			code: "validation_failed",
			notContains: ["hunter22"],
			check: (res) => assert.equal((res.json() as { field: string }).field, "querystring.fields"),
		}) satisfies Scenario;
	scenarios(app, [
		refused("an unknown name", () => `${RECORDS}?fields=id,nope`),
		refused("a write-only member (a share's password)", () => `${LINKS}/${linkId}?fields=password`),
		refused("a nested path (PocketBase's expand)", () => `${RECORDS}?fields=expand.section.name`),
		refused("a nested member of a record", () => `${RECORDS}/${fileId}?fields=file.name`),
		refused("a modifier", () => `${RECORDS}/${valueId}?fields=${encodeURIComponent("value:excerpt(3)")}`),
		refused("longer than 1024 characters", () => `${RECORDS}?fields=${"id,".repeat(400)}id`),
		refused("on update", () => `${RECORDS}/${valueId}?fields=nope`, "PATCH", { value: "changed" }),
		{
			name: "requires authentication first",
			method: "GET",
			url: `${RECORDS}?fields=nope`,
			status: 401,
			code: "not_authenticated",
		},
	]);

	test("a create refused for its fields makes nothing", async () => {
		const before = await count();
		const res = await t.app.inject({
			method: "POST",
			url: `${RECORDS}?fields=nope`,
			headers: a.headers,
			payload: { key: "x", value: "y" },
		});
		assert.equal(res.statusCode, 400);
		assert.equal(await count(), before);
		const kept = (await t.app.inject({ url: `${RECORDS}/${valueId}`, headers: a.headers })).json();
		assert.equal(kept.value, "DE00 1234", "the refused update changed nothing");
	});
});
