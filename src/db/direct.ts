// SQLite without Kysely's executor, for the hot paths (design "Hot paths"). better-sqlite3 is
// synchronous and the process has one connection, which Kysely's driver lends out behind a mutex:
// every query awaits the lock, the connection, the result and the release. When no query or
// transaction holds the connection, a statement run synchronously now cannot interleave with one,
// so a compiled query (db/prepared.ts) runs directly, and a read that must write several rows
// atomically runs them synchronously with no await between, in a `BEGIN IMMEDIATE … COMMIT` it
// shares with the other such writes of its event-loop round (`groupCommit`).
import type BetterSqlite3 from "better-sqlite3";

export interface SqliteDirect {
	/** True when nothing holds the connection: a synchronous call now runs alone on it. */
	idle(): boolean;
	/** Runs one statement: its rows (none for a statement that returns none). */
	all<R>(sql: string, parameters: readonly unknown[]): R[];
	/** `fn` in a write transaction shared with the writes of the same event-loop round (`groupCommit`). */
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

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
interface PendingWrite {
	fn: () => unknown;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

/**
 * `SqliteDirect.write` with group commit. A commit costs about 12 µs whatever it holds (the WAL
 * frames, the wal-index, the locks), more than the view and its read-log row themselves: writes
 * asked for while the event loop handles one round of ready sockets wait for that round to end
 * (`setImmediate`) and then run together in one `BEGIN IMMEDIATE … COMMIT`, each in its own
 * savepoint. Five writes in one commit cost 9 µs each where five commits cost 20 µs each.
 *
 * Each write is still atomic and sees every write before it; one that throws rolls back its own
 * savepoint and rejects alone. A caller hears of its write only after the commit that holds it: a
 * failed commit (or an error that ends the transaction) rejects every write of the group. When a
 * Kysely query or transaction holds the connection, the group runs as soon as Kysely lends it
 * (`lend`), as a single write did before.
 */
export function groupCommit(
	conn: BetterSqlite3.Database,
	idle: () => boolean,
	lend: (run: () => void) => Promise<void>,
): SqliteDirect["write"] {
	const savepoint = conn.transaction((fn: () => unknown) => fn());
	const group = conn.transaction((batch: PendingWrite[], outcomes: Outcome[]) => {
		const only = batch.length === 1 ? batch[0] : undefined;
		if (only) {
			outcomes.push({ ok: true, value: only.fn() });
			return;
		}
		for (const write of batch) {
			try {
				outcomes.push({ ok: true, value: savepoint(write.fn) });
			} catch (error) {
				// An error that ended the whole transaction (SQLITE_FULL, say) takes the group with it.
				if (!conn.inTransaction) throw error;
				outcomes.push({ ok: false, error });
			}
		}
	}).immediate;

	const rejectAll = (batch: PendingWrite[], error: unknown) => {
		for (const write of batch) write.reject(error);
	};
	const run = (batch: PendingWrite[]) => {
		const outcomes: Outcome[] = [];
		try {
			group(batch, outcomes);
		} catch (error) {
			rejectAll(batch, error);
			return;
		}
		batch.forEach((write, i) => {
			const outcome = outcomes[i] as Outcome;
			if (outcome.ok) write.resolve(outcome.value);
			else write.reject(outcome.error);
		});
	};

	let queue: PendingWrite[] = [];
	const flush = () => {
		const batch = queue;
		queue = [];
		if (idle()) run(batch);
		else lend(() => run(batch)).catch((error: unknown) => rejectAll(batch, error));
	};
	return <T>(fn: () => T) =>
		new Promise<T>((resolve, reject) => {
			if (queue.length === 0) setImmediate(flush);
			queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
		});
}
