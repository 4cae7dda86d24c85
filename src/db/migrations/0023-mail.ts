import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

// Outgoing e-mail (issue 41, docs/operations.md "Outgoing e-mail"). `mail_outbox` is a leased outbox
// (db/outbox.ts) like callbacks; `mail_counters` holds the per-day rate-limit counters, taken with
// a conditional upsert; `notice_mails` holds notices whose mail switch was on, queued in the
// notice's transaction by the notifications feature and moved into `mail_outbox` by the mail worker
// (only while mail is on). An account keeps its verified address and its mail language;
// `email_verifications` the one-time verify links, hashed.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("mail_outbox")
		.addColumn("id", ID, pk)
		.addColumn("kind", "varchar(16)", notNull)
		.addColumn("account", ID, (c) => c.references("accounts.id").onDelete("set null"))
		.addColumn("recipient", "varchar(320)", notNull)
		.addColumn("language", "varchar(8)", notNull)
		.addColumn("template", "varchar(32)", notNull)
		.addColumn("params", "text", notNull)
		.addColumn("secret", "text")
		.addColumn("message_id", "varchar(200)", notNull)
		.addColumn("state", "varchar(16)", notNull)
		.addColumn("attempts", "integer", notNull)
		.addColumn("next_attempt", TIME, notNull)
		.addColumn("lease", "varchar(64)")
		.addColumn("lease_until", TIME)
		.addColumn("last_status", "integer")
		.addColumn("last_error", "text")
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("mail_outbox_due")
		.on("mail_outbox")
		.columns(["state", "next_attempt"])
		.execute();
	await db.schema
		.createTable("mail_counters")
		.addColumn("scope", "varchar(128)", notNull)
		.addColumn("day", "integer", notNull)
		.addColumn("sent", "integer", notNull)
		.addPrimaryKeyConstraint("mail_counters_pk", ["scope", "day"])
		.execute();
	await db.schema
		.createTable("notice_mails")
		.addColumn("id", ID, pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("workspace", ID)
		.addColumn("kind", "varchar(64)", notNull)
		.addColumn("title", "varchar(200)", notNull)
		.addColumn("body", "text", notNull)
		.addColumn("data", "text", notNull)
		.addColumn("created", TIME, notNull)
		.execute();
	await db.schema
		.alterTable("notification_settings")
		.addColumn("mail", FLAG, (c) => c.notNull().defaultTo(0))
		.execute();
	await db.schema.alterTable("accounts").addColumn("email_verified_at", TIME).execute();
	await db.schema.alterTable("accounts").addColumn("language", "varchar(8)").execute();
	await db.schema
		.createTable("email_verifications")
		.addColumn("token_hash", "varchar(64)", pk)
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("email", "varchar(320)", notNull)
		.addColumn("expires", TIME, notNull)
		.addColumn("created", TIME, notNull)
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("email_verifications").execute();
	await db.schema.alterTable("accounts").dropColumn("language").execute();
	await db.schema.alterTable("accounts").dropColumn("email_verified_at").execute();
	await db.schema.alterTable("notification_settings").dropColumn("mail").execute();
	await db.schema.dropTable("notice_mails").execute();
	await db.schema.dropTable("mail_counters").execute();
	await db.schema.dropIndex("mail_outbox_due").execute();
	await db.schema.dropTable("mail_outbox").execute();
}
