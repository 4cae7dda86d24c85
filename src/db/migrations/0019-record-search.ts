import { type Kysely, PostgresAdapter, sql } from "kysely";

// `~` (contains) over a large vault (features/collections/contains.ts).
// - The look-up by vault key and visibility now holds the name too: a `name ~` beside it, and the
//   list's total count, are answered from the index alone, without reading each record. That is
//   what serves a value of one or two characters, which no trigram index can.
// - SQLite: an FTS5 trigram table over the records' text, external content (the text is kept once,
//   in `records`), kept in step by triggers. It is keyed by the records' rowid, which VACUUM keeps
//   for a table with indexes; docs/operations.md says how to rebuild it.
// PostgreSQL's pg_trgm indexes are made at start-up instead (db/trigram.ts): the extension may be
// missing, or installed later.
const COLUMNS = ["key", "name", "value", "file_name"];

export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createIndex("records_workspace_key_hidden_updated_name")
		.on("records")
		.columns(["workspace", "key", "hidden", "updated", "name"])
		.execute();
	await db.schema.dropIndex("records_workspace_key_hidden_updated").execute();
	if (db.getExecutor().adapter instanceof PostgresAdapter) return;

	const cols = sql.raw(COLUMNS.join(", "));
	const values = (row: "new" | "old") => sql.raw(COLUMNS.map((c) => `${row}.${c}`).join(", "));
	await sql`create virtual table records_search using fts5(${cols}, content='records', tokenize='trigram')`.execute(
		db,
	);
	await sql`insert into records_search(records_search) values ('rebuild')`.execute(db);
	await sql`
		create trigger records_search_insert after insert on records begin
			insert into records_search(rowid, ${cols}) values (new.rowid, ${values("new")});
		end`.execute(db);
	await sql`
		create trigger records_search_delete after delete on records begin
			insert into records_search(records_search, rowid, ${cols}) values ('delete', old.rowid, ${values("old")});
		end`.execute(db);
	await sql`
		create trigger records_search_update after update of ${cols} on records begin
			insert into records_search(records_search, rowid, ${cols}) values ('delete', old.rowid, ${values("old")});
			insert into records_search(rowid, ${cols}) values (new.rowid, ${values("new")});
		end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
	if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
		for (const t of ["insert", "delete", "update"]) {
			await sql`drop trigger if exists ${sql.id(`records_search_${t}`)}`.execute(db);
		}
		await sql`drop table if exists records_search`.execute(db);
	}
	await db.schema
		.createIndex("records_workspace_key_hidden_updated")
		.on("records")
		.columns(["workspace", "key", "hidden", "updated"])
		.execute();
	await db.schema.dropIndex("records_workspace_key_hidden_updated_name").execute();
}
