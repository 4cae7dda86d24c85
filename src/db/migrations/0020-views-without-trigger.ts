import { type Kysely, PostgresAdapter, sql } from "kysely";

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
	await sql`
		create trigger link_reads_take_view after insert on link_reads
		when new.kind in ('api', 'page', 'addressbook')
		begin
			update links set
				view_count = view_count + 1,
				status = case when max_views is not null and view_count + 1 >= max_views then 'expired' else status end
			where id = new.link;
		end`.execute(db);
}
