// The `records` collection: the vault's value and file records of the active workspace.
// Sessions only: an API key never opens the vault, whatever it carries (spec rule 6).
import { sql } from "kysely";
import { Type } from "typebox";
import { seesHidden } from "../../../http/permissions.ts";
import { iso, KEY_PATTERN, Nullable, Timestamp } from "../../collections/fields.ts";
import { defineCollection } from "../../collections/registry.ts";
import { currentValue, fileMeta } from "./reader.ts";
import * as service from "./service.ts";
import { type RecordRow, resolvedValue, selectRecords, withAliasValues } from "./store.ts";

const FileInfo = Type.Object(
	{
		name: Type.String({ description: "The uploaded file's name, sanitised." }),
		type: Type.String({
			description: "Content type sniffed from the first bytes, never the client's claim.",
		}),
		size: Type.Integer({ description: "Bytes." }),
		sha256: Type.String({ description: "Lowercase hex SHA-256 of the bytes." }),
	},
	{
		description:
			"File records only. The bytes: `GET /api/files/{id}?token=` with a token from `POST /api/files/token`.",
	},
);

export const VaultRecord = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String({ description: "The workspace holding the record." }),
		key: Type.String({ description: "Vault key, `[a-z0-9_-]{1,64}`; several records may share a key." }),
		name: Type.String({ description: "Display name, 1 to 200 characters." }),
		type: Type.Union([Type.Literal("value"), Type.Literal("file")], {
			description: "`file` when created with a `file` part, else `value`; fixed at creation.",
		}),
		value: Nullable(
			Type.String(),
			"Value records: the current value (for an alias, its target's current value). File records: null.",
		),
		section: Nullable(Type.String(), "Id of a section of the same workspace."),
		hidden: Type.Boolean({
			description:
				"Seen only by owners and admins: for members and viewers a hidden record (and an alias of one) does not exist. A share holding a hidden record is never handed to a tool.",
		}),
		alias: Nullable(
			Type.String(),
			"Id of another value record of the workspace whose value this one resolves to (one level: a target is never itself an alias).",
		),
		identity: Nullable(Type.String(), "Id of an identity of the workspace (ownership-checked)."),
		file: Nullable(FileInfo, "File records: `{name, type, size, sha256}`; null for value records."),
		version: Type.Integer({ description: "1 at creation, +1 on every change." }),
		created: Timestamp("Creation time."),
		updated: Timestamp("Time of the last change, exact to the millisecond."),
	},
	{ $id: "VaultRecord", description: "A vault record (`records` collection)." },
);

const Key = Type.String({ pattern: KEY_PATTERN, description: "`[a-z0-9_-]{1,64}`" });
const Id = Type.String({ maxLength: 64 });
const writable = {
	name: Type.String({
		minLength: 1,
		maxLength: 200,
		description: "Defaults to the key (or the file's name).",
	}),
	value: Type.String({ maxLength: 100_000, description: "Value records only; not with `alias`." }),
	section: Nullable(Id),
	hidden: Type.Boolean({
		description: "`true` needs an owner's or admin's role (403 `forbidden`, scope `hidden:write`).",
	}),
	alias: Nullable(Id, "Value records only."),
	identity: Nullable(Id, "Refused unless it is an identity of the workspace."),
};

const RecordCreate = Type.Object(
	{
		key: Key,
		name: Type.Optional(writable.name),
		value: Type.Optional(writable.value),
		section: Type.Optional(writable.section),
		hidden: Type.Optional(writable.hidden),
		alias: Type.Optional(writable.alias),
		identity: Type.Optional(writable.identity),
	},
	{ additionalProperties: false },
);

const RecordUpdate = Type.Object(
	{
		key: Type.Optional(Key),
		name: Type.Optional(writable.name),
		value: Type.Optional(writable.value),
		section: Type.Optional(writable.section),
		hidden: Type.Optional(writable.hidden),
		alias: Type.Optional(writable.alias),
		identity: Type.Optional(writable.identity),
	},
	{ additionalProperties: false },
);

const rule = (scope: string) => ({ scope, apiKeys: false });

/** A column of the records' search index (migration 0019-record-search, db/trigram.ts). */
const searched = (column: string) => ({ table: "records", column });

/** The blob store files go to, and what watches records (grant events). */
export type RecordDeps = Pick<Parameters<typeof service.createRecord>[0], "blobs" | "grantHooks">;

export const recordsCollection = defineCollection<
	RecordRow,
	service.RecordInput & { key: string },
	service.RecordInput,
	RecordDeps
>({
	name: "records",
	description:
		"Vault records of the active workspace: value records (JSON) and file records (multipart with a `file` part). Sessions only.",
	schemas: { item: VaultRecord, create: RecordCreate, update: RecordUpdate },
	query: {
		id: { type: "text", expr: sql.ref("records.id"), sort: true },
		key: { type: "text", expr: sql.ref("records.key"), sort: true, search: searched("key") },
		name: { type: "text", expr: sql.ref("records.name"), sort: true, search: searched("name") },
		type: { type: "text", expr: sql.ref("records.kind"), sort: true },
		value: {
			type: "text",
			expr: resolvedValue,
			nullable: true,
			search: { ...searched("value"), via: "alias" },
		},
		section: { type: "text", expr: sql.ref("records.section"), nullable: true },
		hidden: { type: "boolean", expr: sql.ref("records.hidden"), sort: true },
		alias: { type: "text", expr: sql.ref("records.alias"), nullable: true },
		identity: { type: "text", expr: sql.ref("records.identity"), nullable: true },
		"file.name": {
			type: "text",
			expr: sql.ref("records.file_name"),
			nullable: true,
			search: searched("file_name"),
		},
		"file.type": { type: "text", expr: sql.ref("records.file_type"), nullable: true },
		"file.size": { type: "integer", expr: sql.ref("records.file_size"), nullable: true, sort: true },
		version: { type: "integer", expr: sql.ref("records.version"), sort: true },
		created: { type: "date", expr: sql.ref("records.created"), sort: true },
		updated: { type: "date", expr: sql.ref("records.updated"), sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("record:read"),
		view: rule("record:read"),
		create: rule("record:write"),
		update: rule("record:write"),
		delete: rule("record:write"),
	},
	uploads: true,
	idColumn: "records.id",
	select: (db, caller) => selectRecords(db, caller.workspaceId, seesHidden(caller)),
	complete: withAliasValues,
	toItem: (row) => ({
		id: row.id,
		workspace: row.workspace,
		key: row.key,
		name: row.name,
		type: row.kind,
		value: currentValue(row),
		section: row.section,
		hidden: row.hidden === 1,
		alias: row.alias,
		identity: row.identity,
		file: fileMeta(row),
		version: row.version,
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		create: async (ctx, input, upload) => ({ id: await service.createRecord(ctx, input, upload) }),
		update: (ctx, row, input, upload) => service.updateRecord(ctx, row, input, upload),
		delete: (ctx, row) => service.deleteRecord(ctx, row),
	},
});
