// Queries compiled once (design "Hot paths"): the public share paths cannot afford Kysely building
// and compiling a query per request. A query is built once with named placeholders, compiled, and
// executed later with the placeholder positions filled in; nothing but parameters ever changes, so
// the SQL text is identical on every call and the SQLite statement cache (db/index.ts) reuses one
// prepared statement for it. On PostgreSQL the same text runs as a named prepared statement
// (`namedStatement`, used by db/index.ts): parsed and planned once per pooled connection.
import crypto from "node:crypto";
import type { Compilable, CompiledQuery, Kysely } from "kysely";

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

export type Prepared<P extends Record<string, unknown>, R> = (db: Kysely<never>, params: P) => Promise<R[]>;

/** Compiles `query` now; the returned function runs it with `params` in place of each `param(name)`. */
export function prepare<P extends Record<string, unknown>, R>(
	query: Compilable<R>,
): (db: { executeQuery: Kysely<unknown>["executeQuery"] }, params: P) => Promise<R[]> {
	const compiled = query.compile();
	const slots = compiled.parameters.map((value) =>
		typeof value === "string" && value.startsWith(MARK) ? value.slice(MARK.length) : undefined,
	);
	if (!slots.some((s) => s !== undefined)) throw new Error("prepare: the query has no param()");
	nameStatement(compiled.sql);
	return async (db, params) => {
		const parameters = slots.map((name, i) => {
			if (name === undefined) return compiled.parameters[i];
			if (!Object.hasOwn(params, name)) throw new Error(`prepare: missing parameter ${name}`);
			return params[name];
		});
		const run: CompiledQuery<R> = { ...compiled, parameters };
		const result = await db.executeQuery(run);
		return result.rows as R[];
	};
}
