// `sort=-created,name`: comma-separated field names, `-` for descending (`+` or nothing ascending),
// each checked against the collection's sortable fields. The id is always appended so that pages
// are stable when many rows share a value.
import { type Expression, sql } from "kysely";
import { AppError } from "../../http/errors.ts";
import type { QueryField } from "./registry.ts";

export const MAX_SORT_TERMS = 5;

export interface SortTerm {
	name: string;
	expr: Expression<unknown>;
	desc: boolean;
	nullable: boolean;
}

function sortError(message: string): AppError {
	return new AppError("sort_invalid", `sort: ${message}`, { extra: { field: "querystring.sort" } });
}

export function parseSort(
	input: string,
	fields: Readonly<Record<string, QueryField>>,
	idColumn: string,
): SortTerm[] {
	const terms: SortTerm[] = [];
	const parts = input.split(",").map((p) => p.trim());
	if (parts.length > MAX_SORT_TERMS) throw sortError(`at most ${MAX_SORT_TERMS} fields`);
	for (const part of parts) {
		if (part === "") throw sortError("empty field name");
		const desc = part.startsWith("-");
		const name = desc || part.startsWith("+") ? part.slice(1) : part;
		const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
		if (!field?.sort) {
			const known = Object.entries(fields)
				.filter(([, f]) => f.sort)
				.map(([n]) => n)
				.join(", ");
			throw sortError(`"${name}" is not a sortable field (sortable: ${known})`);
		}
		if (terms.some((t) => t.name === name)) throw sortError(`"${name}" appears twice`);
		terms.push({ name, expr: field.expr, desc, nullable: Boolean(field.nullable) });
	}
	if (!terms.some((t) => t.name === "id")) {
		const last = terms[terms.length - 1];
		terms.push({ name: "id", expr: sql.ref(idColumn), desc: last?.desc ?? false, nullable: false });
	}
	return terms;
}
