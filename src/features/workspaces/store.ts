import { type Kysely, sql, type Transaction } from "kysely";
import type { Database, MemberTable, WorkspaceTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export type WorkspaceRow = WorkspaceTable & { role: string; active: number };
export type MemberRow = MemberTable & { email: string; account_name: string; workspace_owner: string };

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

/** The blob keys of the workspace's file records, to delete once the rows are gone. */
export async function fileKeys(db: Db, workspaceId: string): Promise<string[]> {
	const rows = await db
		.selectFrom("records")
		.select("file_key")
		.where("workspace", "=", workspaceId)
		.where("file_key", "is not", null)
		.execute();
	return rows.map((r) => r.file_key as string);
}

/** Deletes everything of the workspace this feature knows, children first, then the workspace. */
export async function deleteWorkspaceRows(trx: Transaction<Database>, workspaceId: string): Promise<void> {
	await trx.deleteFrom("records").where("workspace", "=", workspaceId).execute();
	await trx.deleteFrom("sections").where("workspace", "=", workspaceId).execute();
	await trx.deleteFrom("templates").where("workspace", "=", workspaceId).execute();
	await trx.deleteFrom("notifications").where("workspace", "=", workspaceId).execute();
	await trx.deleteFrom("file_tokens").where("workspace", "=", workspaceId).execute();
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
		.select(["accounts.email", "accounts.name as account_name", "workspaces.owner as workspace_owner"]);
}

export function setRole(db: Db, id: string, role: string, now: number) {
	return db.updateTable("members").set({ role, updated: now }).where("id", "=", id).execute();
}

export function deleteMember(db: Db, id: string) {
	return db.deleteFrom("members").where("id", "=", id).execute();
}
