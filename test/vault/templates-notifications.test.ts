// Templates (TemplateItem lists), notifications (raised by the server, marked read by the owner)
// and the read-only passkeys collection.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createNotification } from "../../src/features/notifications/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type Scenario, scenarios } from "../helpers/scenario.ts";

const TEMPLATES = "/api/collections/templates/records";
const NOTES = "/api/collections/notifications/records";

let t: TestApp;
let a: TestAccount;
before(async () => {
	t = await makeApp();
	a = await buildAccount(t.app);
});
after(() => t.close());

const item = (key: string, extra: Record<string, unknown> = {}) => ({
	key,
	label: key.toUpperCase(),
	type: "text",
	required: false,
	...extra,
});

describe("templates", () => {
	test("create and read back every member of TemplateItem", async () => {
		const items = [
			item("name", { required: true }),
			item("email", { type: "email", description: "Where we reach you" }),
			item("passport", { type: "file" }),
		];
		const res = await t.app.inject({
			method: "POST",
			url: TEMPLATES,
			headers: a.headers,
			payload: { name: "Tenant", items },
		});
		assert.equal(res.statusCode, 200, res.body);
		const tpl = res.json();
		assert.deepEqual(tpl.items, items);
		const changed = await t.app.inject({
			method: "PATCH",
			url: `${TEMPLATES}/${tpl.id}`,
			headers: a.headers,
			payload: { items: [item("phone", { type: "phone" })] },
		});
		assert.equal(changed.statusCode, 200);
		assert.deepEqual(changed.json().items, [item("phone", { type: "phone" })]);
		assert.equal(changed.json().name, "Tenant");
	});

	const bad = (name: string, body: unknown, field: string): Scenario => ({
		name,
		method: "POST",
		url: TEMPLATES,
		headers: () => a.headers,
		body,
		status: 400,
		code: "validation_failed",
		check: (res) => assert.equal((res.json() as { field: string }).field, field),
	});
	describe("refused", () => {
		scenarios(
			() => t.app,
			[
				bad("a repeated key", { name: "T", items: [item("a"), item("a")] }, "body.items.1.key"),
				bad("an unknown type", { name: "T", items: [item("a", { type: "color" })] }, "body.items.0.type"),
				bad("a key outside [a-z0-9_-]", { name: "T", items: [item("A b")] }, "body.items.0.key"),
				bad(
					"required as a string",
					{ name: "T", items: [item("a", { required: "yes" })] },
					"body.items.0.required",
				),
				bad(
					"a missing label",
					{ name: "T", items: [{ key: "a", type: "text", required: true }] },
					"body.items.0.label",
				),
				bad(
					"an unknown member of an item",
					{ name: "T", items: [item("a", { hint: "x" })] },
					"body.items.0.hint",
				),
				bad("a name over 80 characters", { name: "x".repeat(81), items: [] }, "body.name"),
				bad("a blank name", { name: "   ", items: [] }, "body.name"),
				bad(
					"more than 100 items",
					{ name: "T", items: Array.from({ length: 101 }, (_, i) => item(`k${i}`)) },
					"body.items",
				),
				bad("items not an array", { name: "T", items: {} }, "body.items"),
			],
		);
	});
});

describe("notifications", () => {
	let mine: string;
	let accountLevel: string;
	let elsewhere: string;
	before(async () => {
		const now = t.app.clock.now();
		const db = t.app.store.db;
		mine = await createNotification(
			db,
			{
				account: a.accountId,
				workspace: a.workspaceId,
				kind: "callback_failed",
				title: "Callback failed",
				body: "timeout",
				data: { requestId: "r1", reason: "timeout" },
			},
			now,
		);
		accountLevel = await createNotification(
			db,
			{ account: a.accountId, workspace: null, kind: "passkey_added", title: "New passkey" },
			now + 1,
		);
		const other = await t.app.inject({
			method: "POST",
			url: "/api/collections/workspaces/records",
			headers: a.headers,
			payload: { name: "Other" },
		});
		elsewhere = await createNotification(
			db,
			{ account: a.accountId, workspace: other.json().id, kind: "x", title: "Elsewhere" },
			now + 2,
		);
	});

	test("the owner sees those about the active workspace and the account", async () => {
		const res = await t.app.inject({ method: "GET", url: NOTES, headers: a.headers });
		const items = res.json().items as {
			id: string;
			kind: string;
			data: unknown;
			read: boolean;
			workspace: string | null;
		}[];
		assert.deepEqual(
			items.map((n) => n.id),
			[accountLevel, mine],
		);
		assert.deepEqual(items[1]?.data, { requestId: "r1", reason: "timeout" });
		assert.equal(items[1]?.read, false);
		assert.equal(items[0]?.workspace, null);
		assert.ok(!items.some((n) => n.id === elsewhere));
	});

	test("PATCH {read: true} marks one read; the filter finds the unread", async () => {
		const res = await t.app.inject({
			method: "PATCH",
			url: `${NOTES}/${mine}`,
			headers: a.headers,
			payload: { read: true },
		});
		assert.equal(res.statusCode, 200);
		assert.equal(res.json().read, true);
		const unread = await t.app.inject({
			method: "GET",
			url: `${NOTES}?filter=${encodeURIComponent("read = false")}`,
			headers: a.headers,
		});
		assert.deepEqual(
			unread.json().items.map((n: { id: string }) => n.id),
			[accountLevel],
		);
	});

	test("only `read` can change", async () => {
		for (const payload of [{ read: "yes" }, { title: "x" }, {}]) {
			const res = await t.app.inject({
				method: "PATCH",
				url: `${NOTES}/${mine}`,
				headers: a.headers,
				payload,
			});
			assert.equal(res.statusCode, 400, JSON.stringify(payload));
		}
	});

	test("DELETE dismisses one", async () => {
		assert.equal(
			(await t.app.inject({ method: "DELETE", url: `${NOTES}/${accountLevel}`, headers: a.headers }))
				.statusCode,
			204,
		);
		assert.equal(
			(await t.app.inject({ method: "GET", url: `${NOTES}/${accountLevel}`, headers: a.headers })).statusCode,
			404,
		);
	});
});

describe("passkeys", () => {
	test("lists the caller's own passkeys with name, created and last used only", async () => {
		const now = t.app.clock.now();
		const rows = [
			{ id: newId(), name: "Laptop", last_used: now + 5 },
			{ id: newId(), name: "Phone", last_used: null },
		];
		for (const row of rows) {
			await t.app.store.db
				.insertInto("passkeys")
				.values({
					...row,
					account: a.accountId,
					credential_id: `cred-${row.id}`,
					public_key: "pQECAyYgASFYIKEY",
					counter: 3,
					transports: '["internal"]',
					device_type: "multiDevice",
					backed_up: 1,
					created: now,
					updated: now,
				})
				.execute();
		}
		const res = await t.app.inject({
			method: "GET",
			url: "/api/collections/passkeys/records?sort=-lastUsed",
			headers: a.headers,
		});
		assert.equal(res.statusCode, 200);
		const items = res.json().items as Record<string, unknown>[];
		assert.deepEqual(
			items.map((p) => p.name),
			["Laptop", "Phone"],
		);
		for (const p of items) assert.deepEqual(Object.keys(p).sort(), ["created", "id", "lastUsed", "name"]);
		assert.doesNotMatch(res.body, /cred-|pQECAyYgASFYIKEY|internal|multiDevice/);
		const one = await t.app.inject({
			method: "GET",
			url: `/api/collections/passkeys/records/${rows[1]?.id}`,
			headers: a.headers,
		});
		assert.deepEqual(Object.keys(one.json()).sort(), ["created", "id", "lastUsed", "name"]);
		const unused = await t.app.inject({
			method: "GET",
			url: `/api/collections/passkeys/records?filter=${encodeURIComponent("lastUsed = null")}`,
			headers: a.headers,
		});
		assert.deepEqual(
			unused.json().items.map((p: { name: string }) => p.name),
			["Phone"],
		);
	});

	test("neither renamed nor removed here", async () => {
		const list = await t.app.inject({
			method: "GET",
			url: "/api/collections/passkeys/records",
			headers: a.headers,
		});
		const id = list.json().items[0].id as string;
		const patch = await t.app.inject({
			method: "PATCH",
			url: `/api/collections/passkeys/records/${id}`,
			headers: a.headers,
			payload: { name: "x" },
		});
		assert.equal(patch.statusCode, 405);
		const del = await t.app.inject({
			method: "DELETE",
			url: `/api/collections/passkeys/records/${id}`,
			headers: a.headers,
		});
		assert.equal(del.statusCode, 405);
		assert.match(del.json().detail, /DELETE \/api\/passkeys\/\{id\}/);
		assert.equal(del.headers.allow, "GET");
	});
});
