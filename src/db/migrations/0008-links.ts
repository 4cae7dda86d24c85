import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

// Shares (links), what each grants, and their one-time download and archive tokens.
// The public hot paths read a link by slug (unique index), its granted records through
// `link_records`/`link_sections` (each keyed by link first), and a record change finds every link
// behind it through the `record`/`section` indexes.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("links")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		// The capability: 256 bits from the CSPRNG, base64url. Shown to the owner, so kept as is.
		.addColumn("slug", "varchar(64)", (c) => c.notNull().unique())
		.addColumn("label", "varchar(200)", notNull)
		// `active`, `paused`, `revoked`, `expired` (expiry by time is also derived at read).
		.addColumn("status", "varchar(16)", notNull)
		.addColumn("password_hash", "varchar(200)")
		.addColumn("max_views", "integer")
		.addColumn("view_count", "integer", (c) => c.notNull().defaultTo(0))
		.addColumn("expires_at", TIME)
		.addColumn("require_handshake", FLAG, (c) => c.notNull().defaultTo(0))
		// The watermark stamp text; null for an unwatermarked share.
		.addColumn("stamp", "varchar(200)")
		// `application` or empty.
		.addColumn("purpose", "varchar(16)", (c) => c.notNull().defaultTo(""))
		.addColumn("ref", "varchar(200)")
		.addColumn("identity", ID)
		.addColumn("handed_over", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("sign_in_client", "varchar(255)")
		.addColumn("created_by", ID)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("links_workspace_created")
		.on("links")
		.columns(["workspace", "created", "id"])
		.execute();
	await db.schema.createIndex("links_status_expires").on("links").columns(["status", "expires_at"]).execute();

	for (const [table, column, target] of [
		["link_records", "record", "records"],
		["link_sections", "section", "sections"],
	] as const) {
		await db.schema
			.createTable(table)
			.addColumn("link", ID, (c) => c.notNull().references("links.id").onDelete("cascade"))
			.addColumn(column, ID, (c) => c.notNull().references(`${target}.id`).onDelete("cascade"))
			.addColumn("position", "integer", notNull)
			.addPrimaryKeyConstraint(`${table}_pk`, ["link", column])
			.execute();
		await db.schema.createIndex(`${table}_${column}`).on(table).column(column).execute();
	}

	// `downloadToken` and `archiveToken`: only the hash is kept; spent by one DELETE … RETURNING.
	await db.schema
		.createTable("link_tokens")
		.addColumn("token_hash", "varchar(64)", pk)
		.addColumn("link", ID, (c) => c.notNull().references("links.id").onDelete("cascade"))
		// `download` (bound to `record`) or `archive`.
		.addColumn("kind", "varchar(16)", notNull)
		.addColumn("record", ID)
		// The view number of the resolve that issued it (its view claim).
		.addColumn("view", "integer", notNull)
		// The resolve's watermark line, for stamping what the token serves.
		.addColumn("stamp_line", "varchar(400)")
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema.createIndex("link_tokens_expires").on("link_tokens").column("expires").execute();
	await db.schema.createIndex("link_tokens_link").on("link_tokens").column("link").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	for (const t of ["link_tokens", "link_sections", "link_records", "links"]) {
		await db.schema.dropTable(t).execute();
	}
}
