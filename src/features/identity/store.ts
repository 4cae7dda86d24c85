import type { Kysely, Transaction } from "kysely";
import type { Database, IdentityTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertIdentity(db: Db, row: IdentityTable) {
	return db.insertInto("identities").values(row).execute();
}

export function findIdentity(db: Db, id: string) {
	return db.selectFrom("identities").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findIdentityInWorkspace(db: Db, workspace: string, id: string) {
	return db
		.selectFrom("identities")
		.selectAll()
		.where("workspace", "=", workspace)
		.where("id", "=", id)
		.executeTakeFirst();
}

export function findIdentityByFingerprint(db: Db, fingerprint: string) {
	return db.selectFrom("identities").selectAll().where("fingerprint", "=", fingerprint).executeTakeFirst();
}

export function listIdentities(db: Db, workspace: string) {
	return db
		.selectFrom("identities")
		.selectAll()
		.where("workspace", "=", workspace)
		.orderBy("created", "desc")
		.orderBy("id")
		.execute();
}

export function findTombstone(db: Db, fingerprint: string) {
	return db
		.selectFrom("identity_tombstones")
		.selectAll()
		.where("fingerprint", "=", fingerprint)
		.executeTakeFirst();
}

export function findTombstoneById(db: Db, identityId: string) {
	return db
		.selectFrom("identity_tombstones")
		.selectAll()
		.where("identity_id", "=", identityId)
		.executeTakeFirst();
}

/** active -> revoked only; the WHERE makes it one-way even when two nodes race. */
export function revokeIdentity(db: Db, workspace: string, id: string, now: number) {
	return db
		.updateTable("identities")
		.set({ status: "revoked", revoked_at: now, updated: now })
		.where("workspace", "=", workspace)
		.where("id", "=", id)
		.where("status", "=", "active")
		.returningAll()
		.executeTakeFirst();
}

/** Tombstones then deletes the identities matching `where` (one identity, or a whole workspace). */
export async function tombstoneAndDelete(
	db: Db,
	where: { workspace: string; id?: string },
	now: number,
): Promise<number> {
	let select = db
		.selectFrom("identities")
		.select(["id", "fingerprint"])
		.where("workspace", "=", where.workspace);
	if (where.id !== undefined) select = select.where("id", "=", where.id);
	const rows = await select.execute();
	if (rows.length === 0) return 0;
	let deleted = 0;
	// Chunks keep each statement under SQLite's bound-parameter limit.
	for (let i = 0; i < rows.length; i += 500) {
		const chunk = rows.slice(i, i + 500);
		await db
			.insertInto("identity_tombstones")
			.values(
				chunk.map((r) => ({
					fingerprint: r.fingerprint,
					identity_id: r.id,
					status: "revoked" as const,
					workspace: where.workspace,
					deleted_at: now,
				})),
			)
			.onConflict((oc) => oc.column("fingerprint").doNothing())
			.execute();
		const ids = chunk.map((r) => r.id);
		const r = await db.deleteFrom("identities").where("id", "in", ids).executeTakeFirst();
		deleted += Number(r.numDeletedRows);
	}
	return deleted;
}
