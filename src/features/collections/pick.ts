// The `fields` query parameter (PocketBase's): the top-level members of a record a response carries,
// `fields=id,name`; `*` is every member. Names are checked against the collection's record schema and
// picked from what its mapper already served, so a pick can only leave members out. PocketBase's
// nested paths (`expand.author.name`) and modifiers (`:excerpt(200)`) are refused, as is a name the
// record does not have: a typo would otherwise answer records with nothing in them.
import type { TObject } from "typebox";
import { AppError } from "../../http/errors.ts";

export const FIELDS_MAX_LENGTH = 1024;

export const FIELDS_DESCRIPTION =
	"Comma-separated top-level members to return, e.g. `id,name`; `*` is every member, and so is an empty or absent `fields`. " +
	"Members not named are left out of each record (the record schema still lists them all). " +
	"Unknown names, nested paths (`expand.x`) and modifiers (`:excerpt(…)`) are 400 `validation_failed`.";

/** The member names `fields` asks for; undefined for every member. Refused before any query runs. */
export function parseFields(text: string | undefined, item: TObject): string[] | undefined {
	const names = (text ?? "")
		.split(",")
		.map((name) => name.trim())
		.filter(Boolean);
	if (names.length === 0 || names.includes("*")) return undefined;
	const known = Object.keys(item.properties);
	for (const name of names) {
		if (!known.includes(name)) throw fieldsError(name, known);
	}
	return [...new Set(names)];
}

function fieldsError(name: string, known: string[]): AppError {
	const why = /[.:(]/.test(name)
		? "only top-level member names and * are supported"
		: `unknown member (members: ${known.join(", ")})`;
	return new AppError("validation_failed", `querystring.fields ${JSON.stringify(name)}: ${why}`, {
		extra: { field: "querystring.fields" },
	});
}

/** The named members of a record, those it has; nothing it did not already carry. */
export function pickMembers(record: unknown, names: readonly string[]): Record<string, unknown> {
	const from = record as Record<string, unknown>;
	const picked: Record<string, unknown> = {};
	for (const name of names) if (Object.hasOwn(from, name)) picked[name] = from[name];
	return picked;
}

/** The record schema with every member optional: what a response serializes a pick with. */
export function pickedSchema(item: TObject): Record<string, unknown> {
	return { type: "object", properties: item.properties };
}
