import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createApiKey, revokeApiKey } from "../../src/features/apikeys/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { account, addMember, assertProblem, probeRoutes } from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("API keys authenticate through X-API-Key only", () => {
	let t: TestApp;
	const clock = new ManualClock(T0);
	let owner: { accountId: string; workspaceId: string };
	let key: string;
	let keyId: string;

	before(async () => {
		t = await makeApp({}, { clock, extend: probeRoutes });
		owner = await account(t.app.store.db, T0);
		const made = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "ci", permissions: ["links:read", "requests:write"] },
			T0,
		);
		key = made.plainToken;
		keyId = made.key.id;
	});
	after(() => t.close());

	const get = (headers: Record<string, string>, url = "/t") => t.app.inject({ method: "GET", url, headers });

	test("a key in X-API-Key is its creator, bound to its workspace, with the key's scopes", async () => {
		const res = await get({ "x-api-key": key });
		assert.equal(res.statusCode, 200);
		assert.deepEqual(res.json(), {
			kind: "apiKey",
			accountId: owner.accountId,
			workspaceId: owner.workspaceId,
			// An owner's key meets hidden entries (in shares) as its creator does (docs/api.md, Roles).
			scopes: ["link:read", "request:*", "hidden:read"],
			credentialId: keyId,
		});
	});

	test("the key sent as a Bearer token authenticates as nobody (rule 1)", async () => {
		const optional = await get({ authorization: `Bearer ${key}` }, "/t/optional");
		assert.equal(optional.statusCode, 200);
		assert.deepEqual(optional.json(), { kind: "guest" });
		assertProblem(await get({ authorization: `Bearer ${key}` }), 401, "not_authenticated");
	});

	const notAuthenticated: [string, () => Record<string, string>][] = [
		[
			"Authorization: Basic",
			() => ({ authorization: `Basic ${Buffer.from(`user:${key}`).toString("base64")}` }),
		],
		["Authorization: Token", () => ({ authorization: `Token ${key}` })],
		["the key as a bare Authorization value", () => ({ authorization: key })],
		["empty X-API-Key", () => ({ "x-api-key": "" })],
		["blank X-API-Key", () => ({ "x-api-key": "   " })],
		["unexpanded $API_KEY", () => ({ "x-api-key": "$API_KEY" })],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: an unexpanded shell variable, literally
		["unexpanded ${API_KEY}", () => ({ "x-api-key": "${API_KEY}" })],
		["no credential at all", () => ({})],
	];
	for (const [name, headers] of notAuthenticated) {
		test(`${name} is not_authenticated`, async () => {
			assertProblem(await get(headers()), 401, "not_authenticated");
		});
	}

	test("a mistyped key is invalid_api_key", async () => {
		const last = key.at(-1) === "A" ? "B" : "A";
		assertProblem(await get({ "x-api-key": key.slice(0, -1) + last }), 401, "invalid_api_key");
		assertProblem(await get({ "x-api-key": "svc_not-a-key" }), 401, "invalid_api_key");
	});

	test("a key used with X-Workspace naming another workspace is api_key_workspace_mismatch", async () => {
		const other = await account(t.app.store.db, T0);
		assertProblem(
			await get({ "x-api-key": key, "x-workspace": other.workspaceId }),
			403,
			"api_key_workspace_mismatch",
		);
		const same = await get({ "x-api-key": key, "x-workspace": owner.workspaceId });
		assert.equal(same.statusCode, 200);
	});

	test("a request outside the key's scopes names the missing scope", async () => {
		const body = assertProblem(
			await get({ "x-api-key": key }, "/t/scope/template:read"),
			403,
			"api_key_scope_missing",
		);
		assert.equal(body.scope, "template:read");
		assert.match(String(body.detail), /template:read/);
		// `request:*` covers every action on requests.
		assert.equal((await get({ "x-api-key": key }, "/t/scope/request:write")).statusCode, 200);
	});

	test("a key never opens the vault, even one stored with vault scopes before the rule", async () => {
		const legacy = `svc_${crypto.randomBytes(32).toString("base64url")}`;
		await t.app.store.db
			.insertInto("api_keys")
			.values({
				id: newId(),
				workspace: owner.workspaceId,
				account: owner.accountId,
				name: "legacy",
				key_hash: crypto.createHash("sha256").update(legacy).digest("hex"),
				permissions: JSON.stringify(["vault:write", "links:read"]),
				scopes: JSON.stringify(["link:read", "record:*", "section:*"]),
				expires_at: null,
				created: T0,
				updated: T0,
				last_used: null,
			})
			.execute();
		const me = await get({ "x-api-key": legacy });
		assert.equal(me.statusCode, 200);
		assert.deepEqual(me.json().scopes, ["link:read", "hidden:read"]);
		const body = assertProblem(
			await get({ "x-api-key": legacy }, "/t/scope/record:read"),
			403,
			"api_key_scope_missing",
		);
		assert.equal(body.scope, "record:read");
	});

	test("a key stops when its creator leaves the workspace", async () => {
		const member = await account(t.app.store.db, T0);
		await addMember(t.app.store.db, owner.workspaceId, member.accountId, "member", T0);
		const made = await createApiKey(
			t.app.store.db,
			{ accountId: member.accountId, workspaceId: owner.workspaceId, name: "m", permissions: ["links:read"] },
			T0,
		);
		assert.equal((await get({ "x-api-key": made.plainToken })).statusCode, 200);
		await t.app.store.db
			.deleteFrom("members")
			.where("workspace", "=", owner.workspaceId)
			.where("account", "=", member.accountId)
			.execute();
		assertProblem(await get({ "x-api-key": made.plainToken }), 401, "invalid_api_key");
	});

	test("a revoked key is refused on the next request", async () => {
		const made = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "short-lived", permissions: ["links:read"] },
			T0,
		);
		assert.equal((await get({ "x-api-key": made.plainToken })).statusCode, 200);
		await revokeApiKey(t.app.store.db, { ...owner, scopes: [] }, made.key.id);
		assertProblem(await get({ "x-api-key": made.plainToken }), 401, "invalid_api_key");
	});

	test("last use is recorded at most once a minute", async () => {
		const made = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "used", permissions: ["links:read"] },
			T0,
		);
		const lastUsed = async () =>
			(
				await t.app.store.db
					.selectFrom("api_keys")
					.select("last_used")
					.where("id", "=", made.key.id)
					.executeTakeFirstOrThrow()
			).last_used;
		assert.equal(await lastUsed(), null);
		clock.set(T0 + 1000);
		await get({ "x-api-key": made.plainToken });
		assert.equal(await lastUsed(), T0 + 1000);
		clock.set(T0 + 30_000);
		await get({ "x-api-key": made.plainToken });
		assert.equal(await lastUsed(), T0 + 1000, "within a minute: no write");
		clock.set(T0 + 61_001);
		await get({ "x-api-key": made.plainToken });
		assert.equal(await lastUsed(), T0 + 61_001);
		clock.set(T0);
	});
});

describe("API key expiry, frozen at the boundary", () => {
	let t: TestApp;
	const clock = new ManualClock(T0);
	const exp = T0 + 60 * 60_000;
	let key: string;

	before(async () => {
		t = await makeApp({}, { clock, extend: probeRoutes });
		const owner = await account(t.app.store.db, T0);
		key = (
			await createApiKey(
				t.app.store.db,
				{ ...owner, name: "exp", permissions: ["links:read"], expiresAt: exp },
				T0,
			)
		).plainToken;
	});
	after(() => t.close());

	const use = () => t.app.inject({ method: "GET", url: "/t", headers: { "x-api-key": key } });

	test("at exp - 1 ms the key works", async () => {
		clock.set(exp - 1);
		assert.equal((await use()).statusCode, 200);
	});

	test("at exp the key fails as if revoked", async () => {
		clock.set(exp);
		assertProblem(await use(), 401, "invalid_api_key");
	});

	test("at exp + 1 ms the key fails as if revoked", async () => {
		clock.set(exp + 1);
		assertProblem(await use(), 401, "invalid_api_key");
	});
});
