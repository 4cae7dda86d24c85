// Kysely queries for vault records. An alias is resolved with one lookup: the service keeps aliases
// one level deep (a target is never itself an alias), so no chain or cycle can form.
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database, RecordTable } from "../../../db/schema.ts";
import { hiddenForMembers } from "./hidden.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** A record with, for an alias, its target's current value (filled in by withAliasValues). */
export type RecordRow = RecordTable & { target_value?: string | null };

const COLUMNS = [
	"records.id",
	"records.workspace",
	"records.key",
	"records.name",
	"records.kind",
	"records.value",
	"records.section",
	"records.hidden",
	"records.alias",
	"records.identity",
	"records.file_key",
	"records.file_name",
	"records.file_type",
	"records.file_size",
	"records.file_sha256",
	"records.version",
	"records.created",
	"records.updated",
] as const;

/**
 * The records of one workspace; `withAliasValues` adds each alias's current value to a page. Without
 * `seesHidden` (members and viewers) hidden records are left out, and so are aliases of them (an
 * alias reads its target's value): they are absent from lists, filters, searches and counts, and a
 * view of one is 404 like an unknown id.
 */
export function selectRecords(db: Db, workspaceId: string, seesHidden = true) {
	const q = db.selectFrom("records").where("records.workspace", "=", workspaceId).select(COLUMNS);
	return seesHidden ? q : q.where((eb) => eb.not(hiddenForMembers(eb)));
}

/** An alias's current value is its target's: one lookup for the whole page, not one per row. */
export async function withAliasValues(db: Db, rows: RecordRow[]): Promise<RecordRow[]> {
	const targets = [...new Set(rows.flatMap((r) => (r.alias === null ? [] : [r.alias])))];
	if (targets.length === 0) return rows;
	const found = await db.selectFrom("records").select(["id", "value"]).where("id", "in", targets).execute();
	const values = new Map(found.map((t) => [t.id, t.value]));
	return rows.map((r) => (r.alias === null ? r : { ...r, target_value: values.get(r.alias) ?? null }));
}

/** The value a filter sees: the record's own, or for an alias its target's (looked up only for aliases). */
export const resolvedValue = sql<
	string | null
>`case when ${sql.ref("records.alias")} is null then ${sql.ref("records.value")} else (select ${sql.ref("target.value")} from ${sql.table("records")} as ${sql.id("target")} where ${sql.ref("target.id")} = ${sql.ref("records.alias")}) end`;

export function findRecord(db: Db, workspaceId: string, id: string) {
	return db
		.selectFrom("records")
		.selectAll()
		.where("workspace", "=", workspaceId)
		.where("id", "=", id)
		.executeTakeFirst();
}

export function findSection(db: Db, workspaceId: string, id: string) {
	return db
		.selectFrom("sections")
		.select("id")
		.where("workspace", "=", workspaceId)
		.where("id", "=", id)
		.executeTakeFirst();
}

export async function hasAliases(db: Db, id: string): Promise<boolean> {
	const row = await db.selectFrom("records").select("id").where("alias", "=", id).limit(1).executeTakeFirst();
	return row !== undefined;
}

export function insertRecord(db: Db, row: RecordTable) {
	return db.insertInto("records").values(row).execute();
}

export type RecordChanges = Partial<
	Pick<
		RecordTable,
		| "key"
		| "name"
		| "value"
		| "section"
		| "hidden"
		| "alias"
		| "identity"
		| "file_key"
		| "file_name"
		| "file_type"
		| "file_size"
		| "file_sha256"
	>
>;

/** Applies the changes and bumps `version`; `updated` is the exact millisecond of the change. */
export function updateRecord(db: Db, id: string, changes: RecordChanges, now: number) {
	return db
		.updateTable("records")
		.set((eb) => ({ ...changes, version: eb("version", "+", 1), updated: now }))
		.where("id", "=", id)
		.executeTakeFirst();
}

export function deleteRecord(db: Db, id: string) {
	return db.deleteFrom("records").where("id", "=", id).executeTakeFirst();
}

export function recordKinds(db: Db, workspaceId: string, ids: readonly string[]) {
	return db
		.selectFrom("records")
		.select(["id", "kind"])
		.where("workspace", "=", workspaceId)
		.where("id", "in", [...ids])
		.execute();
}

/** The blob keys of the workspace's file records, to delete once the rows are gone. */
export async function workspaceFileKeys(db: Db, workspaceId: string): Promise<string[]> {
	const rows = await db
		.selectFrom("records")
		.select("file_key")
		.where("workspace", "=", workspaceId)
		.where("file_key", "is not", null)
		.execute();
	return rows.map((r) => r.file_key as string);
}

export function deleteWorkspaceRecords(db: Db, workspaceId: string) {
	return db.deleteFrom("records").where("workspace", "=", workspaceId).execute();
}

export function deleteRecordsById(db: Db, ids: readonly string[]) {
	return db
		.deleteFrom("records")
		.where("id", "in", [...ids])
		.execute();
}
