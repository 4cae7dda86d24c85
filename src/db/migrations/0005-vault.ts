import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

// The vault (records, sections), templates, in-app notifications and file tokens. Every list is
// read per workspace in `created` order, so each table leads its indexes with `workspace`; the
// id breaks ties so paging is stable when many rows share a millisecond.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("sections")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		.addColumn("key", "varchar(64)", notNull)
		.addColumn("name", "varchar(200)", notNull)
		.addColumn("ordering", "integer", (c) => c.notNull().defaultTo(0))
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.addUniqueConstraint("sections_workspace_key", ["workspace", "key"])
		.execute();
	await db.schema
		.createIndex("sections_workspace_ordering")
		.on("sections")
		.columns(["workspace", "ordering"])
		.execute();
	await db.schema
		.createIndex("sections_workspace_created")
		.on("sections")
		.columns(["workspace", "created", "id"])
		.execute();

	await db.schema
		.createTable("records")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		.addColumn("key", "varchar(64)", notNull)
		.addColumn("name", "varchar(200)", notNull)
		// `value` or `file`.
		.addColumn("kind", "varchar(8)", notNull)
		.addColumn("value", "text")
		.addColumn("section", ID, (c) => c.references("sections.id").onDelete("set null"))
		.addColumn("hidden", FLAG, (c) => c.notNull().defaultTo(0))
		// No action on delete: the service refuses to delete a record others alias (checked at the
		// end of the statement, so deleting a whole workspace at once passes).
		.addColumn("alias", ID, (c) => c.references("records.id"))
		.addColumn("identity", ID)
		.addColumn("file_key", "varchar(64)")
		.addColumn("file_name", "varchar(255)")
		.addColumn("file_type", "varchar(100)")
		.addColumn("file_size", TIME)
		.addColumn("file_sha256", "varchar(64)")
		// Bumped on every change: shares and grant readers compare it (with `updated`) cheaply.
		.addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("records_workspace_created")
		.on("records")
		.columns(["workspace", "created", "id"])
		.execute();
	await db.schema
		.createIndex("records_workspace_updated")
		.on("records")
		.columns(["workspace", "updated"])
		.execute();
	await db.schema.createIndex("records_workspace_key").on("records").columns(["workspace", "key"]).execute();
	await db.schema
		.createIndex("records_workspace_name")
		.on("records")
		.columns(["workspace", "name"])
		.execute();
	await db.schema.createIndex("records_section").on("records").column("section").execute();
	await db.schema.createIndex("records_alias").on("records").column("alias").execute();
	await db.schema.createIndex("records_file_key").on("records").column("file_key").execute();
	await db.schema.createIndex("records_identity").on("records").column("identity").execute();

	await db.schema
		.createTable("templates")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		.addColumn("name", "varchar(80)", notNull)
		// JSON array of TemplateItem.
		.addColumn("items", "text", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("templates_workspace_created")
		.on("templates")
		.columns(["workspace", "created", "id"])
		.execute();

	await db.schema
		.createTable("notifications")
		.addColumn("id", ID, pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		// Null for a notification about the account itself rather than one workspace.
		.addColumn("workspace", ID, (c) => c.references("workspaces.id").onDelete("cascade"))
		.addColumn("kind", "varchar(64)", notNull)
		.addColumn("title", "varchar(200)", notNull)
		.addColumn("body", "text", notNull)
		// JSON object.
		.addColumn("data", "text", notNull)
		.addColumn("read", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("notifications_account_created")
		.on("notifications")
		.columns(["account", "created", "id"])
		.execute();
	await db.schema.createIndex("notifications_workspace").on("notifications").column("workspace").execute();

	// Short-lived tokens for `GET /api/files/{recordId}?token=`; only the hash is kept.
	await db.schema
		.createTable("file_tokens")
		.addColumn("token_hash", "varchar(64)", pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		// `session` or `apiKey`: what minted it, so a key's token never opens a vault file.
		.addColumn("via", "varchar(16)", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema.createIndex("file_tokens_expires").on("file_tokens").column("expires").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	for (const t of ["file_tokens", "notifications", "templates", "records", "sections"]) {
		await db.schema.dropTable(t).execute();
	}
}
