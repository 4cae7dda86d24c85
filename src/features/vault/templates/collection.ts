// The `templates` collection: what a request asks responders for, as a list of TemplateItem.
// Open to API keys holding `templates:read` / `templates:write`.
import { type Kysely, sql, type Transaction } from "kysely";
import { type Static, Type } from "typebox";
import type { Database, TemplateTable } from "../../../db/schema.ts";
import { newId } from "../../../lib/crypto.ts";
import { invalidField, iso, KEY_PATTERN, Timestamp } from "../../collections/fields.ts";
import { defineCollection } from "../../collections/registry.ts";
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

const Items = Type.Array(TemplateItem, {
	maxItems: TEMPLATE_MAX_ITEMS,
	description: `At most ${TEMPLATE_MAX_ITEMS}.`,
});
const Name = Type.String({
	minLength: 1,
	maxLength: 80,
	description: "1 to 80 characters (the `template` app-link parameter).",
});

export const Template = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		name: Type.String(),
		items: Type.Array(TemplateItem),
		created: Timestamp("Creation time."),
		updated: Timestamp("Time of the last change."),
	},
	{ $id: "Template", description: "A request template (`templates` collection)." },
);

const TemplateCreate = Type.Object({ name: Name, items: Items }, { additionalProperties: false });
const TemplateUpdate = Type.Object(
	{ name: Type.Optional(Name), items: Type.Optional(Items) },
	{ additionalProperties: false },
);

type Create = Static<typeof TemplateCreate>;
type Update = Static<typeof TemplateUpdate>;

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

function checkName(name: string): string {
	const trimmed = name.trim();
	if (trimmed === "") throw invalidField("name", "must not be blank");
	return trimmed;
}

const rule = (scope: string) => ({ scope, apiKeys: true });

export const templatesCollection = defineCollection<TemplateTable, Create, Update>({
	name: "templates",
	description: "Request templates of the active workspace.",
	schemas: { item: Template, create: TemplateCreate, update: TemplateUpdate },
	query: {
		id: { type: "text", expr: sql.ref("templates.id"), sort: true },
		name: { type: "text", expr: sql.ref("templates.name"), sort: true },
		created: { type: "date", expr: sql.ref("templates.created"), sort: true },
		updated: { type: "date", expr: sql.ref("templates.updated"), sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("template:read"),
		view: rule("template:read"),
		create: rule("template:write"),
		update: rule("template:write"),
		delete: rule("template:write"),
	},
	idColumn: "templates.id",
	select: (db, caller) => store.selectTemplates(db, caller.workspaceId),
	toItem: (row) => ({
		id: row.id,
		workspace: row.workspace,
		name: row.name,
		items: JSON.parse(row.items) as TemplateItem[],
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		async create({ db, caller, now }, input) {
			const id = newId();
			const row = {
				id,
				workspace: caller.workspaceId,
				name: checkName(input.name),
				items: checkItems(input.items),
			};
			await store.insertTemplate(db, { ...row, created: now, updated: now });
			return { id };
		},
		async update({ db, now }, row, input) {
			const changes = {
				...(input.name === undefined ? {} : { name: checkName(input.name) }),
				...(input.items === undefined ? {} : { items: checkItems(input.items) }),
			};
			if (Object.keys(changes).length > 0) await store.updateTemplate(db, row.id, changes, now);
		},
		async delete({ db }, row) {
			await store.deleteTemplate(db, row.id);
		},
	},
});
