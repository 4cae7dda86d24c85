// SQLite without Kysely's executor, for the hot paths (design "Hot paths"). better-sqlite3 is
// synchronous and the process has one connection, which Kysely's driver lends out behind a mutex:
// every query awaits the lock, the connection, the result and the release. When no query or
// transaction holds the connection, a statement run synchronously now cannot interleave with one,
// so a compiled query (db/prepared.ts) runs directly, and a read that must write several rows
// atomically runs them in one synchronous `BEGIN IMMEDIATE … COMMIT` with no await between.

export interface SqliteDirect {
	/** True when nothing holds the connection: a synchronous call now runs alone on it. */
	idle(): boolean;
	/** Runs one statement: its rows (none for a statement that returns none). */
	all<R>(sql: string, parameters: readonly unknown[]): R[];
	/** Runs `fn` in `BEGIN IMMEDIATE … COMMIT`, rolled back when it throws. Only when `idle()`. */
	transaction<T>(fn: () => T): T;
	/** `transaction(fn)` at once when the connection is free, else as soon as Kysely lends it. */
	write<T>(fn: () => T): Promise<T>;
}

const directs = new WeakMap<object, SqliteDirect>();

/** The direct face of `db` when it is a SQLite handle's root (never a transaction's); else undefined. */
export function sqliteDirect(db: object): SqliteDirect | undefined {
	return directs.get(db);
}

/** Called once by db/index.ts for the SQLite handle it opens. */
export function registerSqliteDirect(db: object, direct: SqliteDirect): void {
	directs.set(db, direct);
}
