// Leaving, removing and handing over: a workspace never loses its last owner, the personal
// workspace stays with its account, and a departure ends at once what the member held there (their
// API keys revoked, the workspace closed to their sessions) while their sessions stay.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { asTool, connect } from "../connections/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";

const C = "/api/collections";
let t: TestApp;

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const call = (who: TestAccount, method: Method, url: string, payload?: unknown, workspace?: string) =>
	t.app.inject({
		method,
		url,
		headers: { ...who.headers, ...(workspace ? { "x-workspace": workspace } : {}) },
		...(payload === undefined ? {} : { payload: payload as object }),
	});

async function workspace(owner: TestAccount, name = "Shared"): Promise<string> {
	return (await call(owner, "POST", `${C}/workspaces/records`, { name })).json().id;
}

async function memberId(ws: string, who: TestAccount): Promise<string> {
	return (
		await t.app.store.db
			.selectFrom("members")
			.select("id")
			.where("workspace", "=", ws)
			.where("account", "=", who.accountId)
			.executeTakeFirstOrThrow()
	).id;
}

async function roleOf(ws: string, who: TestAccount): Promise<string | undefined> {
	return (
		await t.app.store.db
			.selectFrom("members")
			.select("role")
			.where("workspace", "=", ws)
			.where("account", "=", who.accountId)
			.executeTakeFirst()
	)?.role;
}

before(async () => {
	t = await makeApp();
});
after(() => t.close());

describe("leaving", () => {
	test("a member leaves: access ends, their keys stop, their session stays", async () => {
		const owner = await buildAccount(t.app);
		const m = await buildAccount(t.app);
		const ws = await workspace(owner);
		await addMember(t.app, ws, m.accountId, "member");
		const minted = await call(
			m,
			"POST",
			`${C}/apiKeys/records`,
			{ name: "script", permissions: ["links:read"] },
			ws,
		);
		assert.equal(minted.statusCode, 200, minted.body);
		const key = String(minted.headers["x-plain-token"]);
		assert.equal(
			(await t.app.inject({ method: "GET", url: `${C}/links/records`, headers: { "x-api-key": key } }))
				.statusCode,
			200,
		);

		const left = await call(m, "POST", `/api/workspaces/${ws}/leave`);
		assert.equal(left.statusCode, 204, left.body);
		assert.equal((await call(m, "GET", `${C}/records/records`, undefined, ws)).json().code, "forbidden");
		const byKey = await t.app.inject({
			method: "GET",
			url: `${C}/links/records`,
			headers: { "x-api-key": key },
		});
		assert.equal(byKey.statusCode, 401);
		assert.equal(byKey.json().code, "invalid_api_key");
		const keys = await t.app.store.db
			.selectFrom("api_keys")
			.select("id")
			.where("workspace", "=", ws)
			.execute();
		assert.equal(keys.length, 0, "the key row is revoked, not merely unusable");
		assert.equal((await call(m, "GET", "/api/auth/me")).statusCode, 200);
		// Not a member any more: 404, and nothing changes.
		assert.equal((await call(m, "POST", `/api/workspaces/${ws}/leave`)).statusCode, 404);
	});

	test("the last owner cannot leave; the personal workspace stays with its account", async () => {
		const owner = await buildAccount(t.app);
		const ws = await workspace(owner);
		const last = await call(owner, "POST", `/api/workspaces/${ws}/leave`);
		assert.equal(last.statusCode, 409);
		assert.equal(last.json().code, "member_last_owner");
		assert.deepEqual(last.json().workspace, { id: ws, name: "Shared" });
		const personal = await call(owner, "POST", `/api/workspaces/${owner.workspaceId}/leave`);
		assert.equal(personal.statusCode, 409);
		assert.equal(personal.json().code, "member_personal_owner");
		assert.equal(await roleOf(ws, owner), "owner");
	});

	test("with a second owner the first may leave; the owner of record moves", async () => {
		const a = await buildAccount(t.app);
		const b = await buildAccount(t.app);
		const ws = await workspace(a);
		await addMember(t.app, ws, b.accountId, "member");
		assert.equal(
			(await call(a, "PATCH", `${C}/members/records/${await memberId(ws, b)}`, { role: "owner" }, ws))
				.statusCode,
			200,
		);
		assert.equal((await call(a, "POST", `/api/workspaces/${ws}/leave`)).statusCode, 204);
		const row = await t.app.store.db
			.selectFrom("workspaces")
			.select("owner")
			.where("id", "=", ws)
			.executeTakeFirstOrThrow();
		assert.equal(row.owner, b.accountId);
		const members = (await call(b, "GET", `${C}/members/records`, undefined, ws)).json().items;
		assert.deepEqual(
			members.map((m: { account: string; owner: boolean }) => [m.account, m.owner]),
			[[b.accountId, true]],
		);
	});

	test("an invited member of someone's personal workspace may leave it", async () => {
		const owner = await buildAccount(t.app);
		const m = await buildAccount(t.app);
		await addMember(t.app, owner.workspaceId, m.accountId, "member");
		assert.equal((await call(m, "POST", `/api/workspaces/${owner.workspaceId}/leave`)).statusCode, 204);
	});

	test("demoting the last owner is refused; demoting one of two is not", async () => {
		const a = await buildAccount(t.app);
		const b = await buildAccount(t.app);
		const ws = await workspace(a);
		const self = await call(
			a,
			"PATCH",
			`${C}/members/records/${await memberId(ws, a)}`,
			{ role: "admin" },
			ws,
		);
		assert.equal(self.statusCode, 409);
		assert.equal(self.json().code, "member_last_owner");
		await addMember(t.app, ws, b.accountId, "owner");
		assert.equal(
			(await call(a, "PATCH", `${C}/members/records/${await memberId(ws, a)}`, { role: "admin" }, ws))
				.statusCode,
			200,
		);
		assert.equal(await roleOf(ws, a), "admin");
		// The personal workspace's account stays its owner, even when another owner asks.
		await addMember(t.app, a.workspaceId, b.accountId, "owner");
		const personal = await call(
			b,
			"PATCH",
			`${C}/members/records/${await memberId(a.workspaceId, a)}`,
			{ role: "admin" },
			a.workspaceId,
		);
		assert.equal(personal.statusCode, 409);
		assert.equal(personal.json().code, "member_personal_owner");
	});
});

describe("handing over", () => {
	test("the member becomes owner and owner of record; the caller an admin", async () => {
		const a = await buildAccount(t.app);
		const b = await buildAccount(t.app);
		const ws = await workspace(a);
		await addMember(t.app, ws, b.accountId, "member");
		const res = await call(a, "POST", `/api/members/${await memberId(ws, b)}/hand-over`, undefined, ws);
		assert.equal(res.statusCode, 204, res.body);
		assert.equal(await roleOf(ws, b), "owner");
		assert.equal(await roleOf(ws, a), "admin");
		const row = await t.app.store.db
			.selectFrom("workspaces")
			.select("owner")
			.where("id", "=", ws)
			.executeTakeFirstOrThrow();
		assert.equal(row.owner, b.accountId);
		// a is an admin now: handing over again is refused, and a may leave.
		const again = await call(a, "POST", `/api/members/${await memberId(ws, b)}/hand-over`, undefined, ws);
		assert.equal(again.statusCode, 403);
		assert.equal((await call(a, "POST", `/api/workspaces/${ws}/leave`)).statusCode, 204);
	});

	test("refused: to yourself, in a personal workspace, another workspace's member, an API key", async () => {
		const a = await buildAccount(t.app);
		const b = await buildAccount(t.app);
		const ws = await workspace(a);
		await addMember(t.app, ws, b.accountId, "member");
		assert.equal(
			(await call(a, "POST", `/api/members/${await memberId(ws, a)}/hand-over`, undefined, ws)).json().code,
			"conflict",
		);
		await addMember(t.app, a.workspaceId, b.accountId, "member");
		const personal = await call(
			a,
			"POST",
			`/api/members/${await memberId(a.workspaceId, b)}/hand-over`,
			undefined,
			a.workspaceId,
		);
		assert.equal(personal.json().code, "member_personal_owner");
		const elsewhere = await call(
			a,
			"POST",
			`/api/members/${await memberId(ws, b)}/hand-over`,
			undefined,
			a.workspaceId,
		);
		assert.equal(elsewhere.statusCode, 404);
		const minted = await call(
			a,
			"POST",
			`${C}/apiKeys/records`,
			{ name: "k", permissions: ["members:write"] },
			ws,
		);
		const key = String(minted.headers["x-plain-token"]);
		const byKey = await t.app.inject({
			method: "POST",
			url: `/api/members/${await memberId(ws, b)}/hand-over`,
			headers: { "x-api-key": key },
		});
		assert.equal(byKey.statusCode, 401);
		assert.equal(await roleOf(ws, a), "owner");
	});
});

describe("removing", () => {
	test("removing a member revokes the keys they made for the workspace, not elsewhere", async () => {
		const owner = await buildAccount(t.app);
		const m = await buildAccount(t.app);
		const ws = await workspace(owner);
		await addMember(t.app, ws, m.accountId, "admin");
		await call(m, "POST", `${C}/apiKeys/records`, { name: "here", permissions: ["links:read"] }, ws);
		await call(
			m,
			"POST",
			`${C}/apiKeys/records`,
			{ name: "mine", permissions: ["links:read"] },
			m.workspaceId,
		);
		assert.equal(
			(await call(owner, "DELETE", `${C}/members/records/${await memberId(ws, m)}`, undefined, ws))
				.statusCode,
			204,
		);
		const keys = await t.app.store.db
			.selectFrom("api_keys")
			.select(["workspace"])
			.where("account", "=", m.accountId)
			.execute();
		assert.deepEqual(keys, [{ workspace: m.workspaceId }]);
	});

	test("removing a member ends the tools they connected there; a tool another member connected again stays", async () => {
		const owner = await buildAccount(t.app);
		const m = await buildAccount(t.app);
		const ws = await workspace(owner);
		await addMember(t.app, ws, m.accountId, "admin");
		const inWs = (who: TestAccount) => ({ ...who, headers: { ...who.headers, "x-workspace": ws } });
		const status = async (token: string) =>
			(await t.app.inject({ method: "GET", url: "/api/connection", headers: asTool(token) })).statusCode;

		const theirs = await connect(t.app, inWs(m), {
			clientId: "https://a.tool.example",
			redirectUri: "https://a.tool.example/back",
		});
		const elsewhere = await connect(t.app, m, {
			clientId: "https://a.tool.example",
			redirectUri: "https://a.tool.example/back",
		});
		const handedOn = await connect(t.app, inWs(m), {
			clientId: "https://c.tool.example",
			redirectUri: "https://c.tool.example/back",
		});
		const again = await connect(t.app, inWs(owner), {
			clientId: "https://c.tool.example",
			redirectUri: "https://c.tool.example/back",
		});
		assert.equal(again.connectionId, handedOn.connectionId, "one connection per tool in a workspace");
		for (const c of [theirs, elsewhere, handedOn, again]) assert.equal(await status(c.token), 200);

		assert.equal(
			(await call(owner, "DELETE", `${C}/members/records/${await memberId(ws, m)}`, undefined, ws))
				.statusCode,
			204,
		);
		const refused = await t.app.inject({
			method: "GET",
			url: "/api/connection",
			headers: asTool(theirs.token),
		});
		assert.equal(refused.statusCode, 401);
		assert.equal(refused.json().code, "connection_unauthorized");
		assert.equal(await status(elsewhere.token), 200, "their own workspace's tools stay");
		assert.equal(await status(handedOn.token), 200, "the owner connected it again: it is the owner's now");
		const listed = await call(owner, "GET", `${C}/connections/records`, undefined, ws);
		assert.deepEqual(
			listed.json().items.map((c: { clientId: string }) => c.clientId),
			["https://c.tool.example"],
		);
	});
});
