import type { Kysely } from "kysely";

// Lists by vault key and visibility (the common look-up) are answered from the index alone,
// count included: without `hidden` in it, the total count of a 100k vault visits every match.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createIndex("records_workspace_key_hidden_updated")
		.on("records")
		.columns(["workspace", "key", "hidden", "updated"])
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropIndex("records_workspace_key_hidden_updated").execute();
}
