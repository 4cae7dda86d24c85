import type { Kysely } from "kysely";
import { ID, notNull, pk, TIME } from "../columns.ts";

// The OpenID Connect provider (spec "OpenID Connect provider"). Signing keys live in server_keys
// (`oidc:<kid>`). Everything one-time is kept as a SHA-256 hash and spent by one conditional
// statement, so two nodes on one database never both accept it.
export async function up(db: Kysely<unknown>): Promise<void> {
	// An authorization request the page was opened for: checked once at GET /oidc/authorize and
	// fixed there (issuer included). Its consent ticket is set once, by the passkey sign-in.
	await db.schema
		.createTable("oidc_requests")
		.addColumn("hash", "varchar(64)", pk)
		.addColumn("client_id", "varchar(300)", notNull)
		.addColumn("redirect_uri", "varchar(2000)", notNull)
		// Space-separated optional scopes asked for (`openid` implied).
		.addColumn("scopes", "varchar(100)", notNull)
		.addColumn("state", "varchar(500)")
		.addColumn("nonce", "varchar(500)")
		.addColumn("code_challenge", "varchar(64)", notNull)
		// JSON array of the vault keys asked for through `claims` (at most 20).
		.addColumn("keys", "text", notNull)
		.addColumn("issuer", "varchar(300)", notNull)
		.addColumn("lang", "varchar(8)", notNull)
		// Set once when the person signed in with a passkey; spent (deleted) by the consent.
		.addColumn("ticket_hash", "varchar(64)")
		.addColumn("account", ID)
		.addColumn("auth_time", TIME)
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("oidc_requests_ticket")
		.on("oidc_requests")
		.column("ticket_hash")
		.unique()
		.execute();

	// An authorization code: spent (deleted) the moment it is presented.
	await db.schema
		.createTable("oidc_codes")
		.addColumn("hash", "varchar(64)", pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("client_id", "varchar(300)", notNull)
		.addColumn("redirect_uri", "varchar(2000)", notNull)
		.addColumn("code_challenge", "varchar(64)", notNull)
		.addColumn("scopes", "varchar(100)", notNull)
		.addColumn("nonce", "varchar(500)")
		.addColumn("issuer", "varchar(300)", notNull)
		.addColumn("auth_time", TIME, notNull)
		// JSON object: requested key -> the person's record that answers it.
		.addColumn("links", "text", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();

	// An access token for /oidc/userinfo (one hour). The grant token it delivers is derived from it.
	await db.schema
		.createTable("oidc_tokens")
		.addColumn("hash", "varchar(64)", pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("client_id", "varchar(300)", notNull)
		.addColumn("scopes", "varchar(100)", notNull)
		.addColumn("issuer", "varchar(300)", notNull)
		// The sign-in link's id when this sign-in shared entries, and the keys it answers (JSON array).
		.addColumn("link", ID)
		.addColumn("keys", "text", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema.createIndex("oidc_tokens_expires").on("oidc_tokens").column("expires").execute();

	// One link per person and service: two sign-ins at once find the same row.
	await db.schema
		.createTable("oidc_links")
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("client_id", "varchar(300)", notNull)
		.addColumn("link", ID, notNull)
		.addColumn("updated", TIME, notNull)
		.addPrimaryKeyConstraint("oidc_links_pk", ["account", "client_id"])
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("oidc_links").execute();
	await db.schema.dropTable("oidc_tokens").execute();
	await db.schema.dropTable("oidc_codes").execute();
	await db.schema.dropTable("oidc_requests").execute();
}
