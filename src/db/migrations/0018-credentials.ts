import type { Kysely } from "kysely";
import { ID, notNull, pk, TIME } from "../columns.ts";

// Held credentials (spec "Held credential"): what a person's identities accepted, from this server
// or another, readable by that person alone. Accepting one offer again replaces the kept copy: one
// row per identity, attester and status position.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("credentials")
		.addColumn("id", ID, pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("identity", ID, (c) => c.notNull().references("identities.id").onDelete("cascade"))
		// The attesting domain, and the credential's status-list position (with its list's address).
		.addColumn("issuer", "varchar(253)", notNull)
		.addColumn("status_ref", "varchar(2100)", notNull)
		.addColumn("type", "varchar(255)", notNull)
		.addColumn("credential", "text", notNull)
		.addColumn("claims", "text", notNull)
		.addColumn("issued_at", TIME, notNull)
		.addColumn("expires_at", TIME)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.addUniqueConstraint("credentials_one_copy", ["identity", "issuer", "status_ref"])
		.execute();
	await db.schema.createIndex("credentials_account").on("credentials").column("account").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("credentials").execute();
}
