// What a template is made of: the items a request asks responders for, and their rules. Requests,
// answers, callbacks and the share formats speak of items through this module.
import type { Kysely, Transaction } from "kysely";
import { type Static, Type } from "typebox";
import type { Database } from "../../../db/schema.ts";
import { invalidField, KEY_PATTERN } from "../../collections/fields.ts";
import * as store from "./store.ts";

export const TEMPLATE_ITEM_TYPES = [
	"text",
	"email",
	"phone",
	"date",
	"number",
	"url",
	"address",
	"file",
] as const;
export type TemplateItemType = (typeof TEMPLATE_ITEM_TYPES)[number];
export const TEMPLATE_MAX_ITEMS = 100;

export const TemplateItem = Type.Object(
	{
		key: Type.String({
			pattern: KEY_PATTERN,
			description: "`[a-z0-9_-]{1,64}` like vault keys; unique in the template.",
		}),
		label: Type.String({ minLength: 1, maxLength: 200 }),
		// Typed by its literals: a union built from a mapped array would type as `never`.
		type: Type.Unsafe<TemplateItemType>(
			Type.Union(
				TEMPLATE_ITEM_TYPES.map((t) => Type.Literal(t)),
				{ description: TEMPLATE_ITEM_TYPES.map((t) => `\`${t}\``).join(", ") },
			),
		),
		required: Type.Boolean(),
		description: Type.Optional(Type.String({ maxLength: 1000 })),
	},
	{ additionalProperties: false, description: "One field a request asks for." },
);
export type TemplateItem = Static<typeof TemplateItem>;

/** Keys must be unique: an answer maps each key to one value. Answers the stored JSON (requests reuse it). */
export function checkItems(items: TemplateItem[]): string {
	const seen = new Set<string>();
	items.forEach((item, i) => {
		if (seen.has(item.key))
			throw invalidField(`items.${i}.key`, `repeats the key ${JSON.stringify(item.key)}`);
		seen.add(item.key);
	});
	// Explicit members only, in a fixed order.
	return JSON.stringify(
		items.map((i) => ({
			key: i.key,
			label: i.label,
			type: i.type,
			required: i.required,
			...(i.description === undefined ? {} : { description: i.description }),
		})),
	);
}

/** The items of a template of `workspaceId` (a request built from one copies them); undefined when none. */
export async function templateItems(
	db: Kysely<Database> | Transaction<Database>,
	workspaceId: string,
	id: string,
): Promise<TemplateItem[] | undefined> {
	const row = await store.selectTemplates(db, workspaceId).where("templates.id", "=", id).executeTakeFirst();
	return row ? (JSON.parse(row.items) as TemplateItem[]) : undefined;
}
