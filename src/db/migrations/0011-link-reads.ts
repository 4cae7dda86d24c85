import { type Kysely, PostgresAdapter, sql } from "kysely";
import { ID, notNull, TIME } from "../columns.ts";

// The read log (docs/api.md "Read log"): one row per read of a share that returned values (a
// resolve through the API, the share page or the addressbook, a file, an archive). Never a value,
// never the reader's address. Kept `READ_LOG_DAYS` days.
export async function up(db: Kysely<unknown>): Promise<void> {
	const sqlite = !(db.getExecutor().adapter instanceof PostgresAdapter);
	// One b-tree on SQLite (WITHOUT ROWID, keyed by share then time): every index costs the view's
	// commit a page, and the resolve measured a sixth slower with three. A share's log is a range
	// of the key; the sweep walks it per share (shares/reads.ts); deleting a share cascades on it.
	const table = db.schema
		.createTable("link_reads")
		.addColumn("id", ID, notNull)
		.addColumn("link", ID, (c) => c.notNull().references("links.id").onDelete("cascade"))
		.addColumn("workspace", ID, notNull)
		.addColumn("at", TIME, notNull)
		// `api`, `page`, `addressbook`, `file` or `archive`.
		.addColumn("kind", "varchar(16)", notNull)
		// The view the read took, or (file, archive) the view whose token it spent.
		.addColumn("view", "integer", notNull)
		// The file read (kind `file`).
		.addColumn("record", ID)
		// The proven identity's fingerprint when the read made a handshake.
		.addColumn("reader", "varchar(64)")
		.addPrimaryKeyConstraint("link_reads_pk", ["link", "at", "id"]);
	await (sqlite ? table.modifyEnd(sql`without rowid`) : table).execute();
	if (sqlite) {
		// SQLite only (it has no writes inside WITH): a read that takes a view is inserted from the
		// takeable link and this trigger takes the view in the same statement. PostgreSQL does the
		// conditional UPDATE and the INSERT in one WITH (shares/public-queries.ts).
		await createTakeViewTrigger(db);
	}
	// A file or archive token remembers who resolved, for the read its spending records.
	await db.schema.alterTable("link_tokens").addColumn("reader", "varchar(64)").execute();
}

/** The trigger, also recreated by 0020's `down`. */
export async function createTakeViewTrigger(db: Kysely<unknown>): Promise<void> {
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

export async function down(db: Kysely<unknown>): Promise<void> {
	await sql`drop trigger if exists link_reads_take_view`.execute(db);
	await db.schema.alterTable("link_tokens").dropColumn("reader").execute();
	await db.schema.dropTable("link_reads").execute();
}
