import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("api_keys")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("name", "varchar(200)", notNull)
		.addColumn("key_hash", "varchar(64)", (c) => c.notNull().unique())
		.addColumn("permissions", "text", notNull)
		.addColumn("scopes", "text", notNull)
		.addColumn("expires_at", TIME)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.addColumn("last_used", TIME)
		.execute();
	await db.schema.createIndex("api_keys_workspace").on("api_keys").column("workspace").execute();

	// No cascade from the workspace: deleting a workspace must go through
	// tombstoneWorkspaceIdentities, so a forgotten call fails loudly instead of silently turning a
	// withdrawn identity's standing from `revoked` into `unknown`.
	await db.schema
		.createTable("identities")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id"))
		.addColumn("account", ID, (c) => c.references("accounts.id").onDelete("set null"))
		.addColumn("name", "varchar(200)", notNull)
		.addColumn("public_key", "text", notNull)
		.addColumn("fingerprint", "varchar(64)", (c) => c.notNull().unique())
		.addColumn("certificate", "text", notNull)
		.addColumn("parent_signature", "text", notNull)
		.addColumn("domain_at_issue", "varchar(253)", notNull)
		.addColumn("status", "varchar(16)", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.addColumn("revoked_at", TIME)
		.execute();
	await db.schema.createIndex("identities_workspace").on("identities").column("workspace").execute();

	await db.schema
		.createTable("identity_tombstones")
		.addColumn("fingerprint", "varchar(64)", pk)
		.addColumn("identity_id", ID, notNull)
		.addColumn("status", "varchar(16)", notNull)
		.addColumn("workspace", ID, notNull)
		.addColumn("deleted_at", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("identity_tombstones_identity")
		.on("identity_tombstones")
		.column("identity_id")
		.execute();

	await db.schema
		.createTable("challenges")
		.addColumn("nonce_hash", "varchar(64)", pk)
		.addColumn("scope", "varchar(16)", notNull)
		.addColumn("slug_hash", "varchar(64)", notNull)
		.addColumn("identity", ID)
		.addColumn("expires", TIME, notNull)
		.addColumn("spent", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("created", TIME, notNull)
		.execute();
	await db.schema.createIndex("challenges_expires").on("challenges").column("expires").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	for (const t of ["challenges", "identity_tombstones", "identities", "api_keys"]) {
		await db.schema.dropTable(t).execute();
	}
}
