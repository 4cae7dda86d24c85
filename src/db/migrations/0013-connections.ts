import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

// Connected tools (spec "Connection"): one connection per tool origin and workspace, the tokens
// tools hold (hashes only), the one-time answers an authorization leaves for the tool (a code, or
// an answer found by polling with the PKCE verifier), and which tool's proposal a share became.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("connections")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		// The tool's origin (`https://host[:port]`).
		.addColumn("client_id", "varchar(300)", notNull)
		// The name the tool gives itself: a claim, shown as such.
		.addColumn("client_name", "varchar(200)", notNull)
		.addColumn("allow_revoke", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("allow_hand_over", FLAG, (c) => c.notNull().defaultTo(0))
		// 90 days after the owner last connected the tool; past it the connection has lapsed.
		.addColumn("expires_at", TIME, notNull)
		.addColumn("created_by", ID)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		// One connection per origin in a workspace: two authorizations at once find the same row.
		.addUniqueConstraint("connections_workspace_client", ["workspace", "client_id"])
		.execute();

	// A tool's token (`X-Svc-Connection`): only its SHA-256 is kept.
	await db.schema
		.createTable("connection_tokens")
		.addColumn("token_hash", "varchar(64)", pk)
		.addColumn("connection", ID, (c) => c.notNull().references("connections.id").onDelete("cascade"))
		.addColumn("created", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("connection_tokens_connection")
		.on("connection_tokens")
		.column("connection")
		.execute();

	// What an authorization leaves for the tool, spent by one DELETE … RETURNING: by its code
	// (`code_hash`), or, when the owner authorized with `poll`, by the verifier's challenge
	// (`poll_challenge`, set only then, so an answer issued as a code is never found by polling).
	await db.schema
		.createTable("connection_grants")
		.addColumn("code_hash", "varchar(64)", pk)
		.addColumn("connection", ID, (c) => c.notNull().references("connections.id").onDelete("cascade"))
		.addColumn("challenge", "varchar(64)", notNull)
		.addColumn("poll_challenge", "varchar(64)", (c) => c.unique())
		.addColumn("client_id", "varchar(300)", notNull)
		.addColumn("redirect_uri", "varchar(2000)", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("connection_grants_expires")
		.on("connection_grants")
		.column("expires")
		.execute();

	// The tool whose proposal a share became; set null when the connection is deleted (the share
	// stays the owner's and no longer names the tool).
	await db.schema
		.alterTable("links")
		.addColumn("connection", ID, (c) => c.references("connections.id").onDelete("set null"))
		.execute();
	await db.schema.createIndex("links_connection").on("links").columns(["connection", "created"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropIndex("links_connection").execute();
	await db.schema.alterTable("links").dropColumn("connection").execute();
	for (const t of ["connection_grants", "connection_tokens", "connections"]) {
		await db.schema.dropTable(t).execute();
	}
}
