// Turns a parsed filter into a parameterised SQL expression. Field names are checked against the
// collection's declared query fields and every value is bound as a parameter; the only SQL text
// comes from the fixed operator table below and from the collection's own field expressions.
// Values are type-checked per field, so PostgreSQL never sees `bigint = 'abc'` (a 500 otherwise).
import { type Expression, type RawBuilder, type SqlBool, sql } from "kysely";
import type { Dialect } from "../../db/index.ts";
import { parseIsoInstant } from "../../lib/iso-date.ts";
import { containsSql } from "./contains.ts";
import type { ComparisonOp, FilterNode, Literal, Operand } from "./filter.ts";
import { filterError } from "./filter.ts";
import type { QueryField } from "./registry.ts";

const SQL_OP: Record<Exclude<ComparisonOp, "~" | "!~">, RawBuilder<unknown>> = {
	"=": sql`=`,
	"!=": sql`<>`,
	">": sql`>`,
	">=": sql`>=`,
	"<": sql`<`,
	"<=": sql`<=`,
};

// `5 < version` reads as `version > 5`.
const FLIPPED: Record<ComparisonOp, ComparisonOp | undefined> = {
	"=": "=",
	"!=": "!=",
	">": "<",
	">=": "<=",
	"<": ">",
	"<=": ">=",
	"~": undefined,
	"!~": undefined,
};

// ISO 8601 date or date-time; a time without a zone is UTC.
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

export function filterToSql(
	node: FilterNode,
	fields: Readonly<Record<string, QueryField>>,
	dialect: Dialect,
): Expression<SqlBool> {
	switch (node.kind) {
		case "and":
		case "or": {
			const joiner = node.kind === "and" ? sql` and ` : sql` or `;
			const parts = node.items.map((item) => filterToSql(item, fields, dialect));
			return sql<SqlBool>`(${sql.join(parts, joiner)})`;
		}
		case "cmp":
			return comparison(node.op, node.left, node.right, fields, dialect);
	}
}

function field(
	operand: Operand & { kind: "field" },
	fields: Readonly<Record<string, QueryField>>,
): QueryField {
	const f = Object.hasOwn(fields, operand.name) ? fields[operand.name] : undefined;
	if (!f || f.filter === false) {
		const known = Object.entries(fields)
			.filter(([, q]) => q.filter !== false)
			.map(([name]) => name)
			.join(", ");
		throw filterError(`unknown field "${operand.name}" (filterable: ${known})`, operand.at);
	}
	return f;
}

function comparison(
	op: ComparisonOp,
	left: Operand,
	right: Operand,
	fields: Readonly<Record<string, QueryField>>,
	dialect: Dialect,
): Expression<SqlBool> {
	if (left.kind === "literal" && right.kind === "field") {
		const flipped = FLIPPED[op];
		if (!flipped) throw filterError(`"${op}" needs the field on its left`, left.at);
		return comparison(flipped, right, left, fields, dialect);
	}
	if (left.kind === "literal") throw filterError("a comparison needs a field on at least one side", left.at);
	const lf = field(left, fields);

	if (right.kind === "field") {
		const rf = field(right, fields);
		if (lf.type !== rf.type) {
			throw filterError(
				`cannot compare ${lf.type} field "${left.name}" with ${rf.type} field "${right.name}"`,
				left.at,
			);
		}
		if (op === "~" || op === "!~") throw filterError(`"${op}" needs a string on its right`, right.at);
		if (lf.type === "boolean" && op !== "=" && op !== "!=") {
			throw filterError(`boolean field "${left.name}" takes only = and !=`, left.at);
		}
		if (op === "!=" && (lf.nullable || rf.nullable)) {
			return sql<SqlBool>`${lf.expr} is distinct from ${rf.expr}`;
		}
		return sql<SqlBool>`${lf.expr} ${SQL_OP[op]} ${rf.expr}`;
	}

	const value = right.value;
	if (value === null) {
		if (op === "=") return sql<SqlBool>`${lf.expr} is null`;
		if (op === "!=") return sql<SqlBool>`${lf.expr} is not null`;
		throw filterError(`null takes only = and !=`, right.at);
	}
	if (op === "~" || op === "!~") {
		if (lf.type !== "text")
			throw filterError(`"${op}" works on text fields; "${left.name}" is ${lf.type}`, left.at);
		if (typeof value !== "string") throw filterError(`"${op}" needs a string on its right`, right.at);
		return containsSql(op, lf, value, dialect);
	}
	const bound = asColumnLiteral(bindValue(lf, left.name, value, right.at), dialect);
	if (lf.type === "boolean" && op !== "=" && op !== "!=") {
		throw filterError(`boolean field "${left.name}" takes only = and !=`, left.at);
	}
	if (op === "!=" && lf.nullable) return sql<SqlBool>`${lf.expr} is distinct from ${bound}`;
	return sql<SqlBool>`${lf.expr} ${SQL_OP[op]} ${bound}`;
}

/** The literal as the column stores it: booleans as 0/1, dates as integer milliseconds. */
function bindValue(f: QueryField, name: string, value: Exclude<Literal, null>, at: number): string | number {
	switch (f.type) {
		case "text":
			if (typeof value !== "string") throw filterError(`text field "${name}" compares with a string`, at);
			return value;
		case "integer":
			if (typeof value !== "number" || !Number.isSafeInteger(value)) {
				throw filterError(`integer field "${name}" compares with an integer`, at);
			}
			return value;
		case "boolean":
			if (typeof value !== "boolean")
				throw filterError(`boolean field "${name}" compares with true or false`, at);
			return value ? 1 : 0;
		case "date": {
			if (typeof value === "number" && Number.isSafeInteger(value)) return value;
			const ms =
				typeof value === "string" && DATE.test(value)
					? parseIsoInstant(value, { dateOnly: true, zoneless: true })
					: undefined;
			if (ms === undefined) {
				throw filterError(`date field "${name}" compares with an ISO 8601 date such as "2025-01-31"`, at);
			}
			return ms;
		}
	}
}

/**
 * A number compared as a 64-bit integer on both dialects. PostgreSQL types a bare parameter after
 * the column it meets, so a literal beyond an `integer` (int4) column's range (`version > 2^31`)
 * fails to convert there (a 500) while SQLite, whose integers are all 64-bit, compares it. Bound
 * as `bigint`, every integer literal (at most 2^53 - 1 in magnitude: `bindValue` refuses the rest)
 * compares by value with any integer column, int4 or bigint, as SQLite does: the same rows on both,
 * and PostgreSQL still uses the column's index (int4 and int8 share one btree operator family).
 * Here once for every integer and date field, never per field.
 */
function asColumnLiteral(value: string | number, dialect: Dialect): unknown {
	if (typeof value !== "number" || dialect !== "postgres") return value;
	return sql`cast(${value} as bigint)`;
}
