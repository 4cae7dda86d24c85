// Every role against every collection and action, allowed and refused, in a workspace of two
// members and one of three. The expectation of each row is derived from the role rules written in
// docs/api.md (owner and admin hold every permission, member all but members:write and
// attestations:issue; nobody acts on a role above their own; a workspace keeps an owner), not
// from what the server answered.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";

type Role = "owner" | "admin" | "member";
type Method = "GET" | "POST" | "PATCH" | "DELETE";
const C = "/api/collections";

let t: TestApp;
before(async () => {
	t = await makeApp();
});
after(() => t.close());

interface Team {
	ws: string;
	owner: TestAccount;
	actor: TestAccount;
	/** A member-role third person (three members), else the other one of the two. */
	other: TestAccount;
	otherRole: Role;
}

/** A workspace with its owner and the actor in `role`; with three members a plain `member` too. */
async function team(role: Role, size: 2 | 3): Promise<Team> {
	const owner = await buildAccount(t.app, { name: "Owner" });
	const made = await t.app.inject({
		method: "POST",
		url: `${C}/workspaces/records`,
		headers: owner.headers,
		payload: { name: `Team ${role} ${size}` },
	});
	const ws = made.json().id as string;
	let actor = owner;
	if (role !== "owner") {
		actor = await buildAccount(t.app, { name: `Actor ${role}` });
		await addMember(t.app, ws, actor.accountId, role);
	}
	let other: TestAccount;
	let otherRole: Role;
	if (size === 3 || role === "owner") {
		other = await buildAccount(t.app, { name: "Third" });
		await addMember(t.app, ws, other.accountId, "member");
		otherRole = "member";
		if (size === 3 && role === "owner") {
			const extra = await buildAccount(t.app, { name: "Admin" });
			await addMember(t.app, ws, extra.accountId, "admin");
		}
	} else {
		other = owner;
		otherRole = "owner";
	}
	return { ws, owner, actor, other, otherRole };
}

const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };
const manages = (r: Role) => r === "owner" || r === "admin";

interface Row {
	name: string;
	method: Method;
	url: (tm: Team) => string | Promise<string>;
	body?: (tm: Team) => unknown;
	/** 2xx when allowed; else the code. */
	expect: (role: Role, tm: Team) => { ok: true } | { status: number; code: string };
}

const ok = { ok: true } as const;
const forbidden = { status: 403, code: "forbidden" };
const above = { status: 403, code: "member_role_above_own" };
const needs = (allowed: boolean) => (allowed ? ok : forbidden);

async function memberId(tm: Team, who: TestAccount): Promise<string> {
	const row = await t.app.store.db
		.selectFrom("members")
		.select("id")
		.where("workspace", "=", tm.ws)
		.where("account", "=", who.accountId)
		.executeTakeFirstOrThrow();
	return row.id;
}

const items = [{ key: "name", label: "Name", type: "text", required: true }];

const rows: Row[] = [
	// Reading: every role reads every workspace collection.
	...[
		"records",
		"sections",
		"templates",
		"links",
		"requests",
		"members",
		"invitations",
		"identities",
		"notifications",
		"apiKeys",
		"linkReads",
	].map(
		(name): Row => ({
			name: `list ${name}`,
			method: "GET",
			url: () => `${C}/${name}/records`,
			expect: () => ok,
		}),
	),
	// Writing the vault, shares, requests, templates: every role (member holds them).
	{
		name: "create a record",
		method: "POST",
		url: () => `${C}/records/records`,
		body: () => ({ key: "k", value: "v" }),
		expect: () => ok,
	},
	{
		name: "create a section",
		method: "POST",
		url: () => `${C}/sections/records`,
		body: () => ({ key: "s", name: "S" }),
		expect: () => ok,
	},
	{
		name: "create a template",
		method: "POST",
		url: () => `${C}/templates/records`,
		body: () => ({ name: "T", items }),
		expect: () => ok,
	},
	{
		name: "create a share",
		method: "POST",
		url: () => `${C}/links/records`,
		body: () => ({ label: "L" }),
		expect: () => ok,
	},
	{
		name: "create a request",
		method: "POST",
		url: () => `${C}/requests/records`,
		body: () => ({ label: "R", items }),
		expect: () => ok,
	},
	// API keys: anyone mints within their role; members:write is above a member.
	{
		name: "mint a key with links:read",
		method: "POST",
		url: () => `${C}/apiKeys/records`,
		body: () => ({ name: "k", permissions: ["links:read"] }),
		expect: () => ok,
	},
	{
		name: "mint a key with members:write",
		method: "POST",
		url: () => `${C}/apiKeys/records`,
		body: () => ({ name: "k", permissions: ["members:write"] }),
		expect: (r) => needs(manages(r)),
	},
	// Workspace: owners and admins rename; owners delete.
	{
		name: "rename the workspace",
		method: "PATCH",
		url: (tm) => `${C}/workspaces/records/${tm.ws}`,
		body: () => ({ name: "Renamed" }),
		expect: (r) => needs(manages(r)),
	},
	// Invitations: members:write, never above your own role.
	...(["member", "admin", "owner"] as Role[]).map(
		(invited): Row => ({
			name: `invite as ${invited}`,
			method: "POST",
			url: () => `${C}/invitations/records`,
			body: () => ({
				email: `inv-${invited}-${Math.random().toString(36).slice(2)}@example.org`,
				role: invited,
			}),
			expect: (r) => (!manages(r) ? forbidden : RANK[invited] > RANK[r] ? above : ok),
		}),
	),
	// Members: change the other's role to admin, then remove them.
	{
		name: "make the other member an admin",
		method: "PATCH",
		url: async (tm) => `${C}/members/records/${await memberId(tm, tm.other)}`,
		body: () => ({ role: "admin" }),
		expect: (r, tm) =>
			!manages(r)
				? forbidden
				: RANK[tm.otherRole] > RANK[r]
					? above
					: tm.otherRole === "owner"
						? { status: 409, code: "member_last_owner" }
						: ok,
	},
	{
		name: "remove the other member",
		method: "DELETE",
		url: async (tm) => `${C}/members/records/${await memberId(tm, tm.other)}`,
		expect: (r, tm) => (!manages(r) ? forbidden : RANK[tm.otherRole] > RANK[r] ? above : ok),
	},
	// Deleting the workspace last: owners only.
	{
		name: "delete the workspace",
		method: "DELETE",
		url: (tm) => `${C}/workspaces/records/${tm.ws}`,
		expect: (r) => needs(r === "owner"),
	},
];

for (const size of [2, 3] as const) {
	for (const role of ["owner", "admin", "member"] as Role[]) {
		describe(`${role} in a workspace of ${size}`, () => {
			let tm: Team;
			before(async () => {
				tm = await team(role, size);
			});
			for (const row of rows) {
				test(row.name, async () => {
					const res = await t.app.inject({
						method: row.method,
						url: await row.url(tm),
						headers: { ...tm.actor.headers, "x-workspace": tm.ws },
						...(row.body ? { payload: row.body(tm) as object } : {}),
					});
					const want = row.expect(role, tm);
					if ("ok" in want) {
						assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${res.statusCode} ${res.body}`);
					} else {
						assert.equal(res.statusCode, want.status, res.body);
						assert.equal(res.json().code, want.code, res.body);
					}
				});
			}
		});
	}
}
