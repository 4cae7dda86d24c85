// Vault records: value records, sections, aliases, the identity relation, version and updated, and
// every kind of bad input refused with a code while changing nothing.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type Scenario, scenarios } from "../helpers/scenario.ts";

interface VaultRecord {
	id: string;
	key: string;
	name: string;
	value: string | null;
	version: number;
	updated: string;
	alias: string | null;
	section: string | null;
	hidden: boolean;
}

const BASE = "/api/collections/records/records";
let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const clock = new ManualClock(Date.parse("2026-03-01T10:00:00Z"));

async function call(method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: unknown, who = a) {
	return t.app.inject({
		method,
		url,
		headers: who.headers,
		...(payload === undefined ? {} : { payload: payload as object }),
	});
}
async function create(body: Record<string, unknown>, who = a): Promise<VaultRecord> {
	const res = await call("POST", BASE, body, who);
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as VaultRecord;
}
async function count(): Promise<number> {
	const r = await t.app.store.db
		.selectFrom("records")
		.select((eb) => eb.fn.countAll<number>().as("n"))
		.executeTakeFirstOrThrow();
	return Number(r.n);
}

before(async () => {
	t = await makeApp({ bodyLimit: 64 * 1024 }, { clock });
	a = await buildAccount(t.app);
	b = await buildAccount(t.app);
});
after(() => t.close());

describe("value records", () => {
	test("create answers the record; name defaults to the key", async () => {
		const r = await create({ key: "phone", value: "+49 30 1234" });
		assert.equal(r.name, "phone");
		assert.equal(r.value, "+49 30 1234");
		assert.equal(r.version, 1);
		assert.equal(r.hidden, false);
		assert.equal((r as unknown as { type: string }).type, "value");
		assert.equal(r.updated, "2026-03-01T10:00:00.000Z");
	});

	test("every change bumps version and sets updated to the exact millisecond", async () => {
		const r = await create({ key: "iban", name: "IBAN", value: "DE00" });
		clock.advance(1);
		const first = (await call("PATCH", `${BASE}/${r.id}`, { value: "DE01" })).json() as VaultRecord;
		assert.equal(first.version, 2);
		assert.equal(Date.parse(first.updated) - Date.parse(r.updated), 1);
		clock.advance(5);
		const second = (await call("PATCH", `${BASE}/${r.id}`, { name: "Bank account" })).json() as VaultRecord;
		assert.equal(second.version, 3);
		assert.equal(second.value, "DE01");
		assert.equal(second.name, "Bank account");
	});

	test("a PATCH that changes nothing changes neither version nor updated", async () => {
		const r = await create({ key: "same", value: "v" });
		clock.advance(10);
		const after = (await call("PATCH", `${BASE}/${r.id}`, { value: "v", key: "same" })).json() as VaultRecord;
		assert.equal(after.version, 1);
		assert.equal(after.updated, r.updated);
	});

	test("several records may share a key", async () => {
		await create({ key: "address", value: "Home" });
		await create({ key: "address", value: "Work" });
		const res = await call("GET", `${BASE}?filter=${encodeURIComponent('key = "address"')}`);
		assert.equal((res.json() as { totalItems: number }).totalItems, 2);
	});

	test("delete answers 204 and the record is gone", async () => {
		const r = await create({ key: "gone", value: "x" });
		const res = await call("DELETE", `${BASE}/${r.id}`);
		assert.equal(res.statusCode, 204);
		assert.equal(res.body, "");
		assert.equal((await call("GET", `${BASE}/${r.id}`)).statusCode, 404);
	});
});

describe("sections and aliases", () => {
	test("a record goes into a section of its workspace; deleting the section keeps the record", async () => {
		const s = (
			await call("POST", "/api/collections/sections/records", { key: "bank", name: "Bank" })
		).json() as { id: string };
		const r = await create({ key: "bic", value: "X", section: s.id });
		assert.equal(r.section, s.id);
		assert.equal((await call("DELETE", `/api/collections/sections/records/${s.id}`)).statusCode, 204);
		const after = (await call("GET", `${BASE}/${r.id}`)).json() as VaultRecord;
		assert.equal(after.section, null);
		assert.equal(after.value, "X");
	});

	test("a section of another workspace reads as unknown", async () => {
		const foreign = (
			await call("POST", "/api/collections/sections/records", { key: "x", name: "X" }, b)
		).json() as { id: string };
		const before = await count();
		const res = await call("POST", BASE, { key: "k", value: "v", section: foreign.id });
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().field, "body.section");
		assert.equal(await count(), before);
	});

	test("section keys are unique in a workspace (409), not across workspaces", async () => {
		assert.equal(
			(await call("POST", "/api/collections/sections/records", { key: "dup", name: "A" })).statusCode,
			200,
		);
		const again = await call("POST", "/api/collections/sections/records", { key: "dup", name: "B" });
		assert.equal(again.statusCode, 409);
		assert.equal(again.json().code, "conflict");
		assert.equal(
			(await call("POST", "/api/collections/sections/records", { key: "dup", name: "C" }, b)).statusCode,
			200,
		);
	});

	test("an alias resolves to its target's current value", async () => {
		const target = await create({ key: "email", value: "old@example.org" });
		const alias = await create({ key: "contact-email", alias: target.id });
		assert.equal(alias.value, "old@example.org");
		await call("PATCH", `${BASE}/${target.id}`, { value: "new@example.org" });
		const read = (await call("GET", `${BASE}/${alias.id}`)).json() as VaultRecord;
		assert.equal(read.value, "new@example.org");
		assert.equal(read.alias, target.id);
	});

	test("aliases stay one level deep: no chain, no cycle, no self", async () => {
		const target = await create({ key: "t", value: "1" });
		const alias = await create({ key: "a1", alias: target.id });
		const chain = await call("POST", BASE, { key: "a2", alias: alias.id });
		assert.equal(chain.statusCode, 400);
		assert.match(chain.json().detail, /not itself an alias/);
		const cycle = await call("PATCH", `${BASE}/${target.id}`, { alias: alias.id });
		assert.equal(cycle.statusCode, 400);
		const self = await call("PATCH", `${BASE}/${target.id}`, { alias: target.id });
		assert.equal(self.statusCode, 400);
		assert.equal((await call("GET", `${BASE}/${target.id}`)).json().alias, null);
	});

	test("an alias takes no value of its own", async () => {
		const target = await create({ key: "t2", value: "1" });
		const res = await call("POST", BASE, { key: "a", alias: target.id, value: "mine" });
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().field, "body.value");
	});

	test("clearing the alias leaves a plain record", async () => {
		const target = await create({ key: "t3", value: "target" });
		const alias = await create({ key: "a3", alias: target.id });
		const res = await call("PATCH", `${BASE}/${alias.id}`, { alias: null, value: "own" });
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().value, "own");
	});

	test("a record others alias cannot be deleted until they point elsewhere", async () => {
		const target = await create({ key: "t4", value: "x" });
		const alias = await create({ key: "a4", alias: target.id });
		const res = await call("DELETE", `${BASE}/${target.id}`);
		assert.equal(res.statusCode, 409);
		assert.equal((await call("GET", `${BASE}/${target.id}`)).statusCode, 200);
		await call("DELETE", `${BASE}/${alias.id}`);
		assert.equal((await call("DELETE", `${BASE}/${target.id}`)).statusCode, 204);
	});

	test("an alias to another workspace's record reads as unknown", async () => {
		const foreign = await create({ key: "f", value: "bob" }, b);
		const res = await call("POST", BASE, { key: "a", alias: foreign.id });
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().field, "body.alias");
		assert.doesNotMatch(res.body, /bob/);
	});
});

describe("identity relation", () => {
	test("an identity that is not the workspace's is refused naming identity", async () => {
		const before = await count();
		const res = await call("POST", BASE, { key: "k", value: "v", identity: newId() });
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().code, "validation_failed");
		assert.equal(res.json().field, "body.identity");
		assert.equal(await count(), before);
	});

	test("null and empty identity mean none", async () => {
		const r = await create({ key: "no-identity", value: "v", identity: null });
		const res = await call("PATCH", `${BASE}/${r.id}`, { identity: "" });
		assert.equal(res.statusCode, 200);
		assert.equal(res.json().identity, null);
	});
});

describe("bad input is refused and changes nothing", () => {
	let existing: VaultRecord;
	before(async () => {
		existing = await create({ key: "keep", value: "unchanged" });
	});
	const json = (name: string, body: unknown, status: number, code: string, field?: string): Scenario => ({
		name,
		method: "POST",
		url: BASE,
		headers: () => a.headers,
		body,
		status,
		code,
		...(field ? { check: (res) => assert.equal((res.json() as { field: string }).field, field) } : {}),
	});
	const raw = (
		name: string,
		rawBody: string,
		contentType: string,
		status: number,
		code: string,
	): Scenario => ({
		name,
		method: "POST",
		url: BASE,
		headers: () => a.headers,
		rawBody,
		contentType,
		status,
		code,
	});
	scenarios(
		() => t.app,
		[
			raw("malformed JSON", '{"key": "x", ', "application/json", 400, "invalid_json"),
			raw("JSON that is not an object", '["key"]', "application/json", 400, "validation_failed"),
			// An empty body is no body: refused by the body schema.
			raw("an empty JSON body", "", "application/json", 400, "validation_failed"),
			raw(
				"__proto__ as a member",
				'{"key":"x","__proto__":{"hidden":true}}',
				"application/json",
				400,
				"invalid_json",
			),
			raw("text/plain", "key=x", "text/plain", 415, "unsupported_media_type"),
			raw("form-urlencoded", "key=x", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
			json("missing key", { value: "v" }, 400, "validation_failed", "body.key"),
			json("key with upper case", { key: "IBAN", value: "v" }, 400, "validation_failed", "body.key"),
			json("key too long", { key: "k".repeat(65), value: "v" }, 400, "validation_failed", "body.key"),
			json("key with a space", { key: "a b" }, 400, "validation_failed", "body.key"),
			json("value not a string", { key: "k", value: 5 }, 400, "validation_failed", "body.value"),
			json("hidden as a string", { key: "k", hidden: "true" }, 400, "validation_failed", "body.hidden"),
			json("section as a number", { key: "k", section: 1 }, 400, "validation_failed", "body.section"),
			json("an unknown member", { key: "k", owner: "me" }, 400, "validation_failed", "body.owner"),
			json("a read-only member", { key: "k", version: 9 }, 400, "validation_failed", "body.version"),
			json("a blank name", { key: "k", name: "   " }, 400, "validation_failed", "body.name"),
			json("value too long", { key: "k", value: "x".repeat(100_001) }, 413, "body_too_large"),
			{
				name: "an oversized body",
				method: "POST",
				url: BASE,
				headers: () => a.headers,
				body: { key: "k", value: "x".repeat(200_000) },
				status: 413,
				code: "body_too_large",
			},
			{
				name: "update: wrong type",
				method: "PATCH",
				url: () => `${BASE}/${existing.id}`,
				headers: () => a.headers,
				body: { value: ["a"] },
				status: 400,
				code: "validation_failed",
			},
			{
				name: "update: malformed JSON",
				method: "PATCH",
				url: () => `${BASE}/${existing.id}`,
				headers: () => a.headers,
				rawBody: "{value:",
				status: 400,
				code: "invalid_json",
			},
			{
				name: "update: unknown id",
				method: "PATCH",
				url: () => `${BASE}/${newId()}`,
				headers: () => a.headers,
				body: { value: "x" },
				status: 404,
				code: "not_found",
			},
			{
				name: "update: a file part on a value record",
				method: "PATCH",
				url: () => `${BASE}/${existing.id}`,
				headers: () => a.headers,
				rawBody:
					'--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--b--\r\n',
				contentType: "multipart/form-data; boundary=b",
				status: 400,
				code: "validation_failed",
			},
			{
				name: "view: unknown id",
				method: "GET",
				url: () => `${BASE}/${newId()}`,
				headers: () => a.headers,
				status: 404,
				code: "not_found",
			},
			{
				name: "view: an absurd id",
				method: "GET",
				url: () => `${BASE}/${"x".repeat(500)}`,
				headers: () => a.headers,
				status: 404,
				code: "not_found",
			},
			{
				name: "delete: unknown id",
				method: "DELETE",
				url: () => `${BASE}/${newId()}`,
				headers: () => a.headers,
				status: 404,
				code: "not_found",
			},
			{
				name: "templates: a non-JSON body on a JSON-only collection",
				method: "POST",
				url: "/api/collections/templates/records",
				headers: () => a.headers,
				rawBody: '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nT\r\n--b--\r\n',
				contentType: "multipart/form-data; boundary=b",
				status: 415,
				code: "unsupported_media_type",
			},
		],
	);
	test("after all of it the record is unchanged", async () => {
		const r = (await call("GET", `${BASE}/${existing.id}`)).json() as VaultRecord;
		assert.equal(r.value, "unchanged");
		assert.equal(r.version, 1);
		const rows = await t.app.store.db
			.selectFrom("records")
			.select("key")
			.where("workspace", "=", a.workspaceId)
			.execute();
		assert.ok(!rows.some((row) => row.key === "k"), "no refused create left a row");
	});
});
