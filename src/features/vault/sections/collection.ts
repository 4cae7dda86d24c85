// The `sections` collection: named, ordered groups of vault records. A section grants nothing
// itself; a share lists the records it grants and the sections holding them. Sessions only.
import { sql } from "kysely";
import { Type } from "typebox";
import { isUniqueViolation } from "../../../db/errors.ts";
import type { SectionTable } from "../../../db/schema.ts";
import { AppError } from "../../../http/errors.ts";
import { seesHidden } from "../../../http/permissions.ts";
import { newId } from "../../../lib/crypto.ts";
import { invalidField, iso, KEY_PATTERN, Timestamp } from "../../collections/fields.ts";
import { defineCollection } from "../../collections/registry.ts";
import * as store from "./store.ts";

export const Section = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		key: Type.String({ description: "`[a-z0-9_-]{1,64}`, unique in the workspace." }),
		name: Type.String({ description: "Display name, 1 to 200 characters." }),
		ordering: Type.Integer({ description: "Position among the workspace's sections, ascending." }),
		created: Timestamp("Creation time."),
		updated: Timestamp("Time of the last change."),
	},
	{ $id: "Section", description: "A vault section (`sections` collection)." },
);

const fields = {
	key: Type.String({ pattern: KEY_PATTERN }),
	name: Type.String({ minLength: 1, maxLength: 200 }),
	ordering: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: "Defaults to 0." }),
};

const SectionCreate = Type.Object(
	{ key: fields.key, name: fields.name, ordering: Type.Optional(fields.ordering) },
	{ additionalProperties: false },
);
const SectionUpdate = Type.Object(
	{
		key: Type.Optional(fields.key),
		name: Type.Optional(fields.name),
		ordering: Type.Optional(fields.ordering),
	},
	{ additionalProperties: false },
);

type Create = { key: string; name: string; ordering?: number };
type Update = Partial<Create>;

const rule = (scope: string) => ({ scope, apiKeys: false });

async function uniqueKey<T>(key: string | undefined, write: () => Promise<T>): Promise<T> {
	try {
		return await write();
	} catch (err) {
		if (isUniqueViolation(err))
			throw new AppError("conflict", `A section with key ${JSON.stringify(key)} exists`);
		throw err;
	}
}

export const sectionsCollection = defineCollection<SectionTable, Create, Update>({
	name: "sections",
	description: "Sections of the active workspace's vault. Sessions only.",
	schemas: { item: Section, create: SectionCreate, update: SectionUpdate },
	query: {
		id: { type: "text", expr: sql.ref("sections.id"), sort: true },
		key: { type: "text", expr: sql.ref("sections.key"), sort: true },
		name: { type: "text", expr: sql.ref("sections.name"), sort: true },
		ordering: { type: "integer", expr: sql.ref("sections.ordering"), sort: true },
		created: { type: "date", expr: sql.ref("sections.created"), sort: true },
		updated: { type: "date", expr: sql.ref("sections.updated"), sort: true },
	},
	defaultSort: "ordering,created",
	access: {
		list: rule("section:read"),
		view: rule("section:read"),
		create: rule("section:write"),
		update: rule("section:write"),
		delete: rule("section:write"),
	},
	idColumn: "sections.id",
	select: (db, caller) => store.selectSections(db, caller.workspaceId),
	toItem: (row) => ({
		id: row.id,
		workspace: row.workspace,
		key: row.key,
		name: row.name,
		ordering: row.ordering,
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		async create({ db, caller, now }, input) {
			const name = input.name.trim();
			if (name === "") throw invalidField("name", "must not be blank");
			const id = newId();
			await uniqueKey(input.key, () =>
				store.insertSection(db, {
					id,
					workspace: caller.workspaceId,
					key: input.key,
					name,
					ordering: input.ordering ?? 0,
					created: now,
					updated: now,
				}),
			);
			return { id };
		},
		async update({ db, now }, row, input) {
			const name = input.name?.trim();
			if (name === "") throw invalidField("name", "must not be blank");
			const changes = { ...input, ...(name === undefined ? {} : { name }) };
			if (Object.keys(changes).length === 0) return;
			await uniqueKey(input.key, () => store.updateSection(db, row.id, changes, now));
		},
		async delete({ db, caller }, row) {
			// Deleting moves the section's records out of it: hidden ones are not a member's to move.
			if (!seesHidden(caller) && (await store.holdsHidden(db, row.id))) {
				throw new AppError(
					"forbidden",
					"This section holds entries only owners and admins see: they delete it",
					{
						extra: { scope: "hidden:write" },
					},
				);
			}
			await store.deleteSection(db, row.id);
		},
	},
});
