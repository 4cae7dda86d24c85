// An invitation carries only the authority its inviter still has when it is redeemed (issue 35.2):
// an admin removed, demoted or deleted cannot come back, nor let anyone else in, with a spare
// invitation they minted. Refused as 410 `invitation_revoked` at preview, accept and a passkey
// sign-up from the link; the invitation works again only if the inviter is given the role back.
// Two apps on one database (a second node): the removal on one, the redemption on the other.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type App, buildApp } from "../../src/app.ts";
import { deleteAccount } from "../../src/features/accounts/deletion.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";

const INV = "/api/collections/invitations/records";
const MEMBERS = "/api/collections/members/records";

let t: TestApp;
/** A second node on the same database. */
let other: App;
let owner: TestAccount;
let ws: string;

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const call = (app: App, who: TestAccount, method: Method, url: string, payload?: unknown) =>
	app.inject({
		method,
		url,
		headers: { ...who.headers, "x-workspace": ws },
		...(payload === undefined ? {} : { payload: payload as object }),
	});

async function invite(who: TestAccount, email: string, role: string): Promise<string> {
	const res = await call(t.app, who, "POST", INV, { email, role });
	assert.equal(res.statusCode, 200, res.body);
	return String(res.headers["x-plain-token"]);
}

const accept = (app: App, who: TestAccount, token: string) =>
	app.inject({ method: "POST", url: "/api/invitations/accept", headers: who.headers, payload: { token } });
const preview = (app: App, token: string) =>
	app.inject({ method: "POST", url: "/api/invitations/preview", payload: { token } });

async function memberId(account: string): Promise<string> {
	const items = (await call(t.app, owner, "GET", MEMBERS)).json().items as { id: string; account: string }[];
	const found = items.find((m) => m.account === account);
	assert.ok(found, `no member ${account}`);
	return found.id;
}

async function isMember(account: string): Promise<boolean> {
	const row = await t.app.store.db
		.selectFrom("members")
		.select("id")
		.where("workspace", "=", ws)
		.where("account", "=", account)
		.executeTakeFirst();
	return row !== undefined;
}

function assertRevoked(res: { statusCode: number; json(): { code: string } }) {
	assert.equal(res.statusCode, 410);
	assert.equal(res.json().code, "invitation_revoked");
}

before(async () => {
	t = await makeApp();
	other = await buildApp(t.env.config);
	owner = await buildAccount(t.app, { name: "Olivia" });
	const res = await t.app.inject({
		method: "POST",
		url: "/api/collections/workspaces/records",
		headers: owner.headers,
		payload: { name: "Team" },
	});
	ws = res.json().id;
});
after(async () => {
	await other.close();
	await t.close();
});

describe("the inviter's current role is checked when the invitation is redeemed", () => {
	test("a removed admin's spare invitation lets nobody in, themselves included", async () => {
		const admin = await buildAccount(t.app);
		await addMember(t.app, ws, admin.accountId, "admin");
		const forSelf = await invite(admin, "spare@example.org", "admin");
		const forFriend = await invite(admin, "friend@example.org", "member");
		// Removed on the other node.
		assert.equal(
			(await call(other, owner, "DELETE", `${MEMBERS}/${await memberId(admin.accountId)}`)).statusCode,
			204,
		);
		assertRevoked(await preview(t.app, forSelf));
		assertRevoked(await accept(t.app, admin, forSelf));
		const friend = await buildAccount(t.app);
		assertRevoked(await accept(t.app, friend, forFriend));
		assert.equal(await isMember(admin.accountId), false);
		assert.equal(await isMember(friend.accountId), false);
		// Refused, not spent: it stays open, and works again only if the inviter is an admin again.
		await addMember(t.app, ws, admin.accountId, "admin");
		const back = await accept(other, friend, forFriend);
		assert.equal(back.statusCode, 200, back.body);
		assert.deepEqual(back.json(), { workspace: ws, role: "member" });
	});

	test("a demoted admin's invitations are refused; a demoted owner's only above their new role", async () => {
		const admin = await buildAccount(t.app);
		await addMember(t.app, ws, admin.accountId, "admin");
		const token = await invite(admin, "late-admin@example.org", "admin");
		const patch = await call(other, owner, "PATCH", `${MEMBERS}/${await memberId(admin.accountId)}`, {
			role: "member",
		});
		assert.equal(patch.statusCode, 200, patch.body);
		const joiner = await buildAccount(t.app);
		assertRevoked(await accept(t.app, joiner, token));
		assert.equal(await isMember(joiner.accountId), false);

		const coOwner = await buildAccount(t.app);
		await addMember(t.app, ws, coOwner.accountId, "owner");
		const asOwner = await invite(coOwner, "as-owner@example.org", "owner");
		const asAdmin = await invite(coOwner, "as-admin@example.org", "admin");
		await call(other, owner, "PATCH", `${MEMBERS}/${await memberId(coOwner.accountId)}`, { role: "admin" });
		const first = await buildAccount(t.app);
		assertRevoked(await accept(t.app, first, asOwner));
		assert.equal(await isMember(first.accountId), false);
		const second = await buildAccount(t.app);
		const ok = await accept(t.app, second, asAdmin);
		assert.equal(ok.statusCode, 200, ok.body);
		assert.equal(ok.json().role, "admin");
	});

	test("an admin who deleted their account: the invitation is refused", async () => {
		const admin = await buildAccount(t.app);
		await addMember(t.app, ws, admin.accountId, "admin");
		const token = await invite(admin, "orphan@example.org", "member");
		await deleteAccount(
			{ db: other.store.db, blobs: other.blobs, hooks: other.workspaceHooks },
			admin.accountId,
			Date.now(),
		);
		const joiner = await buildAccount(t.app);
		assertRevoked(await accept(t.app, joiner, token));
		assert.equal(await isMember(joiner.accountId), false);
	});

	test("an admin who left: a passkey sign-up from the link is refused and creates nothing", async () => {
		const admin = await buildAccount(t.app);
		await addMember(t.app, ws, admin.accountId, "admin");
		const token = await invite(admin, "signup-after@example.org", "member");
		const left = await other.inject({
			method: "POST",
			url: `/api/workspaces/${ws}/leave`,
			headers: admin.headers,
		});
		assert.equal(left.statusCode, 204, left.body);
		const res = await new PasskeyClient(t.app).post("/api/passkeys/register/begin", { invitation: token });
		assertRevoked(res);
		const acct = await t.app.store.db
			.selectFrom("accounts")
			.select("id")
			.where("email", "=", "signup-after@example.org")
			.execute();
		assert.equal(acct.length, 0);
	});

	test("demoted between a sign-up's begin and finish: nothing is created", async () => {
		const admin = await buildAccount(t.app);
		await addMember(t.app, ws, admin.accountId, "admin");
		const token = await invite(admin, "between-demote@example.org", "member");
		const client = new PasskeyClient(t.app);
		const begun = await client.registerBegin({ invitation: token });
		await call(other, owner, "PATCH", `${MEMBERS}/${await memberId(admin.accountId)}`, { role: "member" });
		const { response } = client.authenticator.create(begun.options);
		const res = await client.post("/api/passkeys/register/finish", {
			session: begun.session,
			credential: response,
		});
		assertRevoked(res);
		const acct = await t.app.store.db
			.selectFrom("accounts")
			.select("id")
			.where("email", "=", "between-demote@example.org")
			.execute();
		assert.equal(acct.length, 0);
	});
});
