import type { Kysely } from "kysely";
import { ID, notNull, TIME } from "../columns.ts";

// The one-time artefacts of passkey sign-in live in the database so any node can finish what
// another began. Every secret is kept as its SHA-256 hash (the primary key), never in plain.
export async function up(db: Kysely<unknown>): Promise<void> {
	// A begun ceremony: nothing else is written until registration finishes.
	await db.schema
		.createTable("passkey_ceremonies")
		.addColumn("hash", "varchar(64)", (c) => c.primaryKey().notNull())
		.addColumn("kind", "varchar(16)", notNull)
		/** The WebAuthn challenge (base64url) the authenticator must sign. */
		.addColumn("challenge", "varchar(128)", notNull)
		/** The app's PKCE S256 challenge, when the ceremony ends in a code. */
		.addColumn("pkce_challenge", "varchar(128)")
		/** Registration: the account the passkey is for (an id chosen at begin for a signup). */
		.addColumn("account", ID)
		/** Registration creating an account: its email and name. */
		.addColumn("email", "varchar(320)")
		.addColumn("name", "varchar(200)")
		/** Registration with a ticket: the ticket spent when it finishes. */
		.addColumn("ticket_hash", "varchar(64)")
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("passkey_ceremonies_expires")
		.on("passkey_ceremonies")
		.column("expires")
		.execute();

	// A login code: bound to the PKCE challenge, spent on first presentation.
	await db.schema
		.createTable("passkey_codes")
		.addColumn("hash", "varchar(64)", (c) => c.primaryKey().notNull())
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("pkce_challenge", "varchar(128)", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema.createIndex("passkey_codes_expires").on("passkey_codes").column("expires").execute();

	// A ticket: adds a passkey to `account`, or (operator signup ticket) creates the account `email`.
	await db.schema
		.createTable("passkey_tickets")
		.addColumn("hash", "varchar(64)", (c) => c.primaryKey().notNull())
		.addColumn("account", ID, (c) => c.references("accounts.id").onDelete("cascade"))
		.addColumn("email", "varchar(320)")
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema.createIndex("passkey_tickets_expires").on("passkey_tickets").column("expires").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	for (const t of ["passkey_tickets", "passkey_codes", "passkey_ceremonies"]) {
		await db.schema.dropTable(t).execute();
	}
}
