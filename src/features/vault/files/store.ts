import type { Kysely, Transaction } from "kysely";
import type { Database, FileTokenTable } from "../../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertToken(db: Db, row: FileTokenTable) {
	return db.insertInto("file_tokens").values(row).execute();
}

/** A live token whose account is still a member of the workspace it was minted in. */
export function findLiveToken(db: Db, tokenHash: string, now: number) {
	return (
		db
			.selectFrom("file_tokens")
			.innerJoin("members", (join) =>
				join
					.onRef("members.account", "=", "file_tokens.account")
					.onRef("members.workspace", "=", "file_tokens.workspace"),
			)
			// The member's role now, not when the token was minted: a demotion counts at once.
			.select(["file_tokens.account", "file_tokens.workspace", "file_tokens.via", "members.role"])
			.where("file_tokens.token_hash", "=", tokenHash)
			.where("file_tokens.expires", ">", now)
			.executeTakeFirst()
	);
}

export function deleteExpiredTokens(db: Db, now: number) {
	return db.deleteFrom("file_tokens").where("expires", "<=", now).executeTakeFirst();
}

export function findFileRecord(db: Db, workspaceId: string, id: string) {
	return db
		.selectFrom("records")
		.select([
			"id",
			"kind",
			"value",
			"alias",
			"file_key",
			"file_name",
			"file_type",
			"file_size",
			"file_sha256",
			"hidden",
			"updated",
		])
		.where("workspace", "=", workspaceId)
		.where("id", "=", id)
		.where("kind", "=", "file")
		.executeTakeFirst();
}

/** Which of these blob keys a row still points at. */
export async function referencedKeys(db: Db, keys: string[]): Promise<Set<string>> {
	if (keys.length === 0) return new Set();
	const rows = await db.selectFrom("records").select("file_key").where("file_key", "in", keys).execute();
	return new Set(rows.map((r) => r.file_key as string));
}

/** The file tokens minted in a workspace, or only those of one account there. */
export function deleteWorkspaceTokens(db: Db, workspaceId: string, accountId?: string) {
	return db
		.deleteFrom("file_tokens")
		.where("workspace", "=", workspaceId)
		.$if(accountId !== undefined, (qb) => qb.where("account", "=", accountId as string))
		.execute();
}
