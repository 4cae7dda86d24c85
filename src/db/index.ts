// One Kysely instance per app over either dialect; the same query code serves both.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import {
	CompiledQuery,
	type DatabaseConnection,
	type Driver,
	Kysely,
	PostgresDialect,
	type PostgresPool,
	type PostgresPoolClient,
	type SqliteDatabase,
	SqliteDialect,
	type SqliteDialectConfig,
	SqliteDriver,
	type SqliteStatement,
	sql,
} from "kysely";
import type pg from "pg";
import { type CheckpointStats, checkpointInBackground } from "./checkpoints.ts";
import { groupCommit, registerSqliteDirect } from "./direct.ts";
import { migrateToLatest } from "./migrate.ts";
import { namedStatement } from "./prepared.ts";
import type { Database } from "./schema.ts";
import { ensureTrigramIndexes, type Warner } from "./trigram.ts";

export type Dialect = "sqlite" | "postgres";

export interface Store {
	db: Kysely<Database>;
	dialect: Dialect;
	/** Answers when the database does (for /healthz). */
	ping(): Promise<boolean>;
	/** PostgreSQL: the connection pool's use now (for metrics); SQLite has one connection and none. */
	poolUse?(): { total: number; idle: number; waiting: number };
	/** SQLite: a consistent copy of the database to `file` while it is in use (SQLite's online backup). */
	backup?(file: string): Promise<void>;
	/** SQLite: what the WAL checkpoint thread has done (db/checkpoints.ts). */
	checkpoints?(): CheckpointStats;
	destroy(): Promise<void>;
}

/** The settings that open the database (config.ts: DATABASE_URL, DATABASE_SCHEMA, DATA_DIR, SQLITE_SYNCHRONOUS). */
export interface DbConfig {
	databaseUrl: string;
	databaseSchema: string;
	dataDir: string;
	sqliteSynchronous: "NORMAL" | "FULL";
}

/** `log` hears what the store starts without (PostgreSQL without pg_trgm). */
export async function openStore(config: DbConfig, log?: Warner): Promise<Store> {
	if (config.databaseUrl) {
		const store = await openPostgres(config);
		// PostgreSQL: Kysely's migrator takes an advisory lock, so nodes starting together migrate once.
		await migrateToLatest(store.db, config.databaseSchema || undefined);
		await ensureTrigramIndexes(store.db, log);
		return store;
	}
	const store = openSqlite(config, log);
	// SQLite: Kysely takes no lock, so two processes on one DATA_DIR serialise on a lock file.
	await withLockFile(path.join(config.dataDir, ".migrate.lock"), () => migrateToLatest(store.db));
	return store;
}

/** Runs `fn` while holding an exclusive lock file; a lock older than `staleMs` is taken over. */
async function withLockFile<T>(file: string, fn: () => Promise<T>, staleMs = 60_000): Promise<T> {
	const deadline = Date.now() + 2 * staleMs;
	for (;;) {
		try {
			fs.writeFileSync(file, String(process.pid), { flag: "wx" });
			break;
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
			const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
			if (age > staleMs) fs.rmSync(file, { force: true });
			else if (Date.now() > deadline) throw new Error(`could not take ${file}`);
			else await new Promise((r) => setTimeout(r, 50));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(file, { force: true });
	}
}

function openSqlite(config: DbConfig, log?: Warner): Store {
	fs.mkdirSync(config.dataDir, { recursive: true });
	const file = path.join(config.dataDir, "svc.sqlite");
	const conn = new SQLite(file);
	conn.pragma("journal_mode = WAL");
	conn.pragma("foreign_keys = ON");
	conn.pragma("busy_timeout = 5000");
	conn.pragma(`synchronous = ${config.sqliteSynchronous}`);
	const checkpoints = checkpointInBackground(conn, file, config.sqliteSynchronous, log);
	const statements = statementCache(conn);
	const dialect = new ImmediateSqliteDialect({ database: statements });
	const db = new Kysely<Database>({ dialect });
	const idle = () => dialect.driver?.idle() ?? false;
	registerSqliteDirect(db, {
		idle,
		all: <R>(text: string, parameters: readonly unknown[]) => {
			const statement = statements.prepare(text);
			if (statement.reader) return statement.all(parameters) as R[];
			statement.run(parameters);
			return [];
		},
		write: groupCommit(conn, idle, (run) => db.connection().execute(async () => run())),
	});
	return {
		db,
		dialect: "sqlite",
		ping: async () => {
			await sql`select 1`.execute(db);
			return true;
		},
		backup: async (file) => {
			await conn.backup(file);
		},
		checkpoints: () => checkpoints.stats(),
		destroy: async () => {
			await checkpoints.stop();
			await db.destroy();
		},
	};
}

/**
 * Transactions begin with `BEGIN IMMEDIATE`, taking the write lock at once, where Kysely's driver
 * begins deferred. A deferred transaction that has read and then writes while another process holds
 * the write lock (`svc admin` on the same file, a backup) gets SQLITE_BUSY at once: SQLite waits
 * (busy_timeout) only for a transaction that holds no lock yet. Immediate, it waits like any writer.
 * In this process the one connection's mutex already runs transactions one at a time. The driver
 * also counts who holds the connection or waits for it, so db/direct.ts knows when it is free.
 */
class ImmediateSqliteDialect extends SqliteDialect {
	readonly #config: SqliteDialectConfig;
	/** The driver Kysely made (one per Kysely instance), for db/direct.ts's `idle()`. */
	driver: ImmediateSqliteDriver | undefined;
	constructor(config: SqliteDialectConfig) {
		super(config);
		this.#config = config;
	}
	override createDriver(): Driver {
		this.driver = new ImmediateSqliteDriver(this.#config);
		return this.driver;
	}
}

class ImmediateSqliteDriver extends SqliteDriver {
	/** Queries and transactions holding the connection or waiting for it (db/direct.ts). */
	#holders = 0;

	idle(): boolean {
		return this.#holders === 0;
	}

	override async acquireConnection(): Promise<DatabaseConnection> {
		this.#holders++;
		try {
			return await super.acquireConnection();
		} catch (err) {
			this.#holders--;
			throw err;
		}
	}

	override async releaseConnection(): Promise<void> {
		this.#holders--;
		await super.releaseConnection();
	}

	override async beginTransaction(connection: DatabaseConnection): Promise<void> {
		await connection.executeQuery(CompiledQuery.raw("begin immediate"));
	}
}

/**
 * Kysely's SQLite driver prepares every query afresh; preparing costs as much as running a small
 * query. Statements are kept by SQL text (at most `size`, least recently used dropped), which pays
 * off for queries compiled once (db/prepared.ts) and for any query Kysely compiles to the same text.
 * A statement still iterating (a streamed query) is never handed out twice.
 *
 * Rows are read as arrays and made into objects by a function written once per statement: the
 * objects better-sqlite3 builds itself, one property at a time, cost about as much again as the
 * query (five rows of twenty columns: 22 µs as objects, 13 µs as arrays mapped here).
 */
function statementCache(conn: SQLite.Database, size = 256): SqliteDatabase {
	const cache = new Map<string, SqliteStatement & { busy(): boolean }>();
	return {
		close: () => conn.close(),
		prepare(text: string): SqliteStatement {
			const hit = cache.get(text);
			if (hit && !hit.busy()) {
				cache.delete(text);
				cache.set(text, hit);
				return hit;
			}
			const statement = arrayRows(conn.prepare(text));
			if (!hit) {
				cache.set(text, statement);
				if (cache.size > size) cache.delete(cache.keys().next().value as string);
			}
			return statement;
		},
	};
}

/** A statement whose rows come back as arrays and are mapped to objects of its columns. */
function arrayRows(statement: SQLite.Statement): SqliteStatement & { busy(): boolean } {
	const names = statement.reader ? statement.columns().map((c) => c.name) : [];
	if (statement.reader) statement.raw(true);
	// One literal per statement: every row of it gets the same shape. Later columns of the same
	// name win, as they do in better-sqlite3's objects. A column named `__proto__` is written as a
	// computed key, which makes an own property (a plain one would set the prototype).
	const key = (name: string) => (name === "__proto__" ? `["__proto__"]` : JSON.stringify(name));
	const toObject = statement.reader
		? (new Function("r", `return {${names.map((n, i) => `${key(n)}: r[${i}]`).join(", ")}};`) as (
				row: unknown[],
			) => Record<string, unknown>)
		: undefined;
	return {
		reader: statement.reader,
		busy: () => statement.busy,
		all: (parameters) => {
			const rows = statement.all(parameters) as unknown[][];
			return toObject ? rows.map(toObject) : rows;
		},
		run: (parameters) => statement.run(parameters),
		iterate: toObject
			? function* (parameters) {
					for (const row of statement.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(row);
				}
			: (parameters) => statement.iterate(parameters),
	};
}

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

async function openPostgres(config: DbConfig): Promise<Store> {
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
		ping: async () => {
			await sql`select 1`.execute(db);
			return true;
		},
		poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
		destroy: () => db.destroy(),
	};
}
