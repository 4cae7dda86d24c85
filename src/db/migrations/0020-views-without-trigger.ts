import { type Kysely, PostgresAdapter, sql } from "kysely";
import { createTakeViewTrigger } from "./0011-link-reads.ts";

// SQLite: a view is no longer taken by the trigger `link_reads_take_view` (0011). A statement that
// fires a trigger writing the table its own SELECT reads cost the view about 28 µs more than the
// same INSERT and UPDATE run back to back in one `BEGIN IMMEDIATE` transaction, which is what
// shares/public-queries.ts does now. PostgreSQL never had the trigger.
export async function up(db: Kysely<unknown>): Promise<void> {
	if (db.getExecutor().adapter instanceof PostgresAdapter) return;
	await sql`drop trigger if exists link_reads_take_view`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
	if (db.getExecutor().adapter instanceof PostgresAdapter) return;
	await createTakeViewTrigger(db);
}
