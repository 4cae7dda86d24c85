import type { Kysely } from "kysely";
import { ID, TIME } from "../columns.ts";

// Answer-only sign-ups (issue 39.1): a request may admit a passkey sign-up limited to answering it.
// `requests.allow_answer_signup` is the requester's per-request setting (off by default);
// `accounts.answer_only` marks an account made that way (its sessions hold the responder's scopes
// only) and `accounts.signup_request` the request it was made for (counted for the operator);
// `passkey_ceremonies.answer_request` carries the request from begin to finish.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.alterTable("requests")
		.addColumn("allow_answer_signup", "integer", (c) => c.notNull().defaultTo(0))
		.execute();
	await db.schema
		.alterTable("accounts")
		.addColumn("answer_only", "integer", (c) => c.notNull().defaultTo(0))
		.execute();
	await db.schema.alterTable("accounts").addColumn("signup_request", ID).execute();
	await db.schema.alterTable("accounts").addColumn("signup_at", TIME).execute();
	await db.schema.alterTable("passkey_ceremonies").addColumn("answer_request", ID).execute();
	await db.schema.createIndex("accounts_signup_request").on("accounts").column("signup_request").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropIndex("accounts_signup_request").execute();
	await db.schema.alterTable("passkey_ceremonies").dropColumn("answer_request").execute();
	for (const c of ["signup_at", "signup_request", "answer_only"]) {
		await db.schema.alterTable("accounts").dropColumn(c).execute();
	}
	await db.schema.alterTable("requests").dropColumn("allow_answer_signup").execute();
}
