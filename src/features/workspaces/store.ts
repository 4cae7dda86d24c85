import { type Kysely, sql, type Transaction } from "kysely";
import type { Database, MemberTable, WorkspaceTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export type WorkspaceRow = WorkspaceTable & { role: string; active: number };
export type MemberRow = MemberTable & {
	email: string;
	account_name: string;
	workspace_owner: string;
	workspace_personal: number;
};

/** The workspaces the account is a member of, with its role in each and which one is active. */
export function selectWorkspaces(db: Db, accountId: string, activeId: string) {
	return db
		.selectFrom("workspaces")
		.innerJoin("members", "members.workspace", "workspaces.id")
		.where("members.account", "=", accountId)
		.selectAll("workspaces")
		.select([
			"members.role",
			sql<number>`case when ${sql.ref("workspaces.id")} = ${activeId} then 1 else 0 end`.as("active"),
		]);
}

export function insertWorkspace(db: Db, row: WorkspaceTable) {
	return db.insertInto("workspaces").values(row).execute();
}

export function insertMember(db: Db, row: MemberTable) {
	return db.insertInto("members").values(row).execute();
}

export function renameWorkspace(db: Db, id: string, name: string, now: number) {
	return db.updateTable("workspaces").set({ name, updated: now }).where("id", "=", id).execute();
}

/** The workspace's own rows, once what other features keep for it is gone: members, then the row. */
export async function deleteWorkspaceRows(trx: Transaction<Database>, workspaceId: string): Promise<void> {
	await trx.deleteFrom("members").where("workspace", "=", workspaceId).execute();
	// Tables of other features that cascade from workspaces (API keys) go with this row.
	await trx.deleteFrom("workspaces").where("id", "=", workspaceId).execute();
}

export function selectMembers(db: Db, workspaceId: string) {
	return db
		.selectFrom("members")
		.innerJoin("accounts", "accounts.id", "members.account")
		.innerJoin("workspaces", "workspaces.id", "members.workspace")
		.where("members.workspace", "=", workspaceId)
		.selectAll("members")
		.select([
			"accounts.email",
			"accounts.name as account_name",
			"workspaces.owner as workspace_owner",
			"workspaces.personal as workspace_personal",
		]);
}

export function setRole(db: Db, id: string, role: string, now: number) {
	return db.updateTable("members").set({ role, updated: now }).where("id", "=", id).execute();
}

/**
 * Serialises membership changes of one workspace: a no-op UPDATE takes the workspace row's lock on
 * PostgreSQL and the write lock on SQLite (the passkeys' lockAccount idiom). Returns false when the
 * workspace is gone.
 */
export async function lockWorkspace(db: Db, workspaceId: string): Promise<boolean> {
	const r = await db
		.updateTable("workspaces")
		.set((eb) => ({ updated: eb.ref("updated") }))
		.where("id", "=", workspaceId)
		.executeTakeFirst();
	return r.numUpdatedRows > 0n;
}

export function findWorkspace(db: Db, workspaceId: string) {
	return db.selectFrom("workspaces").selectAll().where("id", "=", workspaceId).executeTakeFirst();
}

export function findMembership(db: Db, workspaceId: string, accountId: string) {
	return db
		.selectFrom("members")
		.selectAll()
		.where("workspace", "=", workspaceId)
		.where("account", "=", accountId)
		.executeTakeFirst();
}

export async function countOwners(db: Db, workspaceId: string): Promise<number> {
	const row = await db
		.selectFrom("members")
		.select((eb) => eb.fn.countAll<number | string | bigint>().as("n"))
		.where("workspace", "=", workspaceId)
		.where("role", "=", "owner")
		.executeTakeFirstOrThrow();
	return Number(row.n);
}

/** The owner who joined first besides `except`: who the owner of record moves to. */
export function firstOtherOwner(db: Db, workspaceId: string, except: string) {
	return db
		.selectFrom("members")
		.select("account")
		.where("workspace", "=", workspaceId)
		.where("role", "=", "owner")
		.where("account", "!=", except)
		.orderBy("created")
		.orderBy("id")
		.limit(1)
		.executeTakeFirst();
}

export function setOwnerOfRecord(db: Db, workspaceId: string, accountId: string, now: number) {
	return db
		.updateTable("workspaces")
		.set({ owner: accountId, updated: now })
		.where("id", "=", workspaceId)
		.execute();
}

export function memberByEmail(db: Db, workspaceId: string, email: string) {
	return db
		.selectFrom("members")
		.innerJoin("accounts", "accounts.id", "members.account")
		.select("members.id")
		.where("members.workspace", "=", workspaceId)
		.where("accounts.email", "=", email)
		.executeTakeFirst();
}

export function deleteMember(db: Db, id: string) {
	return db.deleteFrom("members").where("id", "=", id).execute();
}

/** Workspaces where the account is a member, with its role, whether personal, and the owner count. */
export function membershipsOf(db: Db, accountId: string) {
	return db
		.selectFrom("members")
		.innerJoin("workspaces", "workspaces.id", "members.workspace")
		.select([
			"workspaces.id",
			"workspaces.name",
			"workspaces.personal",
			"workspaces.owner",
			"members.id as member",
			"members.role",
		])
		.where("members.account", "=", accountId)
		.orderBy("members.created")
		.execute();
}
