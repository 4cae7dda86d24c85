// The vault export's JSON form, version 1 (docs/api.md "Vault export and import"): `vault.json` at
// the root of the zip, each file entry's bytes beside it under `files/<entry id>/<file name>`.
// Entries name their section by key and their alias target by the target's `id` in the document;
// ids, versions and times are the exporting server's and are not carried over by an import.
import { Ajv } from "ajv";
import { type Static, Type } from "typebox";
import type {
	ContentEntry,
	ContentTemplate,
	Refusal,
	TemplateItem,
	VaultContents,
} from "../vault/service.ts";
import {
	NAME_MAX,
	TEMPLATE_ITEM_TYPES,
	TEMPLATE_MAX_ITEMS,
	TEMPLATE_NAME_MAX,
	VALUE_MAX,
} from "../vault/service.ts";
import { MAX_ENTRIES, MAX_SECTIONS, MAX_TEMPLATES } from "./limits.ts";

export const FORMAT = "svc-vault-export";
export const VERSION = 1;
export const DOCUMENT_NAME = "vault.json";
const KEY = "^[a-z0-9_-]{1,64}$";
const ID = "^[A-Za-z0-9_-]{1,64}$";

const Section = Type.Object(
	{
		key: Type.String({ pattern: KEY }),
		name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
		ordering: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 }),
	},
	{ additionalProperties: false },
);

const File = Type.Object(
	{
		path: Type.String({ minLength: 1, maxLength: 512, description: "The entry's bytes in the zip." }),
		name: Type.String({ minLength: 1, maxLength: 255 }),
		type: Type.String({
			maxLength: 255,
			description: "As sniffed by the exporting server; re-sniffed on import.",
		}),
		size: Type.Integer({ minimum: 0 }),
		sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
	},
	{ additionalProperties: false },
);

const Entry = Type.Object(
	{
		id: Type.String({ pattern: ID, description: "The entry's id in the document (aliases point at it)." }),
		key: Type.String({ pattern: KEY }),
		name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
		type: Type.Union([Type.Literal("value"), Type.Literal("file")]),
		value: Type.Union([Type.String({ maxLength: VALUE_MAX }), Type.Null()], {
			description: "Value entries: the value (an alias: empty). File entries: null.",
		}),
		section: Type.Union([Type.String({ pattern: KEY }), Type.Null()], { description: "A section's key." }),
		hidden: Type.Boolean(),
		alias: Type.Union([Type.String({ pattern: ID }), Type.Null()], { description: "Another entry's `id`." }),
		file: Type.Union([File, Type.Null()]),
		created: Type.Optional(Type.String({ format: "date-time", description: "Informational." })),
		updated: Type.Optional(Type.String({ format: "date-time", description: "Informational." })),
	},
	{ additionalProperties: false },
);

const Item = Type.Object(
	{
		key: Type.String({ pattern: KEY }),
		label: Type.String({ minLength: 1, maxLength: NAME_MAX }),
		// Typed by its literals: a union built from a mapped array would type as `never`.
		type: Type.Unsafe<(typeof TEMPLATE_ITEM_TYPES)[number]>(
			Type.Union(TEMPLATE_ITEM_TYPES.map((t) => Type.Literal(t))),
		),
		required: Type.Boolean(),
		description: Type.Optional(Type.String({ maxLength: 1000 })),
	},
	{ additionalProperties: false },
);

const Template = Type.Object(
	{
		name: Type.String({ minLength: 1, maxLength: TEMPLATE_NAME_MAX }),
		items: Type.Array(Item, { maxItems: TEMPLATE_MAX_ITEMS }),
	},
	{ additionalProperties: false },
);

export const ExportDocument = Type.Object(
	{
		format: Type.Literal(FORMAT),
		version: Type.Literal(VERSION),
		exported: Type.String({ format: "date-time" }),
		server: Type.String({ maxLength: 255, description: "The exporting server's domain." }),
		workspace: Type.String({ maxLength: 64, description: "The exported workspace's id (informational)." }),
		sections: Type.Array(Section, { maxItems: MAX_SECTIONS }),
		entries: Type.Array(Entry, { maxItems: MAX_ENTRIES }),
		templates: Type.Array(Template, { maxItems: MAX_TEMPLATES }),
	},
	{ additionalProperties: false },
);
export type ExportDocument = Static<typeof ExportDocument>;
export type DocumentEntry = ExportDocument["entries"][number];

const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(ExportDocument);

/** The document's own refusals, each named by its JSON pointer (`/entries/3/key`); [] when it is well-formed. */
export function checkDocument(doc: unknown): Refusal[] {
	if (validate(doc)) return (doc as ExportDocument).entries.flatMap((e, i) => kindRefusals(e, i));
	// A wrong format or version says so first: the rest of the errors would only follow from it.
	const top = doc as { format?: unknown; version?: unknown } | null;
	if (typeof top !== "object" || top === null || Array.isArray(top))
		return [{ at: "/", message: "must be a JSON object" }];
	if (top.format !== FORMAT) return [{ at: "/format", message: `must be "${FORMAT}"` }];
	if (top.version !== VERSION)
		return [{ at: "/version", message: `must be ${VERSION}; this server reads version ${VERSION}` }];
	return (validate.errors ?? []).slice(0, 100).map((e) => ({
		at: e.instancePath || "/",
		message:
			e.keyword === "additionalProperties"
				? `has an unknown member ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`
				: (e.message ?? "is not valid"),
	}));
}

/** A file entry carries its file and no value; a value entry no file. */
function kindRefusals(e: DocumentEntry, i: number): Refusal[] {
	if (e.type === "file" && e.file === null)
		return [{ at: `/entries/${i}/file`, message: "a file entry needs its file" }];
	if (e.type === "value" && e.file !== null)
		return [{ at: `/entries/${i}/file`, message: "must be null for a value entry" }];
	if (e.type === "file" && e.value !== null)
		return [{ at: `/entries/${i}/value`, message: "must be null for a file entry" }];
	return [];
}

/** The contents a well-formed document describes, each part named by its JSON pointer. */
export function contentsOf(doc: ExportDocument): VaultContents {
	return {
		sections: doc.sections.map((s, i) => ({ at: `/sections/${i}`, ...s })),
		entries: doc.entries.map(
			(e, i): ContentEntry => ({
				at: `/entries/${i}`,
				ref: e.id,
				key: e.key,
				name: e.name,
				section: e.section,
				hidden: e.hidden,
				alias: e.alias,
				value: e.type === "file" ? null : e.alias !== null && !e.value ? null : (e.value ?? ""),
				file: e.file ? { name: e.file.name, size: e.file.size, sha256: e.file.sha256 } : null,
			}),
		),
		templates: doc.templates.map(
			(t, i): ContentTemplate => ({ at: `/templates/${i}`, name: t.name, items: t.items as TemplateItem[] }),
		),
	};
}

/** Where an entry's bytes lie in the archive: under its own id, so no two entries meet. */
export function filePath(id: string, name: string): string {
	const safe = name.replace(/[\\/\p{Cc}]/gu, "_").replace(/^\.+/, "_") || "file";
	return `files/${id}/${safe}`;
}
