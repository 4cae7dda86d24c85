import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createAccount, SESSION_TTL_MS } from "../../src/features/accounts/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId, sha256Hex } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { assertProblem, PasskeyClient } from "../helpers/passkeys.ts";

const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 8)}@example.org`;

describe("sessions, workspaces and passkey removal", () => {
	let t: TestApp;
	const clock = new ManualClock(Date.UTC(2026, 0, 1));
	before(async () => {
		t = await makeApp({ allowSignups: true }, { clock });
	});
	after(() => t.close());

	test("GET /api/auth/me needs a session: none, garbage, an unexpanded variable, another scheme", async () => {
		const c = new PasskeyClient(t.app);
		assertProblem(await c.request("GET", "/api/auth/me"), 401, "not_authenticated");
		assertProblem(
			await c.request("GET", "/api/auth/me", undefined, c.as("garbage")),
			401,
			"not_authenticated",
		);
		assertProblem(
			await c.request("GET", "/api/auth/me", undefined, c.as("$SESSION_TOKEN")),
			401,
			"not_authenticated",
		);
		assertProblem(
			await c.request("GET", "/api/auth/me", undefined, { authorization: "Basic Zm9vOmJhcg==" }),
			401,
			"not_authenticated",
		);
	});

	test("an API key sent as Bearer authenticates as nobody", async () => {
		const c = new PasskeyClient(t.app);
		const { record } = await c.signup(email("key"));
		const key = "svc_live_key_of_this_account";
		t.app.authResolvers.apiKey = async (hash) =>
			hash === sha256Hex(key)
				? { kind: "apiKey", accountId: record.id, workspaceId: "w", scopes: [], credentialId: "k" }
				: undefined;
		assertProblem(await c.request("GET", "/api/auth/me", undefined, c.as(key)), 401, "not_authenticated");
		// The same key in its own header is an account, but these routes take sessions only.
		assertProblem(
			await c.request("GET", "/api/auth/me", undefined, { "x-api-key": key }),
			401,
			"not_authenticated",
		);
	});

	test("the active workspace: the first by default, X-Workspace picks another, a foreign one is 403", async () => {
		const c = new PasskeyClient(t.app);
		const { token, record } = await c.signup(email("ws"));
		const me = (await c.request("GET", "/api/auth/me", undefined, c.as(token))).json();
		const personal = me.workspaces[0].id;
		assert.equal(me.workspace, personal);
		assert.ok(me.scopes.includes("record:*"));

		// Someone else's workspace that this account is then made a plain member of.
		const other = await createAccount(t.app.store.db, { email: email("other") }, clock.now());
		await t.app.store.db
			.insertInto("members")
			.values({
				id: newId(),
				workspace: other.workspaceId,
				account: record.id,
				role: "member",
				created: clock.now() + 1,
				updated: clock.now() + 1,
			})
			.execute();
		const both = (await c.request("GET", "/api/auth/me", undefined, c.as(token))).json();
		assert.deepEqual(
			both.workspaces.map((w: { id: string }) => w.id),
			[personal, other.workspaceId],
		);
		assert.equal(both.workspace, personal);
		const picked = (
			await c.request("GET", "/api/auth/me", undefined, c.as(token, { "x-workspace": other.workspaceId }))
		).json();
		assert.equal(picked.workspace, other.workspaceId);
		assert.ok(!picked.scopes.includes("attestation:*"), "a member does not issue attestations");
		assert.ok(!picked.scopes.includes("member:*"));

		const stranger = await createAccount(t.app.store.db, { email: email("stranger") }, clock.now());
		assertProblem(
			await c.request("GET", "/api/auth/me", undefined, c.as(token, { "x-workspace": stranger.workspaceId })),
			403,
			"forbidden",
		);
	});

	test("sign-out ends the session at once; other sessions live on", async () => {
		const c = new PasskeyClient(t.app);
		const { token } = await c.signup(email("logout"));
		const { token: second } = await c.signin();
		const out = await c.post("/api/auth/logout", undefined, c.as(token));
		assert.equal(out.statusCode, 204);
		assert.equal(out.body, "");
		assertProblem(await c.request("GET", "/api/auth/me", undefined, c.as(token)), 401, "not_authenticated");
		assertProblem(await c.post("/api/auth/logout", undefined, c.as(token)), 401, "not_authenticated");
		assert.equal((await c.request("GET", "/api/auth/me", undefined, c.as(second))).statusCode, 200);
	});

	test("a session lasts 30 days", async () => {
		const c = new PasskeyClient(t.app);
		const { token } = await c.signup(email("ttl"));
		clock.advance(SESSION_TTL_MS - 1);
		assert.equal((await c.request("GET", "/api/auth/me", undefined, c.as(token))).statusCode, 200);
		clock.advance(1);
		assertProblem(await c.request("GET", "/api/auth/me", undefined, c.as(token)), 401, "not_authenticated");
	});

	test("DELETE /api/passkeys/{id}: 204 for one of several, 409 passkey_last, 404 for another's or unknown", async () => {
		const c = new PasskeyClient(t.app);
		const { token, record } = await c.signup(email("rm"));
		const ticket = new URL(
			(await c.post("/api/passkeys/tickets", undefined, c.as(token))).json().url,
		).searchParams.get("ticket");
		const phone = new PasskeyClient(t.app);
		assert.equal((await phone.register({ ticket, name: "Phone" })).statusCode, 200);
		const rows = await t.app.store.db
			.selectFrom("passkeys")
			.select(["id", "name"])
			.where("account", "=", record.id)
			.execute();
		assert.equal(rows.length, 2);
		const phoneRow = rows.find((r) => r.name === "Phone");
		const firstRow = rows.find((r) => r.name !== "Phone");

		const intruder = new PasskeyClient(t.app);
		const { token: intruderToken } = await intruder.signup(email("intruder"));
		assertProblem(
			await intruder.request(
				"DELETE",
				`/api/passkeys/${phoneRow?.id}`,
				undefined,
				intruder.as(intruderToken),
			),
			404,
			"not_found",
		);
		assertProblem(
			await c.request("DELETE", "/api/passkeys/unknown", undefined, c.as(token)),
			404,
			"not_found",
		);
		assertProblem(await c.request("DELETE", `/api/passkeys/${phoneRow?.id}`), 401, "not_authenticated");

		const del = await c.request("DELETE", `/api/passkeys/${phoneRow?.id}`, undefined, c.as(token));
		assert.equal(del.statusCode, 204);
		assertProblem(
			await c.request("DELETE", `/api/passkeys/${firstRow?.id}`, undefined, c.as(token)),
			409,
			"passkey_last",
		);
		const left = await t.app.store.db
			.selectFrom("passkeys")
			.select("id")
			.where("account", "=", record.id)
			.execute();
		assert.deepEqual(
			left.map((r) => r.id),
			[firstRow?.id],
		);
		// The removed passkey no longer signs in.
		assertProblem(await phone.login("a".repeat(43)), 401, "passkey_verification_failed");
	});

	test("removing the last two passkeys concurrently leaves one", async () => {
		const c = new PasskeyClient(t.app);
		const { token, record } = await c.signup(email("race"));
		const ticket = new URL(
			(await c.post("/api/passkeys/tickets", undefined, c.as(token))).json().url,
		).searchParams.get("ticket");
		assert.equal((await new PasskeyClient(t.app).register({ ticket })).statusCode, 200);
		const ids = (
			await t.app.store.db.selectFrom("passkeys").select("id").where("account", "=", record.id).execute()
		).map((r) => r.id);
		const results = await Promise.all(
			ids.map((id) => c.request("DELETE", `/api/passkeys/${id}`, undefined, c.as(token))),
		);
		assert.deepEqual(results.map((r) => r.statusCode).sort(), [204, 409]);
		const left = await t.app.store.db
			.selectFrom("passkeys")
			.select("id")
			.where("account", "=", record.id)
			.execute();
		assert.equal(left.length, 1);
	});
});
