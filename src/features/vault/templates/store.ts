import type { Kysely, Transaction } from "kysely";
import type { Database, TemplateTable } from "../../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function selectTemplates(db: Db, workspaceId: string) {
	return db.selectFrom("templates").selectAll("templates").where("templates.workspace", "=", workspaceId);
}

export function insertTemplate(db: Db, row: TemplateTable) {
	return db.insertInto("templates").values(row).execute();
}

export function updateTemplate(
	db: Db,
	id: string,
	changes: Partial<Pick<TemplateTable, "name" | "items">>,
	now: number,
) {
	return db
		.updateTable("templates")
		.set({ ...changes, updated: now })
		.where("id", "=", id)
		.execute();
}

export function deleteTemplate(db: Db, id: string) {
	return db.deleteFrom("templates").where("id", "=", id).execute();
}

export function deleteWorkspaceTemplates(db: Db, workspaceId: string) {
	return db.deleteFrom("templates").where("workspace", "=", workspaceId).execute();
}
