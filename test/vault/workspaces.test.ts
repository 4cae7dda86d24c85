// Workspaces and members: creation, renaming, the roles that may change what, and deletion that
// takes everything the workspace holds in one transaction (or nothing at all).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Transaction } from "kysely";
import type { Database } from "../../src/db/schema.ts";
import { createNotification } from "../../src/features/notifications/service.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";

const WS = "/api/collections/workspaces/records";
const MEMBERS = "/api/collections/members/records";

let t: TestApp;
let owner: TestAccount;

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const call = (who: TestAccount, method: Method, url: string, payload?: unknown, workspace?: string) =>
	t.app.inject({
		method,
		url,
		headers: { ...who.headers, ...(workspace ? { "x-workspace": workspace } : {}) },
		...(payload === undefined ? {} : { payload: payload as object }),
	});

async function newWorkspace(who: TestAccount, name: string): Promise<string> {
	const res = await call(who, "POST", WS, { name });
	assert.equal(res.statusCode, 200, res.body);
	return res.json().id as string;
}

async function rowsOf(workspace: string): Promise<Record<string, number>> {
	const db = t.app.store.db;
	const n = async (
		table: "records" | "sections" | "templates" | "notifications" | "file_tokens" | "members",
	) =>
		Number(
			(
				await db
					.selectFrom(table)
					.select((eb) => eb.fn.countAll<number>().as("n"))
					.where("workspace", "=", workspace)
					.executeTakeFirstOrThrow()
			).n,
		);
	const ws = await db.selectFrom("workspaces").select("id").where("id", "=", workspace).execute();
	return {
		workspaces: ws.length,
		records: await n("records"),
		sections: await n("sections"),
		templates: await n("templates"),
		notifications: await n("notifications"),
		file_tokens: await n("file_tokens"),
		members: await n("members"),
	};
}

async function blobCount(): Promise<number> {
	let n = 0;
	for await (const _ of t.app.blobs.list()) n++;
	return n;
}

before(async () => {
	t = await makeApp();
	owner = await buildAccount(t.app, { name: "Olivia" });
});
after(() => t.close());

describe("workspaces", () => {
	test("create makes a workspace with the caller as owner", async () => {
		const id = await newWorkspace(owner, "  Family  ");
		const res = await call(owner, "GET", `${WS}/${id}`);
		const w = res.json();
		assert.equal(w.name, "Family");
		assert.equal(w.owner, owner.accountId);
		assert.equal(w.role, "owner");
		assert.equal(w.personal, false);
		assert.equal(w.active, false);
		assert.equal((await call(owner, "GET", `${WS}/${id}`, undefined, id)).json().active, true);
	});

	test("the list holds the caller's workspaces only", async () => {
		const other = await buildAccount(t.app);
		const mine = (await call(owner, "GET", `${WS}?perPage=500`))
			.json()
			.items.map((w: { id: string }) => w.id);
		assert.ok(mine.includes(owner.workspaceId));
		assert.ok(!mine.includes(other.workspaceId));
		const personal = await call(owner, "GET", `${WS}?filter=${encodeURIComponent("personal = true")}`);
		assert.deepEqual(
			personal.json().items.map((w: { id: string }) => w.id),
			[owner.workspaceId],
		);
	});

	test("owners and admins rename; members may not", async () => {
		const id = await newWorkspace(owner, "Club");
		const admin = await buildAccount(t.app);
		const member = await buildAccount(t.app);
		await addMember(t.app, id, admin.accountId, "admin");
		await addMember(t.app, id, member.accountId, "member");
		assert.equal((await call(owner, "PATCH", `${WS}/${id}`, { name: "Club 2" })).json().name, "Club 2");
		assert.equal((await call(admin, "PATCH", `${WS}/${id}`, { name: "Club 3" })).json().name, "Club 3");
		const refused = await call(member, "PATCH", `${WS}/${id}`, { name: "Mine now" });
		assert.equal(refused.statusCode, 403);
		assert.equal(refused.json().code, "forbidden");
		assert.equal((await call(owner, "GET", `${WS}/${id}`)).json().name, "Club 3");
		const blank = await call(owner, "PATCH", `${WS}/${id}`, { name: "  " });
		assert.equal(blank.statusCode, 400);
	});

	test("a personal workspace is deleted only with its account", async () => {
		const res = await call(owner, "DELETE", `${WS}/${owner.workspaceId}`);
		assert.equal(res.statusCode, 409);
		assert.equal(res.json().code, "workspace_personal");
		assert.equal((await rowsOf(owner.workspaceId)).workspaces, 1);
	});

	test("only the owner deletes a workspace", async () => {
		const id = await newWorkspace(owner, "Shared");
		const admin = await buildAccount(t.app);
		await addMember(t.app, id, admin.accountId, "admin");
		const res = await call(admin, "DELETE", `${WS}/${id}`);
		assert.equal(res.statusCode, 403);
		assert.equal((await rowsOf(id)).workspaces, 1);
	});

	describe("deleting a workspace", () => {
		let id: string;
		let member: TestAccount;
		const fill = async () => {
			id = await newWorkspace(owner, "Doomed");
			member = await buildAccount(t.app);
			await addMember(t.app, id, member.accountId, "member");
			const section = (
				await call(owner, "POST", "/api/collections/sections/records", { key: "s", name: "S" }, id)
			).json();
			const target = (
				await call(
					owner,
					"POST",
					"/api/collections/records/records",
					{ key: "a", value: "1", section: section.id },
					id,
				)
			).json();
			await call(owner, "POST", "/api/collections/records/records", { key: "b", alias: target.id }, id);
			const f = new FormData();
			f.append("key", "file");
			f.append("file", new Blob([new Uint8Array(Buffer.from("%PDF-bytes"))]), "f.pdf");
			const up = await t.app.inject({
				method: "POST",
				url: "/api/collections/records/records",
				headers: { ...owner.headers, "x-workspace": id },
				payload: f,
			});
			assert.equal(up.statusCode, 200, up.body);
			await call(owner, "POST", "/api/collections/templates/records", { name: "T", items: [] }, id);
			await createNotification(
				t.app.store.db,
				{ account: owner.accountId, workspace: id, kind: "test", title: "N" },
				t.app.clock.now(),
			);
			await call(owner, "POST", "/api/files/token", undefined, id);
		};

		test("takes everything it holds, and its blobs", async () => {
			await fill();
			const keep = await call(owner, "POST", "/api/collections/records/records", {
				key: "keep",
				value: "personal",
			});
			const before = await rowsOf(id);
			assert.deepEqual(before, {
				workspaces: 1,
				records: 3,
				sections: 1,
				templates: 1,
				notifications: 1,
				file_tokens: 1,
				members: 2,
			});
			const blobs = await blobCount();
			const seen: string[] = [];
			const hook = async (trx: Transaction<Database>, workspaceId: string) => {
				// Runs inside the deletion's transaction, before the rows go.
				const r = await trx.selectFrom("records").select("id").where("workspace", "=", workspaceId).execute();
				seen.push(`${workspaceId}:${r.length}`);
			};
			t.app.workspaceHooks.onWorkspaceDeleted.push(hook);
			try {
				const res = await call(owner, "DELETE", `${WS}/${id}`);
				assert.equal(res.statusCode, 204, res.body);
			} finally {
				t.app.workspaceHooks.onWorkspaceDeleted.pop();
			}
			assert.deepEqual(seen, [`${id}:3`]);
			assert.deepEqual(await rowsOf(id), {
				workspaces: 0,
				records: 0,
				sections: 0,
				templates: 0,
				notifications: 0,
				file_tokens: 0,
				members: 0,
			});
			assert.equal(await blobCount(), blobs - 1, "the file's blob is gone");
			// Nothing else was touched; the member's session falls back to their own workspace.
			assert.equal(
				(await call(owner, "GET", `/api/collections/records/records/${keep.json().id}`)).statusCode,
				200,
			);
			const memberView = await call(member, "GET", "/api/collections/workspaces/records");
			assert.deepEqual(
				memberView.json().items.map((w: { id: string }) => w.id),
				[member.workspaceId],
			);
			assert.equal(
				(await call(member, "GET", "/api/collections/records/records", undefined, id)).statusCode,
				403,
			);
		});

		test("a failure half-way leaves nothing half-deleted", async () => {
			await fill();
			const before = await rowsOf(id);
			const blobs = await blobCount();
			const crash = async (trx: Transaction<Database>, workspaceId: string) => {
				await trx.deleteFrom("templates").where("workspace", "=", workspaceId).execute();
				throw new Error("simulated crash mid-deletion");
			};
			t.app.workspaceHooks.onWorkspaceDeleted.push(crash);
			try {
				const res = await call(owner, "DELETE", `${WS}/${id}`);
				assert.equal(res.statusCode, 500);
				assert.equal(res.json().code, "internal_error");
			} finally {
				t.app.workspaceHooks.onWorkspaceDeleted.pop();
			}
			assert.deepEqual(await rowsOf(id), before);
			assert.equal(await blobCount(), blobs);
			assert.equal((await call(owner, "DELETE", `${WS}/${id}`)).statusCode, 204);
		});
	});
});

describe("members", () => {
	let id: string;
	let admin: TestAccount;
	let member: TestAccount;
	const memberId = async (who: TestAccount) =>
		(
			await call(
				owner,
				"GET",
				`${MEMBERS}?filter=${encodeURIComponent(`account = "${who.accountId}"`)}`,
				undefined,
				id,
			)
		).json().items[0].id as string;

	before(async () => {
		id = await newWorkspace(owner, "Team");
		admin = await buildAccount(t.app, { name: "Adam" });
		member = await buildAccount(t.app, { name: "Mia" });
		await addMember(t.app, id, admin.accountId, "admin");
		await addMember(t.app, id, member.accountId, "member");
	});

	test("lists the members of the active workspace with email and role", async () => {
		const res = await call(member, "GET", `${MEMBERS}?sort=name`, undefined, id);
		assert.equal(res.statusCode, 200);
		const items = res.json().items as { email: string; role: string; owner: boolean; name: string }[];
		assert.deepEqual(
			items.map((m) => [m.email, m.role, m.owner]),
			[
				[admin.email, "admin", false],
				[member.email, "member", false],
				[owner.email, "owner", true],
			],
		);
		assert.deepEqual(
			items.map((m) => m.name),
			["Adam", "Mia", "Olivia"],
		);
	});

	test("an admin changes a role; an owner is above an admin; the last owner stays", async () => {
		const mid = await memberId(member);
		const res = await call(admin, "PATCH", `${MEMBERS}/${mid}`, { role: "admin" }, id);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().role, "admin");
		await call(admin, "PATCH", `${MEMBERS}/${mid}`, { role: "member" }, id);
		const oid = await memberId(owner);
		const refused = await call(admin, "PATCH", `${MEMBERS}/${oid}`, { role: "member" }, id);
		assert.equal(refused.statusCode, 403);
		assert.equal(refused.json().code, "member_role_above_own");
		const last = await call(owner, "DELETE", `${MEMBERS}/${oid}`, undefined, id);
		assert.equal(last.statusCode, 409);
		assert.equal(last.json().code, "member_last_owner");
		const bogus = await call(owner, "PATCH", `${MEMBERS}/${mid}`, { role: "boss" }, id);
		assert.equal(bogus.statusCode, 400);
	});

	test("the new role applies on the member's next request", async () => {
		const mid = await memberId(member);
		assert.equal((await call(member, "PATCH", `${MEMBERS}/${mid}`, { role: "member" }, id)).statusCode, 403);
		await call(owner, "PATCH", `${MEMBERS}/${mid}`, { role: "admin" }, id);
		assert.equal((await call(member, "PATCH", `${MEMBERS}/${mid}`, { role: "member" }, id)).statusCode, 200);
	});

	test("removing a member ends their access to the workspace", async () => {
		const mid = await memberId(member);
		assert.equal((await call(owner, "DELETE", `${MEMBERS}/${mid}`, undefined, id)).statusCode, 204);
		const res = await call(member, "GET", "/api/collections/records/records", undefined, id);
		assert.equal(res.statusCode, 403);
		assert.equal((await call(owner, "GET", `${MEMBERS}/${mid}`, undefined, id)).statusCode, 404);
	});

	test("members join through invitations, not here", async () => {
		const res = await call(owner, "POST", MEMBERS, { account: member.accountId, role: "member" }, id);
		assert.equal(res.statusCode, 405);
		assert.equal(res.headers.allow, "GET");
	});
});
