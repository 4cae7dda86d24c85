import { type Kysely, sql } from "kysely";

// A per-request cap on answer-only sign-ups (issue 39.1): `answer_signup_limit` accounts at most
// may be created through one request's answer link (default 20), and `answer_signups` counts those
// created so far. A sign-up's finish takes one in a conditional update (`answer_signups <
// answer_signup_limit`), so the cap holds across server processes. Requests that already admitted
// sign-ups start counted.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.alterTable("requests")
		.addColumn("answer_signup_limit", "integer", (c) => c.notNull().defaultTo(20))
		.execute();
	await db.schema
		.alterTable("requests")
		.addColumn("answer_signups", "integer", (c) => c.notNull().defaultTo(0))
		.execute();
	await sql`UPDATE requests SET answer_signups = (SELECT COUNT(*) FROM accounts WHERE accounts.signup_request = requests.id)`.execute(
		db,
	);
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.alterTable("requests").dropColumn("answer_signups").execute();
	await db.schema.alterTable("requests").dropColumn("answer_signup_limit").execute();
}
