import type { Kysely, Transaction } from "kysely";
import type { Database, SectionTable } from "../../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function selectSections(db: Db, workspaceId: string) {
	return db.selectFrom("sections").selectAll("sections").where("sections.workspace", "=", workspaceId);
}

export function insertSection(db: Db, row: SectionTable) {
	return db.insertInto("sections").values(row).execute();
}

export function updateSection(
	db: Db,
	id: string,
	changes: Partial<Pick<SectionTable, "key" | "name" | "ordering">>,
	now: number,
) {
	return db
		.updateTable("sections")
		.set({ ...changes, updated: now })
		.where("id", "=", id)
		.execute();
}

/** Whether a hidden record sits in the section (its deletion would change that record). */
export async function holdsHidden(db: Db, id: string): Promise<boolean> {
	const row = await db
		.selectFrom("records")
		.select("id")
		.where("section", "=", id)
		.where("hidden", "=", 1)
		.limit(1)
		.executeTakeFirst();
	return row !== undefined;
}

/** Records in the section stay; their `section` becomes null (foreign key `on delete set null`). */
export function deleteSection(db: Db, id: string) {
	return db.deleteFrom("sections").where("id", "=", id).execute();
}

export function deleteWorkspaceSections(db: Db, workspaceId: string) {
	return db.deleteFrom("sections").where("workspace", "=", workspaceId).execute();
}
