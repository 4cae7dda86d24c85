// Every role against the workspace, its members, invitations and API keys' reach, allowed and
// refused, in a workspace of two members and one of three. Expectations follow docs/api.md: owner
// and admin hold every permission, member all but members:write, attestations:issue and
// vault:hidden, viewer only the read permissions; nobody
// gives, changes or removes a role above their own; a workspace keeps an owner. The other
// collections' rows are in roles-collections.test.ts.
import { after, before } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import {
	above,
	C,
	forbidden,
	make,
	manages,
	memberId,
	needs,
	notOffered,
	ok,
	RANK,
	type Role,
	type Row,
	roleTable,
} from "./role-table.ts";

let t: TestApp;
before(async () => {
	t = await makeApp();
});
after(() => t.close());

const email = (what: string) => `inv-${what}-${Math.random().toString(36).slice(2)}@example.org`;

const rows: Row[] = [
	...["members", "invitations", "workspaces"].map(
		(name): Row => ({
			name: `list ${name}`,
			method: "GET",
			url: () => `${C}/${name}/records`,
			expect: () => ok,
		}),
	),
	{
		name: "view the other member",
		method: "GET",
		url: async (tm) => `${C}/members/records/${await memberId(t.app, tm, tm.other)}`,
		expect: () => ok,
	},
	{
		name: "add a member directly (members join through invitations)",
		method: "POST",
		url: () => `${C}/members/records`,
		body: (tm) => ({ account: tm.other.accountId, role: "member" }),
		expect: () => notOffered,
	},
	// API keys: a creator must hold every permission a key carries; members:write is above a member.
	{
		name: "mint a key with members:write",
		method: "POST",
		url: () => `${C}/apiKeys/records`,
		body: () => ({ name: "k", permissions: ["members:write"] }),
		expect: (r) => needs(manages(r)),
	},
	// Workspace: owners and admins rename; owners delete (last row).
	{
		name: "rename the workspace",
		method: "PATCH",
		url: (tm) => `${C}/workspaces/records/${tm.ws}`,
		body: () => ({ name: "Renamed" }),
		expect: (r) => needs(manages(r)),
	},
	// Invitations: members:write, never above your own role; revoked with DELETE; never edited.
	...(["viewer", "member", "admin", "owner"] as Role[]).map(
		(invited): Row => ({
			name: `invite as ${invited}`,
			method: "POST",
			url: () => `${C}/invitations/records`,
			body: () => ({ email: email(invited), role: invited }),
			expect: (r) => (!manages(r) ? forbidden : RANK[invited] > RANK[r] ? above : ok),
		}),
	),
	{
		name: "view an invitation",
		method: "GET",
		target: async (tm) => ({
			collection: "invitations",
			id: await make(t.app, tm, tm.owner, "invitations", { email: email("view"), role: "member" }),
			viewer: tm.owner,
		}),
		expect: () => ok,
	},
	{
		name: "edit an invitation",
		method: "PATCH",
		target: async (tm) => ({
			collection: "invitations",
			id: await make(t.app, tm, tm.owner, "invitations", { email: email("edit"), role: "member" }),
			viewer: tm.owner,
		}),
		body: () => ({ role: "admin" }),
		expect: () => notOffered,
	},
	{
		name: "revoke an invitation",
		method: "DELETE",
		target: async (tm) => ({
			collection: "invitations",
			id: await make(t.app, tm, tm.owner, "invitations", { email: email("revoke"), role: "member" }),
			viewer: tm.owner,
		}),
		expect: (r) => needs(manages(r)),
	},
	// Members: make the other member an owner (above an admin), an admin, then remove them. With
	// three members the other starts as a `member`; with two, for an admin or member, it is the owner.
	{
		name: "make the other member an owner",
		method: "PATCH",
		url: async (tm) => `${C}/members/records/${await memberId(t.app, tm, tm.other)}`,
		body: () => ({ role: "owner" }),
		expect: (r) => (!manages(r) ? forbidden : r !== "owner" ? above : ok),
		afterwards: (tm) => {
			tm.otherRole = "owner";
		},
	},
	{
		// After the row above an owner demotes one of two owners: no last-owner refusal.
		name: "make the other member an admin",
		method: "PATCH",
		url: async (tm) => `${C}/members/records/${await memberId(t.app, tm, tm.other)}`,
		body: () => ({ role: "admin" }),
		expect: (r, tm) => (!manages(r) ? forbidden : RANK[tm.otherRole] > RANK[r] ? above : ok),
		afterwards: (tm) => {
			tm.otherRole = "admin";
		},
	},
	{
		name: "remove the other member",
		method: "DELETE",
		url: async (tm) => `${C}/members/records/${await memberId(t.app, tm, tm.other)}`,
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

roleTable(() => t.app, rows);
