import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

// Requests (what a workspace asks responders for), the answers they collect, and the durable
// outbox of callback deliveries (submissions and grant events).
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("requests")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		// The creator, who gets its `callback_failed` notifications while a member.
		.addColumn("account", ID, (c) => c.references("accounts.id").onDelete("set null"))
		// The capability: 192 bits from the CSPRNG, base64url. Shown to the owner, so kept as is.
		.addColumn("slug", "varchar(64)", (c) => c.notNull().unique())
		.addColumn("label", "varchar(200)", notNull)
		// JSON array of TemplateItem, copied from `template` when one was named.
		.addColumn("items", "text", notNull)
		.addColumn("template", ID, (c) => c.references("templates.id").onDelete("set null"))
		// `open` or `closed`; `expired` is derived from `expires_at` at read.
		.addColumn("status", "varchar(16)", notNull)
		.addColumn("password_hash", "varchar(200)")
		.addColumn("requires_identifier", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("require_handshake", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("allow_extra_fields", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("identity_scope", "varchar(16)", notNull)
		.addColumn("identity", ID, (c) => c.references("identities.id").onDelete("set null"))
		.addColumn("expires_at", TIME)
		.addColumn("callback_url", "varchar(2048)")
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("requests_workspace_created")
		.on("requests")
		.columns(["workspace", "created", "id"])
		.execute();

	// One row per responder and request: answering again updates it. `id` is the responder's link
	// id (the spec's `responseId`); no foreign key, because an answer kept on another server has no
	// local link. A remote answer has no local account or workspace (NULLs never collide in a
	// unique index on either dialect) and names its `server`.
	await db.schema
		.createTable("request_answers")
		.addColumn("id", ID, pk)
		.addColumn("request", ID, (c) => c.notNull().references("requests.id").onDelete("cascade"))
		.addColumn("account", ID, (c) => c.references("accounts.id").onDelete("cascade"))
		.addColumn("workspace", ID, (c) => c.references("workspaces.id").onDelete("cascade"))
		// Proven identity: this server's identity id, or an identity fingerprint for a remote answer.
		.addColumn("identity", "varchar(64)")
		.addColumn("identifier", "varchar(200)", (c) => c.notNull().defaultTo(""))
		.addColumn("sender_name", "varchar(200)", (c) => c.notNull().defaultTo(""))
		// JSON object: template key -> value typed directly (vault-linked fields are not copied).
		.addColumn("data", "text", notNull)
		.addColumn("server", "varchar(253)")
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.addUniqueConstraint("request_answers_request_account", ["request", "account"])
		.execute();
	await db.schema.createIndex("request_answers_account").on("request_answers").column("account").execute();

	await db.schema
		.createTable("outbox")
		.addColumn("id", ID, pk)
		// `submission` (at most once) or `grant_event` (retried on its schedule).
		.addColumn("kind", "varchar(16)", notNull)
		.addColumn("request", ID, (c) => c.notNull().references("requests.id").onDelete("cascade"))
		// The callback URL as it stood when the delivery was queued.
		.addColumn("url", "varchar(2048)", notNull)
		.addColumn("payload", "text", notNull)
		// `pending`, `sending` (claimed under a lease), `delivered`, `failed`.
		.addColumn("state", "varchar(16)", notNull)
		.addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
		.addColumn("next_attempt", TIME, notNull)
		// Who holds the claim and until when; a finish only lands with the same lease.
		.addColumn("lease", "varchar(64)")
		.addColumn("lease_until", TIME)
		.addColumn("last_status", "integer")
		.addColumn("last_error", "varchar(500)")
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema.createIndex("outbox_state_next").on("outbox").columns(["state", "next_attempt"]).execute();
	await db.schema.createIndex("outbox_request").on("outbox").column("request").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	for (const t of ["outbox", "request_answers", "requests"]) await db.schema.dropTable(t).execute();
}
