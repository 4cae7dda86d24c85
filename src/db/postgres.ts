// PostgreSQL: a pool of ten connections (the driver loaded only when DATABASE_URL is set), int8 read
// as numbers, JIT off, the hot paths' compiled queries as named prepared statements, and
// DATABASE_SCHEMA created once however many nodes start together.
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from "kysely";
import type pg from "pg";
import { namedStatement } from "./prepared.ts";
import type { Database } from "./schema.ts";
import { type DbConfig, pingOf, type Store } from "./store.ts";

/** int8 (20) holds our millisecond times and counts: well inside 2^53, so numbers are exact. */
function int8AsNumber(pgTypes: typeof pg.types) {
	return {
		getTypeParser(oid: number, format?: "text" | "binary") {
			if (oid === 20) return (v: string) => Number(v);
			return pgTypes.getTypeParser(oid, format);
		},
	};
}

/**
 * The pool as Kysely sees it, whose clients run the compiled hot-path queries (db/prepared.ts) as
 * named prepared statements: PostgreSQL parses and plans each once per connection instead of on
 * every call. Every other query goes through unchanged (unnamed, planned per call).
 */
function namedStatements(pool: pg.Pool): PostgresPool {
	const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
	return {
		async connect() {
			const client = await pool.connect();
			let face = wrapped.get(client);
			if (!face) {
				face = {
					query: ((text: string, values: unknown[]) => {
						const name = namedStatement(text);
						return name ? client.query({ name, text, values }) : client.query(text, values);
					}) as unknown as PostgresPoolClient["query"],
					release: () => client.release(),
				};
				wrapped.set(client, face);
			}
			return face;
		},
		end: () => pool.end(),
	};
}

/** Ours, taken while creating DATABASE_SCHEMA (src/db/trigram.ts holds another). */
const SCHEMA_LOCK = 1_927_409_113;

export async function openPostgres(config: DbConfig): Promise<Store> {
	// Loaded only when PostgreSQL is configured: the SQLite default does not carry the driver.
	const { default: pg } = await import("pg");
	const schema = config.databaseSchema;
	if (schema && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
		throw new Error("DATABASE_SCHEMA must be a lower-case SQL identifier");
	}
	if (schema) {
		const boot = new pg.Client({ connectionString: config.databaseUrl });
		await boot.connect();
		try {
			// `if not exists` alone is not safe between nodes starting together on an empty database:
			// both pass the check and the second insert into pg_namespace fails (23505). The lock
			// makes the second wait, then find the schema there.
			await boot.query("begin");
			await boot.query("select pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
			await boot.query(`create schema if not exists "${schema}"`);
			await boot.query("commit");
		} finally {
			await boot.end();
		}
	}
	// JIT off: every statement here is a short OLTP one, and PostgreSQL compiles one as soon as its
	// estimated cost passes `jit_above_cost`, which a plan's never-executed branch can do. At a
	// million shares the open resolve's sections branch (a seq scan of the workspace's records,
	// never run for a share naming no section) did: 74 ms of JIT per 8 ms statement, the spread
	// resolve 4,743 → 486 a second (bench/README.md "How cost grows").
	const options = ["-c jit=off", ...(schema ? [`-c search_path=${schema}`] : [])].join(" ");
	const pool = new pg.Pool({
		connectionString: config.databaseUrl,
		max: 10,
		types: int8AsNumber(pg.types),
		options,
	});
	const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namedStatements(pool) }) });
	return {
		db,
		dialect: "postgres",
		ping: pingOf(db),
		poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
		destroy: () => db.destroy(),
	};
}
