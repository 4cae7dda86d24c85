// PostgreSQL: the pg_trgm indexes `~` uses (features/collections/contains.ts), made at every start
// rather than by a migration, because they need an extension the database role may not be allowed
// to create: then the server starts without them, `~` scans (same answers, slower) and one warning
// says so; once an operator creates the extension, the next start builds them.
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "./schema.ts";

/** The searchable text of a table: the same columns SQLite's FTS5 table holds (migration 0019). */
const INDEXED = [
	["records", "key"],
	["records", "name"],
	["records", "value"],
	["records", "file_name"],
] as const;

/** Ours, taken while creating: nodes starting together, or every test app of one database. */
const LOCK = 1_927_409_112;

export interface Warner {
	warn(details: object, message: string): void;
}

/** Creates what is missing; when pg_trgm cannot be had, says so once and leaves `~` to scan. */
export async function ensureTrigramIndexes(db: Kysely<Database>, log?: Warner): Promise<void> {
	try {
		await db.transaction().execute(async (trx) => {
			await sql`select pg_advisory_xact_lock(${LOCK})`.execute(trx);
			const schema = (await extensionSchema(trx)) ?? (await createExtension(trx));
			for (const [table, column] of INDEXED) {
				// The opclass named with its schema: our search_path may hold only the app's own schema.
				await sql`create index if not exists ${sql.id(`${table}_${column}_trgm`)} on ${sql.table(table)}
					using gin (lower(${sql.ref(column)} collate "C") ${sql.id(schema, "gin_trgm_ops")})`.execute(trx);
			}
		});
	} catch (err) {
		log?.warn(
			{ err: (err as Error).message },
			'pg_trgm is not available: `~` filters run without their index (docs/operations.md, "Search index")',
		);
	}
}

/** Where pg_trgm lives in this database, if it is installed (an operator may have chosen a schema). */
async function extensionSchema(trx: Transaction<Database>): Promise<string | undefined> {
	const { rows } = await sql<{ schema: string }>`
		select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
		where e.extname = 'pg_trgm'`.execute(trx);
	return rows[0]?.schema;
}

/**
 * Once per database, in `public` (never in an app's own schema, which a test drops with cascade).
 * Another client creating it at the same moment makes ours fail on the catalog's unique index:
 * then it is there all the same.
 */
async function createExtension(trx: Transaction<Database>): Promise<string> {
	await sql`savepoint create_pg_trgm`.execute(trx);
	try {
		await sql`create extension if not exists pg_trgm with schema public`.execute(trx);
		await sql`release savepoint create_pg_trgm`.execute(trx);
	} catch (err) {
		await sql`rollback to savepoint create_pg_trgm`.execute(trx);
		const schema = await extensionSchema(trx);
		if (schema) return schema;
		throw err;
	}
	return "public";
}
