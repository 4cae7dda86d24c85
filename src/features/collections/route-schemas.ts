// The schemas of the collection routes: the query strings, the id parameter, the list envelope,
// the request bodies (JSON, and multipart for collections with uploads), and what each operation
// tells the OpenAPI document.
import { type TObject, type TSchema, Type } from "typebox";
import { QueryBoolean } from "../../http/schemas.ts";
import { PAGE_MAX, PER_PAGE_DEFAULT, PER_PAGE_MAX } from "./list.ts";
import { FIELDS_DESCRIPTION, FIELDS_MAX_LENGTH } from "./pick.ts";
import type { AnyCollection, Operation } from "./registry.ts";

const Fields = Type.Optional(Type.String({ maxLength: FIELDS_MAX_LENGTH, description: FIELDS_DESCRIPTION }));

/** View, create and update: the record in the response, `fields` picking its members. */
export const RecordQuerySchema = Type.Object({ fields: Fields });

export const ListQuerySchema = Type.Object({
	filter: Type.Optional(
		Type.String({
			description:
				'Filter expression, e.g. `key = "iban" && (hidden = false || created >= "2025-01-01")`. Operators `= != > >= < <= ~ !~` (`~` contains, `!~` does not: A-Z and a-z match each other, every other character only itself, and `%` `_` are no wildcards), `&&`, `||`, parentheses; values are strings, numbers, `true`, `false`, `null`. At most 2048 characters, 10 levels of parentheses and 50 comparisons.',
		}),
	),
	sort: Type.Optional(
		Type.String({ description: "Comma-separated sortable fields, `-` for descending: `-created,name`." }),
	),
	page: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1 })),
	perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT })),
	skipTotal: Type.Optional(
		QueryBoolean(
			"Skip counting: `totalItems` and `totalPages` are -1. The count visits every match (from an index alone where one covers the filter), the page only its own rows: skip it when the total is not shown.",
		),
	),
	fields: Fields,
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

/** The list envelope, PocketBase's. */
export function pageSchema(item: TSchema) {
	return Type.Object({
		page: Type.Integer(),
		perPage: Type.Integer({ description: `The page size used (at most ${PER_PAGE_MAX}).` }),
		totalItems: Type.Integer({ description: "-1 with `skipTotal`" }),
		totalPages: Type.Integer({ description: "-1 with `skipTotal`" }),
		items: Type.Array(item),
	});
}

export function ref(id: string) {
	return Type.Unsafe<unknown>({ $ref: `${id}#` });
}

/** Tags, summary, description and security of one operation; one without a rule is hidden. */
export function operationMeta(module: AnyCollection, op: Operation, summary: string) {
	const rule = module.access[op];
	const security: Record<string, string[]>[] =
		rule?.apiKeys === false ? [{ Session: [] }] : [{ ApiKey: [] }, { Session: [] }];
	return {
		tags: [`collection: ${module.name}`],
		summary: rule ? summary : `${summary} (not offered: 405)`,
		description: rule
			? `Needs scope \`${rule.scope}\`${rule.apiKeys ? "" : "; API keys are refused"}.`
			: (module.refusals?.[op] ?? "Not offered for this collection."),
		security,
		// An operation without a rule still answers (405), but is not advertised.
		hide: !rule,
	};
}

/** The body of a create or update: JSON, and for collections with uploads also multipart. */
export function bodySchema(module: AnyCollection, schema: TObject | undefined) {
	if (!schema) return Type.Object({});
	if (!module.uploads) return schema;
	const form = Type.Object(
		{
			...schema.properties,
			file: Type.Optional(
				Type.Unsafe<unknown>({ type: "string", format: "binary", description: "The file's bytes." }),
			),
		},
		{
			description: "Form fields as in the JSON body (booleans as `true`/`false`), plus the bytes in `file`.",
		},
	);
	return { content: { "application/json": { schema }, "multipart/form-data": { schema: form } } };
}
