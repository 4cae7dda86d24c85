import type { Kysely, Transaction } from "kysely";
import type { ApiKeyTable, Database } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertApiKey(db: Db, row: ApiKeyTable) {
	return db.insertInto("api_keys").values(row).execute();
}

/**
 * The live key for a hash, joined with its creator's current membership of the bound workspace:
 * one query per request, no cache, so a revocation or a departure counts on the next request on
 * every node. Expired means `expires_at <= now`.
 */
export function findLiveKey(db: Db, keyHash: string, now: number) {
	return db
		.selectFrom("api_keys")
		.innerJoin("members", (j) =>
			j
				.onRef("members.workspace", "=", "api_keys.workspace")
				.onRef("members.account", "=", "api_keys.account"),
		)
		.select([
			"api_keys.id",
			"api_keys.account",
			"api_keys.workspace",
			"api_keys.scopes",
			"api_keys.last_used",
			"members.role",
		])
		.where("api_keys.key_hash", "=", keyHash)
		.where((eb) => eb.or([eb("api_keys.expires_at", "is", null), eb("api_keys.expires_at", ">", now)]))
		.executeTakeFirst();
}

/** Records use at most once a minute per key: the condition keeps concurrent requests from all writing. */
export function touchLastUsed(db: Db, id: string, now: number, minGapMs: number) {
	return db
		.updateTable("api_keys")
		.set({ last_used: now })
		.where("id", "=", id)
		.where((eb) => eb.or([eb("last_used", "is", null), eb("last_used", "<=", now - minGapMs)]))
		.execute();
}

export function findApiKey(db: Db, workspace: string, id: string) {
	return db
		.selectFrom("api_keys")
		.selectAll()
		.where("workspace", "=", workspace)
		.where("id", "=", id)
		.executeTakeFirst();
}

export function listApiKeys(db: Db, workspace: string, account: string | undefined) {
	let q = db.selectFrom("api_keys").selectAll().where("workspace", "=", workspace);
	if (account !== undefined) q = q.where("account", "=", account);
	return q.orderBy("created", "desc").orderBy("id").execute();
}

export async function deleteApiKey(db: Db, workspace: string, id: string): Promise<boolean> {
	const r = await db
		.deleteFrom("api_keys")
		.where("workspace", "=", workspace)
		.where("id", "=", id)
		.executeTakeFirst();
	return r.numDeletedRows > 0n;
}

export function deleteMemberKeys(db: Db, workspace: string, account: string) {
	return db
		.deleteFrom("api_keys")
		.where("workspace", "=", workspace)
		.where("account", "=", account)
		.execute();
}

/** The creator's role in the workspace (read here, beside findLiveKey's join, to keep one query shape). */
export async function memberRole(db: Db, workspace: string, account: string): Promise<string | undefined> {
	const row = await db
		.selectFrom("members")
		.select("role")
		.where("workspace", "=", workspace)
		.where("account", "=", account)
		.executeTakeFirst();
	return row?.role;
}

/** The keys a caller may see: the workspace's, narrowed to `account`'s own unless undefined. Never the hash. */
export function selectVisibleKeys(db: Db, workspace: string, account: string | undefined) {
	let q = db
		.selectFrom("api_keys")
		.select([
			"api_keys.id",
			"api_keys.workspace",
			"api_keys.account",
			"api_keys.name",
			"api_keys.permissions",
			"api_keys.scopes",
			"api_keys.expires_at",
			"api_keys.created",
			"api_keys.updated",
			"api_keys.last_used",
		])
		.where("api_keys.workspace", "=", workspace);
	if (account !== undefined) q = q.where("api_keys.account", "=", account);
	return q;
}

export function renameApiKey(db: Db, workspace: string, id: string, name: string, now: number) {
	return db
		.updateTable("api_keys")
		.set({ name, updated: now })
		.where("workspace", "=", workspace)
		.where("id", "=", id)
		.execute();
}
