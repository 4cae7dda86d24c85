// The embedded default: one better-sqlite3 connection in WAL mode, transactions that take the write
// lock at once, statements kept by their text, rows read as arrays, and the WAL checkpointed off the
// event loop (db/checkpoints.ts).
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import {
	CompiledQuery,
	type DatabaseConnection,
	type Driver,
	Kysely,
	type SqliteDatabase,
	SqliteDialect,
	type SqliteDialectConfig,
	SqliteDriver,
	type SqliteStatement,
} from "kysely";
import { checkpointInBackground } from "./checkpoints.ts";
import { groupCommit, registerSqliteDirect } from "./direct.ts";
import type { Database } from "./schema.ts";
import { type DbConfig, pingOf, type Store } from "./store.ts";
import type { Warner } from "./trigram.ts";

export function openSqlite(config: DbConfig, log?: Warner): Store {
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
		ping: pingOf(db),
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
