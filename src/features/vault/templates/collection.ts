// The `templates` collection: what a request asks responders for, as a list of TemplateItem.
// Open to API keys holding `templates:read` / `templates:write`.
import { sql } from "kysely";
import { type Static, Type } from "typebox";
import type { TemplateTable } from "../../../db/schema.ts";
import { newId } from "../../../lib/crypto.ts";
import { invalidField, iso, Timestamp } from "../../collections/fields.ts";
import { defineCollection } from "../../collections/registry.ts";
import { checkItems, TEMPLATE_MAX_ITEMS, TemplateItem } from "./service.ts";
import * as store from "./store.ts";

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
