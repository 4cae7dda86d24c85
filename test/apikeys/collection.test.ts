// The `apiKeys` collection driven like a client: a session mints a key, the token comes back once
// in `X-Plain-Token` and works on the next request; keys never mint keys nor open the vault;
// delete revokes at once; another workspace's (or member's) key is invisible.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";
import { assertProblem } from "./helpers.ts";

const base = "/api/collections/apiKeys/records";

describe("the apiKeys collection", () => {
	let t: TestApp;
	let alice: TestAccount;
	let bob: TestAccount;

	before(async () => {
		t = await makeApp();
		alice = await buildAccount(t.app);
		bob = await buildAccount(t.app);
	});
	after(() => t.close());

	const mint = (headers: Record<string, string>, payload: object) =>
		t.app.inject({ method: "POST", url: base, headers, payload });

	async function mintKey(account: TestAccount, permissions = ["templates:read"]) {
		const res = await mint(account.headers, { name: "script", permissions });
		assert.equal(res.statusCode, 200, res.body);
		const token = res.headers["x-plain-token"];
		assert.equal(typeof token, "string");
		return { token: token as string, record: res.json() as Record<string, unknown> };
	}

	test("a session mints a key: the token once in X-Plain-Token, never in the body", async () => {
		const res = await mint(alice.headers, {
			name: "  CI deploy ",
			permissions: ["templates:read", "links:read"],
			expiresAt: new Date(t.app.clock.now() + 86_400_000).toISOString(),
		});
		assert.equal(res.statusCode, 200, res.body);
		const token = res.headers["x-plain-token"] as string;
		assert.match(token, /^svc_[A-Za-z0-9_-]{43}$/);
		assert.equal(res.headers["cache-control"], "no-store");
		assert.ok(!res.body.includes(token), "the token is not in the body");
		const body = res.json();
		assert.deepEqual(Object.keys(body).sort(), [
			"created",
			"expiresAt",
			"id",
			"lastUsed",
			"name",
			"permissions",
			"scopes",
			"workspace",
		]);
		assert.equal(body.name, "CI deploy");
		assert.deepEqual(body.permissions, ["links:read", "templates:read"]);
		assert.deepEqual(body.scopes, ["link:read", "template:read"]);
		assert.equal(body.workspace, alice.workspaceId);
		assert.equal(body.lastUsed, null);

		// The next request with it reaches a collection its scope opens, and nothing beyond.
		const ok = await t.app.inject({
			url: "/api/collections/templates/records",
			headers: { "x-api-key": token },
		});
		assert.equal(ok.statusCode, 200, ok.body);
		const beyond = await t.app.inject({
			url: "/api/collections/members/records",
			headers: { "x-api-key": token },
		});
		assertProblem(beyond, 403, "api_key_scope_missing");

		// List and view show the record (lastUsed now set) but never the token or the hash.
		const list = await t.app.inject({ url: base, headers: alice.headers });
		assert.equal(list.statusCode, 200);
		assert.ok(!list.body.includes(token));
		assert.ok(!/hash/i.test(list.body));
		const item = list.json().items.find((k: { id: string }) => k.id === body.id);
		assert.ok(item.lastUsed, "lastUsed recorded by the request");
		const view = await t.app.inject({ url: `${base}/${body.id}`, headers: alice.headers });
		assert.equal(view.statusCode, 200);
		assert.ok(!view.body.includes(token));
		assert.equal(view.headers["x-plain-token"], undefined);
	});

	test("an API key cannot mint, list or revoke keys", async () => {
		const { token, record } = await mintKey(alice, ["members:read"]);
		const key = { "x-api-key": token };
		assertProblem(
			await mint(key, { name: "child", permissions: ["templates:read"] }),
			403,
			"api_key_scope_missing",
		);
		assertProblem(await t.app.inject({ url: base, headers: key }), 403, "api_key_scope_missing");
		assertProblem(
			await t.app.inject({ method: "DELETE", url: `${base}/${record.id}`, headers: key }),
			403,
			"api_key_scope_missing",
		);
	});

	test("vault permissions and scopes are refused with api_key_vault_scope", async () => {
		for (const body of [
			{ name: "v", permissions: ["vault:read"] },
			{ name: "v", permissions: ["vault:write"] },
			{ name: "v", permissions: ["templates:read"], scopes: ["record:read"] },
			{ name: "v", permissions: ["templates:read"], scopes: ["section:*"] },
		]) {
			const res = await mint(alice.headers, body);
			assertProblem(res, 400, "api_key_vault_scope");
			assert.equal(res.headers["x-plain-token"], undefined);
		}
		const count = await t.app.store.db
			.selectFrom("api_keys")
			.select((eb) => eb.fn.countAll().as("n"))
			.where("name", "=", "v")
			.executeTakeFirstOrThrow();
		assert.equal(Number(count.n), 0);
	});

	test("bad bodies are 400 validation_failed", async () => {
		const unknown = assertProblem(
			await mint(alice.headers, { name: "x", permissions: ["nope:read"] }),
			400,
			"validation_failed",
		);
		assert.equal(unknown.permission, "nope:read");
		assertProblem(await mint(alice.headers, { name: "x", permissions: [] }), 400, "validation_failed");
		assertProblem(await mint(alice.headers, { name: "x" }), 400, "validation_failed");
		assertProblem(
			await mint(alice.headers, { name: "x", permissions: ["links:read"], expiresAt: "tomorrow" }),
			400,
			"validation_failed",
		);
		assertProblem(
			await mint(alice.headers, {
				name: "x",
				permissions: ["links:read"],
				expiresAt: new Date(t.app.clock.now() - 1000).toISOString(),
			}),
			400,
			"validation_failed",
		);
	});

	test("PATCH renames only: grants cannot change in place", async () => {
		const { token, record } = await mintKey(alice);
		const url = `${base}/${record.id}`;
		const renamed = await t.app.inject({
			method: "PATCH",
			url,
			headers: alice.headers,
			payload: { name: "renamed" },
		});
		assert.equal(renamed.statusCode, 200, renamed.body);
		assert.equal(renamed.json().name, "renamed");
		assert.deepEqual(renamed.json().scopes, ["template:read"]);
		for (const payload of [{ permissions: ["links:read"] }, { name: "x", scopes: ["link:read"] }]) {
			assertProblem(
				await t.app.inject({ method: "PATCH", url, headers: alice.headers, payload }),
				400,
				"validation_failed",
			);
		}
		const after = await t.app.inject({ url, headers: alice.headers });
		assert.deepEqual(after.json().permissions, ["templates:read"]);
		// The token still works: renaming is not rotation.
		const ok = await t.app.inject({
			url: "/api/collections/templates/records",
			headers: { "x-api-key": token },
		});
		assert.equal(ok.statusCode, 200);
	});

	test("DELETE revokes: the very next request is invalid_api_key", async () => {
		const { token, record } = await mintKey(alice);
		const key = { "x-api-key": token };
		assert.equal(
			(await t.app.inject({ url: "/api/collections/templates/records", headers: key })).statusCode,
			200,
		);
		const del = await t.app.inject({ method: "DELETE", url: `${base}/${record.id}`, headers: alice.headers });
		assert.equal(del.statusCode, 204);
		assertProblem(
			await t.app.inject({ url: "/api/collections/templates/records", headers: key }),
			401,
			"invalid_api_key",
		);
		assertProblem(
			await t.app.inject({ url: `${base}/${record.id}`, headers: alice.headers }),
			404,
			"not_found",
		);
	});

	test("another workspace's key is invisible: 404 to view, update and delete, absent from list", async () => {
		const { token, record } = await mintKey(alice);
		const url = `${base}/${record.id}`;
		const list = await t.app.inject({ url, headers: bob.headers });
		assertProblem(list, 404, "not_found");
		const bobs = await t.app.inject({ url: base, headers: bob.headers });
		assert.ok(!bobs.json().items.some((k: { id: string }) => k.id === record.id));
		assertProblem(
			await t.app.inject({ method: "PATCH", url, headers: bob.headers, payload: { name: "mine" } }),
			404,
			"not_found",
		);
		assertProblem(await t.app.inject({ method: "DELETE", url, headers: bob.headers }), 404, "not_found");
		// Still alive.
		const ok = await t.app.inject({
			url: "/api/collections/templates/records",
			headers: { "x-api-key": token },
		});
		assert.equal(ok.statusCode, 200);
	});

	test("a member sees only their own keys; an admin sees and revokes every one", async () => {
		const owner = await buildAccount(t.app);
		const member = await buildAccount(t.app);
		const admin = await buildAccount(t.app);
		await addMember(t.app, owner.workspaceId, member.accountId, "member");
		await addMember(t.app, owner.workspaceId, admin.accountId, "admin");
		const inWs = (a: TestAccount) => ({ ...a.headers, "x-workspace": owner.workspaceId });
		const ownerKey = await mint(inWs(owner), { name: "owner's", permissions: ["links:read"] });
		const memberKey = await mint(inWs(member), { name: "member's", permissions: ["links:read"] });
		assert.equal(memberKey.statusCode, 200, memberKey.body);
		// A member cannot grant what they do not hold.
		assertProblem(await mint(inWs(member), { name: "x", permissions: ["members:write"] }), 403, "forbidden");

		const seen = await t.app.inject({ url: base, headers: inWs(member) });
		assert.deepEqual(
			seen.json().items.map((k: { name: string }) => k.name),
			["member's"],
		);
		assertProblem(
			await t.app.inject({ url: `${base}/${ownerKey.json().id}`, headers: inWs(member) }),
			404,
			"not_found",
		);
		const all = await t.app.inject({ url: `${base}?sort=name`, headers: inWs(admin) });
		assert.deepEqual(
			all.json().items.map((k: { name: string }) => k.name),
			["member's", "owner's"],
		);
		const del = await t.app.inject({
			method: "DELETE",
			url: `${base}/${memberKey.json().id}`,
			headers: inWs(admin),
		});
		assert.equal(del.statusCode, 204);
		assertProblem(
			await t.app.inject({
				url: "/api/collections/templates/records",
				headers: { "x-api-key": memberKey.headers["x-plain-token"] as string },
			}),
			401,
			"invalid_api_key",
		);
	});

	test("requires authentication", async () => {
		assertProblem(await t.app.inject({ url: base }), 401, "not_authenticated");
		assertProblem(
			await t.app.inject({ method: "POST", url: base, payload: { name: "x", permissions: ["links:read"] } }),
			401,
			"not_authenticated",
		);
	});

	test("the OpenAPI document shows X-Plain-Token on the create response", async () => {
		const doc = (await t.app.inject({ url: "/api/openapi.json" })).json();
		const created = doc.paths["/api/collections/apiKeys/records"].post.responses["200"];
		assert.ok(created.headers?.["X-Plain-Token"], JSON.stringify(created));
		assert.ok(doc.components.schemas.ApiKey);
		assert.ok(!("keyHash" in doc.components.schemas.ApiKey.properties));
	});
});
