import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

// A passkey row keeps the public key and counter; the collection API shows name, created and
// last used only, never key material.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("passkeys")
		.addColumn("id", ID, pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("name", "varchar(200)", notNull)
		.addColumn("credential_id", "varchar(1400)", (c) => c.notNull().unique())
		.addColumn("public_key", "text", notNull)
		.addColumn("counter", TIME, (c) => c.notNull().defaultTo(0))
		.addColumn("transports", "text", (c) => c.notNull().defaultTo("[]"))
		.addColumn("device_type", "varchar(32)", (c) => c.notNull().defaultTo("singleDevice"))
		.addColumn("backed_up", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.addColumn("last_used", TIME)
		.execute();
	await db.schema.createIndex("passkeys_account").on("passkeys").column("account").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("passkeys").execute();
}
