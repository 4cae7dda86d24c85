import type { Kysely } from "kysely";
import type { Database, ServerKeyTable } from "../../db/schema.ts";

export function findKey(db: Kysely<Database>, name: string): Promise<ServerKeyTable | undefined> {
	return db.selectFrom("server_keys").selectAll().where("name", "=", name).executeTakeFirst();
}

/** Inserts unless a row with the name exists: two nodes starting at once keep the first key written. */
export async function insertKeyIfAbsent(db: Kysely<Database>, row: ServerKeyTable): Promise<void> {
	await db
		.insertInto("server_keys")
		.values(row)
		.onConflict((oc) => oc.column("name").doNothing())
		.execute();
}
