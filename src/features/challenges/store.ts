import type { Kysely, Transaction } from "kysely";
import type { ChallengeTable, Database } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertChallenge(db: Db, row: ChallengeTable) {
	return db.insertInto("challenges").values(row).execute();
}

export function deleteExpired(db: Db, now: number) {
	return db.deleteFrom("challenges").where("expires", "<=", now).execute();
}

/**
 * Spends a nonce: one conditional UPDATE ... RETURNING, so of two nodes presenting it at once
 * exactly one gets the row. Everything else is checked after, so a wrong answer spends it too.
 */
export function spendChallenge(db: Db, nonceHash: string) {
	return db
		.updateTable("challenges")
		.set({ spent: 1 })
		.where("nonce_hash", "=", nonceHash)
		.where("spent", "=", 0)
		.returning(["scope", "slug_hash", "identity", "expires"])
		.executeTakeFirst();
}
