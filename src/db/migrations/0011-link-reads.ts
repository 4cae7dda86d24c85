import type { Kysely } from "kysely";
import { ID, notNull, pk, TIME } from "../columns.ts";

// The read log (docs/api.md "Read log"): one row per read of a share that returned values (a
// resolve through the API, the share page or the addressbook, a file, an archive). Never a value,
// never the reader's address. Kept `READ_LOG_DAYS` days.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("link_reads")
		.addColumn("id", ID, pk)
		.addColumn("link", ID, (c) => c.notNull().references("links.id").onDelete("cascade"))
		.addColumn("workspace", ID, notNull)
		.addColumn("at", TIME, notNull)
		// `api`, `page`, `addressbook`, `file` or `archive`.
		.addColumn("kind", "varchar(16)", notNull)
		// The view the read took, or (file, archive) the view whose token it spent.
		.addColumn("view", "integer", notNull)
		// The file read (kind `file`).
		.addColumn("record", ID)
		// The proven identity's fingerprint when the read made a handshake.
		.addColumn("reader", "varchar(64)")
		.execute();
	await db.schema.createIndex("link_reads_link_at").on("link_reads").columns(["link", "at"]).execute();
	await db.schema
		.createIndex("link_reads_workspace_at")
		.on("link_reads")
		.columns(["workspace", "at"])
		.execute();
	await db.schema.createIndex("link_reads_at").on("link_reads").column("at").execute();
	// A file or archive token remembers who resolved, for the read its spending records.
	await db.schema.alterTable("link_tokens").addColumn("reader", "varchar(64)").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.alterTable("link_tokens").dropColumn("reader").execute();
	await db.schema.dropTable("link_reads").execute();
}
