// Queries compiled once (design "Hot paths"): the public share paths cannot afford Kysely building
// and compiling a query per request. A query is built once with named placeholders, compiled, and
// executed later with the placeholder positions filled in; nothing but parameters ever changes, so
// the SQL text is identical on every call and the SQLite statement cache (db/index.ts) reuses one
// prepared statement for it. On PostgreSQL the same text runs as a named prepared statement
// (`namedStatement`, used by db/index.ts): parsed and planned once per pooled connection. On SQLite,
// a query given the root handle while nothing else holds the connection skips Kysely's executor
// (db/direct.ts): the same statement, run at once.
import crypto from "node:crypto";
import type { Compilable, CompiledQuery, Kysely } from "kysely";
import { type SqliteDirect, sqliteDirect } from "./direct.ts";

/** SQL text of every prepared query → its statement name (a digest of the text, so stable). */
const names = new Map<string, string>();

/** The name a prepared query's text runs under on PostgreSQL; undefined for any other query. */
export function namedStatement(text: string): string | undefined {
	return names.get(text);
}

/** Marks `text` as a hot-path statement worth preparing by name (at most a few dozen exist). */
export function nameStatement(text: string): void {
	if (!names.has(text))
		names.set(text, `svc_${crypto.createHash("sha256").update(text).digest("hex").slice(0, 24)}`);
}

const MARK = "\u0000param:";

/** A named placeholder inside a query given to `prepare`. Typed loosely: it stands for any value. */
// biome-ignore lint/suspicious/noExplicitAny: a placeholder stands for a value of the column's type
export function param(name: string): any {
	return `${MARK}${name}`;
}

/** A compiled query: called with a handle it runs there; `sync` runs it inside a direct write. */
export interface PreparedQuery<P extends Record<string, unknown>, R> {
	(db: { executeQuery: Kysely<unknown>["executeQuery"] }, params: P): Promise<R[]>;
	/** Runs it now on SQLite's connection, for a caller inside `SqliteDirect.write` (`runSteps`). */
	sync(direct: SqliteDirect, params: P): R[];
}

/** Compiles `query` now; the returned function runs it with `params` in place of each `param(name)`. */
export function prepare<P extends Record<string, unknown>, R>(query: Compilable<R>): PreparedQuery<P, R> {
	const compiled = query.compile();
	const slots = compiled.parameters.map((value) =>
		typeof value === "string" && value.startsWith(MARK) ? value.slice(MARK.length) : undefined,
	);
	if (!slots.some((s) => s !== undefined)) throw new Error("prepare: the query has no param()");
	nameStatement(compiled.sql);
	const bind = (params: P) =>
		slots.map((name, i) => {
			if (name === undefined) return compiled.parameters[i];
			if (!Object.hasOwn(params, name)) throw new Error(`prepare: missing parameter ${name}`);
			return params[name];
		});
	const run = async (db: { executeQuery: Kysely<unknown>["executeQuery"] }, params: P): Promise<R[]> => {
		const parameters = bind(params);
		const direct = sqliteDirect(db);
		if (direct?.idle()) return direct.all<R>(compiled.sql, parameters);
		const query: CompiledQuery<R> = { ...compiled, parameters };
		const result = await db.executeQuery(query);
		return result.rows as R[];
	};
	return Object.assign(run, {
		sync: (direct: SqliteDirect, params: P) => direct.all<R>(compiled.sql, bind(params)),
	});
}

/** One statement of an atomic sequence (`runSteps`): a compiled query and its parameters. */
// biome-ignore lint/suspicious/noExplicitAny: a sequence mixes queries of every parameter and row type
export type Step = readonly [PreparedQuery<any, unknown>, Record<string, unknown>];
/** A sequence of statements that sees each one's rows before it picks the next. */
export type Steps<T> = Generator<Step, T, unknown[]>;

/** Inside a `Steps` generator: `const rows = yield* step(query, params)`. */
export function* step<P extends Record<string, unknown>, R>(
	query: PreparedQuery<P, R>,
	params: P,
): Generator<Step, R[], unknown[]> {
	return (yield [query, params]) as R[];
}

/**
 * Runs a sequence of compiled statements as one transaction. On SQLite's root handle it runs
 * synchronously, in its own savepoint of the direct `BEGIN IMMEDIATE` transaction it shares with
 * the other writes of this event-loop round (db/direct.ts, `groupCommit`); on any other handle (a
 * transaction already, a handle with plugins, PostgreSQL) statement by statement in a Kysely one.
 */
export async function runSteps<DB, T>(db: Kysely<DB>, steps: () => Steps<T>): Promise<T> {
	const direct = sqliteDirect(db);
	if (direct) {
		return direct.write(() => {
			const it = steps();
			let next = it.next();
			while (!next.done) next = it.next(next.value[0].sync(direct, next.value[1]));
			return next.value;
		});
	}
	const run = async (handle: Kysely<DB>) => {
		const it = steps();
		let next = it.next();
		while (!next.done) next = it.next(await next.value[0](handle, next.value[1]));
		return next.value;
	};
	return db.isTransaction ? run(db) : db.transaction().execute(run);
}
