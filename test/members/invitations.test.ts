// Invitations: a one-time link with a role, refused with its own code once revoked, used or
// expired; never a role above the inviter's; joining twice refused; two accounts accepting at once:
// one joins. Signing up with a passkey from the link creates the account inside the workspace.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";

const INV = "/api/collections/invitations/records";
const MEMBERS = "/api/collections/members/records";
const DAY = 24 * 60 * 60 * 1000;

let t: TestApp;
const clock = new ManualClock(Date.parse("2026-03-01T10:00:00Z"));
let owner: TestAccount;
let admin: TestAccount;
let member: TestAccount;
let ws: string;

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const call = (who: TestAccount | undefined, method: Method, url: string, payload?: unknown, workspace = ws) =>
	t.app.inject({
		method,
		url,
		headers: who ? { ...who.headers, "x-workspace": workspace } : {},
		...(payload === undefined ? {} : { payload: payload as object }),
	});

async function invite(who: TestAccount, email: string, role: string) {
	const res = await call(who, "POST", INV, { email, role });
	assert.equal(res.statusCode, 200, res.body);
	const url = String(res.headers["x-invitation-url"]);
	const token = String(res.headers["x-plain-token"]);
	assert.equal(url, `${new URL(url).origin}/app/invite#${token}`);
	return { id: res.json().id as string, token, record: res.json() };
}

const accept = (who: TestAccount, token: string) =>
	t.app.inject({ method: "POST", url: "/api/invitations/accept", headers: who.headers, payload: { token } });

before(async () => {
	t = await makeApp({}, { clock });
	owner = await buildAccount(t.app, { name: "Olivia" });
	admin = await buildAccount(t.app, { name: "Adam" });
	member = await buildAccount(t.app, { name: "Mia" });
	const res = await call(
		owner,
		"POST",
		"/api/collections/workspaces/records",
		{ name: "Team" },
		owner.workspaceId,
	);
	ws = res.json().id;
	await addMember(t.app, ws, admin.accountId, "admin");
	await addMember(t.app, ws, member.accountId, "member");
});
after(() => t.close());

describe("inviting", () => {
	test("the link is shown once; the record never carries the token or its hash", async () => {
		const { token, record } = await invite(owner, "  New.Person@Example.org ", "member");
		assert.equal(record.email, "new.person@example.org");
		assert.equal(record.status, "open");
		assert.equal(record.invitedByName, "Olivia");
		assert.equal(record.expiresAt, new Date(clock.now() + 7 * DAY).toISOString());
		const list = await call(owner, "GET", INV);
		assert.ok(!list.body.includes(token));
		assert.ok(!/token|hash/i.test(Object.keys(record).join(",")));
	});

	test("a role above the inviter's own is refused; an admin invites admins and members", async () => {
		const res = await call(admin, "POST", INV, { email: "boss@example.org", role: "owner" });
		assert.equal(res.statusCode, 403);
		assert.equal(res.json().code, "member_role_above_own");
		assert.equal(
			(await call(admin, "POST", INV, { email: "peer@example.org", role: "admin" })).statusCode,
			200,
		);
	});

	test("a member (no members:write) cannot invite; an owner can invite an owner", async () => {
		const res = await call(member, "POST", INV, { email: "x@example.org", role: "member" });
		assert.equal(res.statusCode, 403);
		assert.equal(res.json().code, "forbidden");
		assert.equal(res.json().scope, "member:write");
		assert.equal(
			(await call(owner, "POST", INV, { email: "co@example.org", role: "owner" })).statusCode,
			200,
		);
	});

	test("bad input is refused and writes nothing", async () => {
		const before = (await call(owner, "GET", INV)).json().totalItems;
		for (const body of [
			{ email: "not-an-email", role: "member" },
			{ email: "a@example.org", role: "root" },
			{ email: "a@example.org" },
			{ email: "a@example.org", role: "member", extra: 1 },
			{ email: 5, role: "member" },
		]) {
			const res = await call(owner, "POST", INV, body);
			assert.equal(res.statusCode, 400, res.body);
			assert.equal(res.json().code, "validation_failed");
		}
		assert.equal((await call(owner, "GET", INV)).json().totalItems, before);
	});

	test("an email that is already a member's is member_exists", async () => {
		const res = await call(owner, "POST", INV, { email: member.email, role: "member" });
		assert.equal(res.statusCode, 409);
		assert.equal(res.json().code, "member_exists");
	});

	test("another workspace's invitation answers 404; an invitation cannot be edited", async () => {
		const { id } = await invite(owner, "edit@example.org", "member");
		assert.equal((await call(owner, "GET", `${INV}/${id}`, undefined, owner.workspaceId)).statusCode, 404);
		assert.equal((await call(owner, "PATCH", `${INV}/${id}`, { role: "admin" })).statusCode, 405);
	});
});

describe("accepting", () => {
	test("preview names the workspace and role; accepting joins with that role", async () => {
		const { token } = await invite(admin, "joiner@example.org", "admin");
		const preview = await t.app.inject({
			method: "POST",
			url: "/api/invitations/preview",
			payload: { token },
		});
		assert.equal(preview.statusCode, 200, preview.body);
		assert.deepEqual(preview.json().workspace, { id: ws, name: "Team" });
		assert.equal(preview.json().role, "admin");
		assert.equal(preview.json().invitedBy, "Adam");
		const joiner = await buildAccount(t.app);
		const res = await accept(joiner, token);
		assert.equal(res.statusCode, 200, res.body);
		assert.deepEqual(res.json(), { workspace: ws, role: "admin" });
		const me = await call(joiner, "GET", "/api/auth/me");
		assert.equal(me.statusCode, 200);
		assert.deepEqual(me.json().scopes.includes("member:*"), true);
		// Spent: the same link again, by anyone, is invitation_used; no longer listed.
		const again = await accept(await buildAccount(t.app), token);
		assert.equal(again.statusCode, 410);
		assert.equal(again.json().code, "invitation_used");
		assert.ok(!(await call(owner, "GET", INV)).body.includes("joiner@example.org"));
	});

	test("joining twice: member_exists and the invitation stays open", async () => {
		const { token } = await invite(owner, "twice@example.org", "member");
		const res = await accept(member, token);
		assert.equal(res.statusCode, 409);
		assert.equal(res.json().code, "member_exists");
		const preview = await t.app.inject({
			method: "POST",
			url: "/api/invitations/preview",
			payload: { token },
		});
		assert.equal(preview.statusCode, 200);
	});

	test("revoked: invitation_revoked; unknown: invitation_invalid; both change nothing", async () => {
		const { id, token } = await invite(owner, "revoked@example.org", "member");
		assert.equal((await call(owner, "DELETE", `${INV}/${id}`)).statusCode, 204);
		const someone = await buildAccount(t.app);
		const res = await accept(someone, token);
		assert.equal(res.statusCode, 410);
		assert.equal(res.json().code, "invitation_revoked");
		const unknown = await accept(someone, "x".repeat(43));
		assert.equal(unknown.statusCode, 404);
		assert.equal(unknown.json().code, "invitation_invalid");
		const members = (await call(owner, "GET", MEMBERS)).json().items as { account: string }[];
		assert.ok(!members.some((m) => m.account === someone.accountId));
		assert.equal((await call(owner, "DELETE", `${INV}/${id}`)).statusCode, 404);
	});

	test("expiry: works at exp-1, refused at exp and after (listed as expired until revoked)", async () => {
		const { id, token } = await invite(owner, "late@example.org", "member");
		const start = clock.now();
		const a1 = await buildAccount(t.app);
		clock.set(start + 7 * DAY);
		const atExp = await accept(a1, token);
		assert.equal(atExp.statusCode, 410);
		assert.equal(atExp.json().code, "invitation_expired");
		clock.set(start + 7 * DAY + 1);
		assert.equal((await accept(a1, token)).json().code, "invitation_expired");
		const listed = (await call(owner, "GET", `${INV}/${id}`)).json();
		assert.equal(listed.status, "expired");
		clock.set(start + 7 * DAY - 1);
		assert.equal((await accept(a1, token)).statusCode, 200);
		clock.set(start);
	});

	test("malformed bodies and no session", async () => {
		for (const payload of [{}, { token: 5 }, { token: "" }, { token: "a", more: 1 }]) {
			const res = await t.app.inject({
				method: "POST",
				url: "/api/invitations/accept",
				headers: member.headers,
				payload,
			});
			assert.equal(res.statusCode, 400, res.body);
		}
		const { token } = await invite(owner, "guest@example.org", "member");
		const guest = await t.app.inject({ method: "POST", url: "/api/invitations/accept", payload: { token } });
		assert.equal(guest.statusCode, 401);
		assert.equal(guest.json().code, "not_authenticated");
	});

	test("two accounts accepting the same invitation at once: one joins", async () => {
		for (let round = 0; round < 5; round++) {
			const { token } = await invite(owner, `race${round}@example.org`, "member");
			const racers = await Promise.all([1, 2, 3].map(() => buildAccount(t.app)));
			const results = await Promise.all(racers.map((r) => accept(r, token)));
			const codes = results.map((r) => r.statusCode).sort();
			assert.deepEqual(codes, [200, 410, 410], results.map((r) => r.body).join("\n"));
			const joined = await t.app.store.db
				.selectFrom("members")
				.select("account")
				.where("workspace", "=", ws)
				.where(
					"account",
					"in",
					racers.map((r) => r.accountId),
				)
				.execute();
			assert.equal(joined.length, 1);
		}
	});
});

describe("signing up from an invitation", () => {
	test("a passkey sign-up for the invitation's email joins, even with sign-ups off", async () => {
		assert.equal(t.app.config.allowSignups, false);
		const { token } = await invite(owner, "fresh@example.org", "member");
		const client = new PasskeyClient(t.app);
		const { token: session, record } = await client.signup("ignored@example.org", { invitation: token });
		assert.equal(record.email, "fresh@example.org");
		const me = await t.app.inject({
			method: "GET",
			url: "/api/auth/me",
			headers: { authorization: `Bearer ${session}`, "x-workspace": ws },
		});
		assert.equal(me.statusCode, 200, me.body);
		assert.equal(me.json().workspace, ws);
		const again = await new PasskeyClient(t.app).post("/api/passkeys/register/begin", { invitation: token });
		assert.equal(again.statusCode, 410);
		assert.equal(again.json().code, "invitation_used");
	});

	test("revoked between begin and finish: nothing is created", async () => {
		const { id, token } = await invite(owner, "between@example.org", "member");
		const client = new PasskeyClient(t.app);
		const begun = await client.registerBegin({ invitation: token });
		await call(owner, "DELETE", `${INV}/${id}`);
		const { response } = client.authenticator.create(begun.options);
		const res = await client.post("/api/passkeys/register/finish", {
			session: begun.session,
			credential: response,
		});
		assert.equal(res.statusCode, 410);
		assert.equal(res.json().code, "invitation_revoked");
		const acct = await t.app.store.db
			.selectFrom("accounts")
			.select("id")
			.where("email", "=", "between@example.org")
			.execute();
		assert.equal(acct.length, 0);
	});

	test("an invitation for an email that has an account: sign in and accept instead", async () => {
		const other = await buildAccount(t.app, { email: "has-account@example.org" });
		const { token } = await invite(owner, other.email, "member");
		const res = await new PasskeyClient(t.app).post("/api/passkeys/register/begin", { invitation: token });
		assert.equal(res.statusCode, 409);
		assert.equal(res.json().code, "passkey_email_taken");
		assert.equal((await accept(other, token)).statusCode, 200);
	});
});
