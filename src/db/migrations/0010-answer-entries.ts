import type { Kysely } from "kysely";

// What an answer is made of, so answering again can update rather than duplicate: the records
// minted from typed values (template key -> record id, in the responder's workspace) and the
// vault entries the responder linked (template key -> record id). The link grants both.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.alterTable("request_answers")
		.addColumn("minted", "text", (c) => c.notNull().defaultTo("{}"))
		.execute();
	await db.schema
		.alterTable("request_answers")
		.addColumn("entries", "text", (c) => c.notNull().defaultTo("{}"))
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.alterTable("request_answers").dropColumn("entries").execute();
	await db.schema.alterTable("request_answers").dropColumn("minted").execute();
}
