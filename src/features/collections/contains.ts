// `~` (contains) and `!~` of the filter language, the same on both databases: the value is found
// anywhere in the text, A-Z and a-z match each other and every other character only itself
// (SQLite's LIKE rule), `%`, `_` and `\` are plain characters, and a null reads as the empty text.
// A field in the search index is narrowed by it first; the exact test always runs as well, so an
// index only ever removes rows that could not match (test/collections/contains-index.test.ts).
import { type Expression, type SqlBool, sql } from "kysely";
import type { Dialect } from "../../db/index.ts";
import type { QueryField } from "./registry.ts";

/** The FTS5 trigram index matches only runs of at least three characters (code points). */
const INDEXED_MIN_LENGTH = 3;

export function containsSql(
	op: "~" | "!~",
	field: QueryField,
	value: string,
	dialect: Dialect,
): Expression<SqlBool> {
	// Every text contains the empty text, a null included.
	if (value === "") return op === "~" ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
	const pattern = `%${asciiLower(value).replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
	if (op === "!~")
		return sql<SqlBool>`(${field.expr} is null or not (${like(field.expr, pattern, dialect)}))`;
	const search = field.search;
	if (!search) return like(field.expr, pattern, dialect);
	const table = (name: string) => sql.ref(`${search.table}.${name}`);
	if (dialect === "postgres") {
		// The planner takes the pg_trgm index on this expression itself when it pays (and exists).
		const own = like(table(search.column), pattern, dialect);
		if (!search.via) return own;
		const via = table(search.via);
		return sql<SqlBool>`((${via} is null and ${own}) or (${via} is not null and ${like(field.expr, pattern, dialect)}))`;
	}
	if ([...value].length < INDEXED_MIN_LENGTH) return like(field.expr, pattern, dialect);
	// SQLite is told: only rows the FTS5 table names can match, or those reading such a row. The
	// candidate test needs nothing but the rowid, so a walk of an index skips the others unread.
	const t = sql.table(search.table);
	const hits = sql`(select rowid from ${sql.table(`${search.table}_search`)} where ${sql.ref(`${search.table}_search.${search.column}`)} match ${ftsPhrase(value)})`;
	const candidates = search.via
		? sql`(${table("rowid")} in ${hits} or ${table("rowid")} in (select ${sql.ref("reader.rowid")} from ${t} as ${sql.id("reader")} join ${t} as ${sql.id("read")} on ${sql.ref("read.id")} = ${sql.ref(`reader.${search.via}`)} where ${sql.ref("read.rowid")} in ${hits}))`
		: sql`${table("rowid")} in ${hits}`;
	return sql<SqlBool>`${candidates} and ${like(field.expr, pattern, dialect)}`;
}

/**
 * SQLite's LIKE already ignores the case of ASCII letters and no other. PostgreSQL's ignores none,
 * so the text is lower-cased there (the pattern already is), under the "C" collation, whose lower()
 * changes A-Z only: the database's own would change other letters too, as its locale says.
 */
function like(expr: Expression<unknown>, pattern: string, dialect: Dialect): Expression<SqlBool> {
	return dialect === "postgres"
		? sql<SqlBool>`lower(${expr} collate "C") like ${pattern} escape '\\'`
		: sql<SqlBool>`${expr} like ${pattern} escape '\\'`;
}

function asciiLower(value: string): string {
	return value.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/**
 * The value as one FTS5 phrase: its trigrams in a row, which every text containing the value has
 * (the trigram tokenizer folds case, so this finds a superset of the LIKE matches).
 */
function ftsPhrase(value: string): string {
	return `"${value.replaceAll('"', '""')}"`;
}
