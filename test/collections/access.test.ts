// Access rules of every collection, applied to list, view, create, update and delete alike:
// guests are refused, another workspace's record is invisible (404, the same answer as a missing
// one), API keys never reach the vault, and scopes are named when missing.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { App } from "../../src/app.ts";
import { createNotification } from "../../src/features/notifications/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { runScenario, scenarios } from "../helpers/scenario.ts";

interface Fixture {
	/** The id of A's record in this collection, made in before(). */
	id: string;
	/** A value that only A's record carries. */
	marker: string;
	update?: unknown;
	create: unknown;
}

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const fx: Record<string, Fixture> = {};
const app = (): App => t.app;

async function post(account: TestAccount, collection: string, body: unknown): Promise<{ id: string }> {
	const res = await t.app.inject({
		method: "POST",
		url: `/api/collections/${collection}/records`,
		headers: account.headers,
		payload: body as object,
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { id: string };
}

before(async () => {
	t = await makeApp();
	a = await buildAccount(t.app, { name: "Alice" });
	b = await buildAccount(t.app, { name: "Bob" });
	const items = [{ key: "email", label: "Email", type: "email", required: true }];
	fx.records = {
		id: (await post(a, "records", { key: "secret", name: "Secret", value: "alice-only-value" })).id,
		marker: "alice-only-value",
		update: { value: "changed-by-bob" },
		create: { key: "x", value: "y" },
	};
	fx.sections = {
		id: (await post(a, "sections", { key: "bank", name: "alice-only-section" })).id,
		marker: "alice-only-section",
		update: { name: "changed-by-bob" },
		create: { key: "s", name: "S" },
	};
	fx.templates = {
		id: (await post(a, "templates", { name: "alice-only-template", items })).id,
		marker: "alice-only-template",
		update: { name: "changed-by-bob" },
		create: { name: "T", items },
	};
	const now = t.app.clock.now();
	fx.notifications = {
		id: await createNotification(
			t.app.store.db,
			{ account: a.accountId, workspace: a.workspaceId, kind: "test", title: "alice-only-note" },
			now,
		),
		marker: "alice-only-note",
		update: { read: true },
		create: { kind: "x" },
	};
	const member = await t.app.store.db
		.selectFrom("members")
		.select("id")
		.where("workspace", "=", a.workspaceId)
		.executeTakeFirstOrThrow();
	fx.members = { id: member.id, marker: a.email, update: { role: "admin" }, create: {} };
	fx.workspaces = {
		id: a.workspaceId,
		marker: "Alice's vault",
		update: { name: "changed-by-bob" },
		create: { name: "W" },
	};
	const passkeyId = newId();
	await t.app.store.db
		.insertInto("passkeys")
		.values({
			id: passkeyId,
			account: a.accountId,
			name: "alice-only-passkey",
			credential_id: "CREDENTIAL-ID-SECRET",
			public_key: "PUBLIC-KEY-MATERIAL",
			counter: 7,
			transports: "[]",
			device_type: "singleDevice",
			backed_up: 0,
			created: now,
			updated: now,
			last_used: null,
		})
		.execute();
	fx.passkeys = { id: passkeyId, marker: "alice-only-passkey", create: {} };
});
after(() => t.close());

const collections = [
	"records",
	"sections",
	"templates",
	"notifications",
	"members",
	"workspaces",
	"passkeys",
];

for (const name of collections) {
	const base = `/api/collections/${name}/records`;
	const item = () => `${base}/${fx[name]?.id}`;
	const f = () => fx[name] as Fixture;
	describe(`${name}: access`, () => {
		scenarios(app, [
			{
				name: "requires authentication: list",
				method: "GET",
				url: base,
				status: 401,
				code: "not_authenticated",
			},
			{
				name: "requires authentication: view",
				method: "GET",
				url: item,
				status: 401,
				code: "not_authenticated",
				notContains: () => [f().marker],
			},
			{
				name: "requires authentication: create",
				method: "POST",
				url: base,
				body: () => f().create,
				status: 401,
				code: "not_authenticated",
			},
			{
				name: "requires authentication: update",
				method: "PATCH",
				url: item,
				body: { x: 1 },
				status: 401,
				code: "not_authenticated",
			},
			{
				name: "requires authentication: delete",
				method: "DELETE",
				url: item,
				status: 401,
				code: "not_authenticated",
			},
			{
				name: "a session token that is wrong is a guest",
				method: "GET",
				url: base,
				headers: { authorization: "Bearer not-a-session" },
				status: 401,
				code: "not_authenticated",
			},
			{
				name: "an API key sent as Bearer is a guest",
				method: "GET",
				url: base,
				headers: () => ({ authorization: `Bearer ${buildApiKey(t.app, a).key}` }),
				status: 401,
				code: "not_authenticated",
			},
			{
				name: "a connection token is admitted by no rule",
				method: "GET",
				url: base,
				headers: { "x-svc-connection": "some-connection-token" },
				status: 401,
				code: "not_authenticated",
			},
			{
				name: "another workspace's record is invisible to list",
				method: "GET",
				url: base,
				headers: () => b.headers,
				status: 200,
				notContains: () => [f().id, f().marker],
			},
			{
				name: "another workspace's record is invisible to view",
				method: "GET",
				url: item,
				headers: () => b.headers,
				status: 404,
				code: "not_found",
				notContains: () => [f().marker],
			},
			{
				name: "another workspace's record is invisible to a filter naming its id",
				method: "GET",
				url: () => `${base}?filter=${encodeURIComponent(`id = "${f().id}"`)}`,
				headers: () => b.headers,
				status: 200,
				contains: ['"totalItems":0'],
			},
			...(name !== "passkeys"
				? [
						{
							name: "another workspace's record is invisible to update",
							method: "PATCH" as const,
							url: item,
							headers: () => b.headers,
							body: () => f().update,
							status: 404,
							code: "not_found",
						},
					]
				: []),
			{
				name: "another workspace's record is invisible to delete",
				method: "DELETE",
				url: item,
				headers: () => b.headers,
				status: name === "passkeys" ? 405 : 404,
				code: name === "passkeys" ? "method_not_allowed" : "not_found",
			},
			{
				name: "the owner still sees it, unchanged",
				method: "GET",
				url: item,
				headers: () => a.headers,
				status: 200,
				contains: () => [f().id, f().marker],
				notContains: ["changed-by-bob"],
			},
		]);

		test("a foreign id and a missing id get the same answer", async () => {
			const foreign = await runScenario(t.app, {
				name: "",
				method: "GET",
				url: item(),
				headers: b.headers,
				status: 404,
			});
			const missing = await runScenario(t.app, {
				name: "",
				method: "GET",
				url: `${base}/${newId()}`,
				headers: b.headers,
				status: 404,
			});
			assert.deepEqual(foreign.json(), missing.json());
		});
	});
}

describe("API keys", () => {
	const keyHeaders = (scopes?: string[]) => () => buildApiKey(t.app, a, scopes).headers;
	const scope = (s: string) => (res: { json(): unknown }) =>
		assert.equal((res.json() as { scope?: string }).scope, s);
	scenarios(app, [
		{
			name: "never open the vault, even with every scope: list records",
			method: "GET",
			url: "/api/collections/records/records",
			headers: keyHeaders(["record:*", "section:*", "template:*"]),
			status: 403,
			code: "api_key_scope_missing",
			check: scope("record:read"),
			notContains: ["alice-only-value"],
		},
		{
			name: "never open the vault: view a record",
			method: "GET",
			url: () => `/api/collections/records/records/${fx.records?.id}`,
			headers: keyHeaders(),
			status: 403,
			code: "api_key_scope_missing",
			notContains: ["alice-only-value"],
		},
		{
			name: "never open the vault: create a record",
			method: "POST",
			url: "/api/collections/records/records",
			headers: keyHeaders(),
			body: { key: "k", value: "v" },
			status: 403,
			code: "api_key_scope_missing",
			check: scope("record:write"),
		},
		{
			name: "never open the vault: sections",
			method: "GET",
			url: "/api/collections/sections/records",
			headers: keyHeaders(),
			status: 403,
			code: "api_key_scope_missing",
			check: scope("section:read"),
		},
		{
			name: "never reach the account's workspaces",
			method: "GET",
			url: "/api/collections/workspaces/records",
			headers: keyHeaders(),
			status: 403,
			code: "api_key_scope_missing",
			check: scope("workspace:read"),
		},
		{
			name: "never reach the account's passkeys",
			method: "GET",
			url: "/api/collections/passkeys/records",
			headers: keyHeaders(),
			status: 403,
			code: "api_key_scope_missing",
			check: scope("passkey:read"),
		},
		{
			name: "read templates with template:read, in their own workspace only",
			method: "GET",
			url: "/api/collections/templates/records",
			headers: keyHeaders(["template:read"]),
			status: 200,
			contains: ["alice-only-template"],
		},
		{
			name: "without the scope: named refusal",
			method: "GET",
			url: "/api/collections/templates/records",
			headers: keyHeaders(["link:read"]),
			status: 403,
			code: "api_key_scope_missing",
			check: scope("template:read"),
			notContains: ["alice-only-template"],
		},
		{
			name: "template:read does not cover writing",
			method: "POST",
			url: "/api/collections/templates/records",
			headers: keyHeaders(["template:read"]),
			body: { name: "T", items: [] },
			status: 403,
			code: "api_key_scope_missing",
			check: scope("template:write"),
		},
		{
			name: "template:* covers writing",
			method: "POST",
			url: "/api/collections/templates/records",
			headers: keyHeaders(["template:*"]),
			body: { name: "by-key", items: [] },
			status: 200,
			contains: ['"name":"by-key"'],
		},
		{
			name: "member:read lists members but cannot change a role",
			method: "PATCH",
			url: () => `/api/collections/members/records/${fx.members?.id}`,
			headers: keyHeaders(["member:read"]),
			body: { role: "admin" },
			status: 403,
			code: "api_key_scope_missing",
			check: scope("member:write"),
		},
		{
			name: "notification:* reads the notifications of the key's workspace",
			method: "GET",
			url: "/api/collections/notifications/records",
			headers: keyHeaders(["notification:*"]),
			status: 200,
			contains: ["alice-only-note"],
		},
	]);
});

describe("roles", () => {
	let m: TestAccount;
	before(async () => {
		m = await buildAccount(t.app, { name: "Member" });
		await addMember(t.app, a.workspaceId, m.accountId, "member");
	});
	const asMember = () => ({ ...m.headers, "x-workspace": a.workspaceId });
	scenarios(app, [
		{
			name: "a member of the workspace sees its records with X-Workspace",
			method: "GET",
			url: "/api/collections/records/records",
			headers: asMember,
			status: 200,
			contains: ["alice-only-value"],
		},
		{
			name: "with X-Workspace naming their own workspace, the member sees only its records",
			method: "GET",
			url: "/api/collections/records/records",
			headers: () => ({ ...m.headers, "x-workspace": m.workspaceId }),
			status: 200,
			notContains: ["alice-only-value"],
		},
		{
			name: "a member's role lacks member:write: refused naming the scope",
			method: "PATCH",
			url: () => `/api/collections/members/records/${fx.members?.id}`,
			headers: asMember,
			body: { role: "member" },
			status: 403,
			code: "forbidden",
			check: (res) => assert.equal((res.json() as { scope?: string }).scope, "member:write"),
		},
		{
			name: "X-Workspace naming a workspace the account is not in is refused",
			method: "GET",
			url: "/api/collections/records/records",
			headers: () => ({ ...b.headers, "x-workspace": a.workspaceId }),
			status: 403,
			code: "forbidden",
			notContains: ["alice-only-value"],
		},
	]);
});

describe("collections that do not exist or do not offer an operation", () => {
	scenarios(app, [
		{
			name: "unknown collection",
			method: "GET",
			url: "/api/collections/nope/records",
			headers: () => a.headers,
			status: 404,
			code: "not_found",
		},
		{
			name: "passkeys are not created here",
			method: "POST",
			url: "/api/collections/passkeys/records",
			headers: () => a.headers,
			body: { name: "x" },
			status: 405,
			code: "method_not_allowed",
			check: (res) => assert.equal(res.headers.allow, "GET"),
		},
		{
			name: "notifications are not created through the API",
			method: "POST",
			url: "/api/collections/notifications/records",
			headers: () => a.headers,
			body: { kind: "x" },
			status: 405,
			code: "method_not_allowed",
		},
		{
			name: "passkeys never show key material",
			method: "GET",
			url: "/api/collections/passkeys/records",
			headers: () => a.headers,
			status: 200,
			contains: ["alice-only-passkey", '"lastUsed":null'],
			notContains: ["CREDENTIAL-ID-SECRET", "PUBLIC-KEY-MATERIAL", "counter", "credential"],
		},
		{
			name: "a PUT is not a method of the collections API",
			method: "PUT",
			url: "/api/collections/records/records",
			headers: () => a.headers,
			body: {},
			status: 405,
			code: "method_not_allowed",
		},
	]);
});
