// The role scenario table's runner: every row runs as an owner, an admin, a member and a viewer, in a
// workspace of two members and one of three. Expectations come from docs/api.md ("Permission
// catalogue", the collections' Access lines, "Members and invitations"), never from what the
// server answered. A refused row that names a target also checks the target did not change.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { App } from "../../src/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";

export type Role = "owner" | "admin" | "member" | "viewer";
type Method = "GET" | "POST" | "PATCH" | "DELETE";
export const C = "/api/collections";

export interface Team {
	ws: string;
	/** The actor's role. */
	role: Role;
	owner: TestAccount;
	actor: TestAccount;
	/** A member-role third person (three members, or the owner's team of two), else the owner. */
	other: TestAccount;
	otherRole: Role;
	/** Someone in the workspace who is not the actor: the owner, or `other` when the actor owns it. */
	peer: TestAccount;
}

/** A workspace with its owner and the actor in `role`; with three members a plain `member` too. */
async function team(app: App, role: Role, size: 2 | 3): Promise<Team> {
	const owner = await buildAccount(app, { name: "Owner" });
	const made = await call(app, owner, "POST", `${C}/workspaces/records`, "making the workspace", {
		name: `Team ${role} ${size}`,
	});
	const ws = made.id as string;
	let actor = owner;
	if (role !== "owner") {
		actor = await buildAccount(app, { name: `Actor ${role}` });
		await addMember(app, ws, actor.accountId, role);
	}
	let other: TestAccount;
	let otherRole: Role;
	if (size === 3 || role === "owner") {
		other = await buildAccount(app, { name: "Third" });
		await addMember(app, ws, other.accountId, "member");
		otherRole = "member";
		if (size === 3 && role === "owner") {
			const extra = await buildAccount(app, { name: "Admin" });
			await addMember(app, ws, extra.accountId, "admin");
		}
	} else {
		other = owner;
		otherRole = "owner";
	}
	return { ws, role, owner, actor, other, otherRole, peer: role === "owner" ? other : owner };
}

/** A set-up call that must succeed (the second argument names it in a failure); answers the body. */
async function call(
	app: App,
	who: TestAccount,
	method: Method,
	url: string,
	what: string,
	payload?: unknown,
	ws?: string,
) {
	const res = await app.inject({
		method,
		url,
		headers: { ...who.headers, ...(ws ? { "x-workspace": ws } : {}) },
		...(payload === undefined ? {} : { payload: payload as object }),
	});
	assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${what}: ${res.statusCode} ${res.body}`);
	return res.statusCode === 204 ? {} : res.json();
}

/** `who` makes a record of `collection` in the team's workspace; answers its id. */
export async function make(app: App, tm: Team, who: TestAccount, collection: string, body: unknown) {
	return (await call(app, who, "POST", `${C}/${collection}/records`, `making ${collection}`, body, tm.ws))
		.id as string;
}

export const RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };
/** Who changes the workspace's vault, shares, requests and templates: every role but a viewer. */
export const writes = (r: Role) => r !== "viewer";
/** Who sees hidden vault entries: owners and admins. */
export const seesHidden = (r: Role) => r === "owner" || r === "admin";
export const manages = (r: Role) => r === "owner" || r === "admin";

export type Want = { ok: true } | { status: number; code: string };
export const ok = { ok: true } as const;
export const forbidden = { status: 403, code: "forbidden" };
export const above = { status: 403, code: "member_role_above_own" };
export const notFound = { status: 404, code: "not_found" };
export const notOffered = { status: 405, code: "method_not_allowed" };
export const needs = (allowed: boolean): Want => (allowed ? ok : forbidden);

/** A record the row acts on, and who can view it to see whether a refusal changed it. */
export interface Target {
	collection: string;
	id: string;
	viewer: TestAccount;
}

export interface Row {
	name: string;
	method: Method;
	/** The URL; by default the target's record. */
	url?: (tm: Team) => string | Promise<string>;
	target?: (tm: Team) => Promise<Target>;
	body?: (tm: Team) => unknown | Promise<unknown>;
	expect: (role: Role, tm: Team) => Want;
	/** What an allowed row changed in the team (a role). */
	afterwards?: (tm: Team) => void;
}

export async function memberId(app: App, tm: Team, who: TestAccount): Promise<string> {
	const row = await app.store.db
		.selectFrom("members")
		.select("id")
		.where("workspace", "=", tm.ws)
		.where("account", "=", who.accountId)
		.executeTakeFirstOrThrow();
	return row.id;
}

async function view(app: App, tm: Team, target: Target) {
	const res = await app.inject({
		method: "GET",
		url: `${C}/${target.collection}/records/${target.id}`,
		headers: { ...target.viewer.headers, "x-workspace": tm.ws },
	});
	return { status: res.statusCode, body: res.body };
}

/** One describe per role and team size, one test per row, in order. */
export function roleTable(getApp: () => App, rows: Row[]): void {
	for (const size of [2, 3] as const) {
		for (const role of ["owner", "admin", "member", "viewer"] as Role[]) {
			describe(`${role} in a workspace of ${size}`, () => {
				let tm: Team;
				before(async () => {
					tm = await team(getApp(), role, size);
				});
				for (const row of rows) {
					test(row.name, async () => {
						const app = getApp();
						const target = await row.target?.(tm);
						const url = row.url ? await row.url(tm) : `${C}/${target?.collection}/records/${target?.id}`;
						const was = target ? await view(app, tm, target) : undefined;
						const res = await app.inject({
							method: row.method,
							url,
							headers: { ...tm.actor.headers, "x-workspace": tm.ws },
							...(row.body ? { payload: (await row.body(tm)) as object } : {}),
						});
						const want = row.expect(role, tm);
						if ("ok" in want) {
							assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${res.statusCode} ${res.body}`);
							row.afterwards?.(tm);
							return;
						}
						assert.equal(res.statusCode, want.status, res.body);
						assert.equal(res.json().code, want.code, res.body);
						// A refused request changes nothing.
						if (target && was) assert.deepEqual(await view(app, tm, target), was);
					});
				}
			});
		}
	}
}
