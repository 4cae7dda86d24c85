import type { Kysely } from "kysely";
import { ID, notNull, TIME } from "../columns.ts";

// Grants between servers (spec "Grants between servers", "Answers kept on another server").
// On the server holding a grant: the token it was handed out with (SHA-256 only), which of its
// records answer which key, and to whom it was handed (the peer that receives its events). On the
// server holding a remote answer: the grant's address, token and keys, and the last status a
// signed event told, never a value. (The queue of signed event batches to peers comes with them.)
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("grant_tokens")
		// The grant id is the link's id.
		.addColumn("link", ID, (c) => c.primaryKey().notNull().references("links.id").onDelete("cascade"))
		.addColumn("token_hash", "varchar(64)", notNull)
		// JSON object: key -> id of the record of the link's workspace that answers it.
		.addColumn("keys", "text", notNull)
		// The server the grant was handed to (events go there); null for a grant read by a service.
		.addColumn("peer", "varchar(253)")
		.addColumn("request_slug", "varchar(128)")
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();

	await db.schema.alterTable("request_answers").addColumn("grant_id", ID).execute();
	await db.schema.alterTable("request_answers").addColumn("grant_token", "varchar(128)").execute();
	await db.schema.alterTable("request_answers").addColumn("grant_keys", "text").execute();
	await db.schema.alterTable("request_answers").addColumn("remote_status", "varchar(16)").execute();
	await db.schema.alterTable("request_answers").addColumn("remote_at", TIME).execute();
	// One answer per grant of a server (NULLs of local answers never collide).
	await db.schema
		.createIndex("request_answers_server_grant")
		.on("request_answers")
		.columns(["server", "grant_id"])
		.unique()
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropIndex("request_answers_server_grant").execute();
	for (const c of ["remote_at", "remote_status", "grant_keys", "grant_token", "grant_id"]) {
		await db.schema.alterTable("request_answers").dropColumn(c).execute();
	}
	await db.schema.dropTable("grant_tokens").execute();
}
