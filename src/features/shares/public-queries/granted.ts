// What a share grants: the records it names, then the records of the sections it names (an alias
// carries its target's value), and the sections it shows.
import { type Kysely, sql } from "kysely";
import { param, prepare } from "../../../db/prepared.ts";
import type { Database } from "../../../db/schema.ts";
import type { GrantedRecordRow, GrantedSectionRow, Operand } from "./rows.ts";

const recordColumns = (t: "r") =>
	[
		`${t}.id`,
		`${t}.key`,
		`${t}.name`,
		`${t}.kind`,
		`${t}.value`,
		`${t}.section`,
		`${t}.hidden`,
		`${t}.alias`,
		`${t}.file_key`,
		`${t}.file_name`,
		`${t}.file_type`,
		`${t}.file_size`,
		`${t}.file_sha256`,
		`${t}.version`,
		`${t}.updated`,
		`${t}.created`,
	] as const;

/**
 * Named records, then records of named sections; an alias carries its target's value. `link` and
 * `workspace` are placeholders (`param`) or columns of an enclosing query (the open resolve).
 */
export const grantedRecordsQuery = (db: Kysely<Database>, link: Operand, workspace: Operand) =>
	db
		.selectFrom("link_records as lr")
		.innerJoin("records as r", "r.id", "lr.record")
		.leftJoin("records as t", "t.id", "r.alias")
		.select(recordColumns("r"))
		.select([
			"t.value as target_value",
			sql<number>`0`.as("via"),
			"lr.position as pos",
			sql<number>`0`.as("section_pos"),
		])
		.where("lr.link", "=", link)
		.where("r.workspace", "=", workspace)
		.unionAll((eb) =>
			// CROSS JOIN keeps SQLite's join order: the share's sections, then their records by
			// `records_section`. With an inner join and no statistics SQLite walked every record of
			// the workspace (`records_workspace_updated`) and probed each against the share, so a
			// resolve grew with the vault. PostgreSQL reorders it freely.
			eb
				.selectFrom("link_sections as ls")
				.crossJoin("records as r")
				.leftJoin("records as t", "t.id", "r.alias")
				.select(recordColumns("r"))
				.select([
					"t.value as target_value",
					sql<number>`1`.as("via"),
					"ls.position as pos",
					sql<number>`0`.as("section_pos"),
				])
				.whereRef("r.section", "=", "ls.section")
				.where("ls.link", "=", link)
				.where("r.workspace", "=", workspace),
		);

/** Sections the link names, and sections holding a record it names directly. */
export const grantedSectionsQuery = (db: Kysely<Database>, link: Operand, workspace: Operand) =>
	db
		.selectFrom("sections as s")
		.leftJoin("link_sections as ls", (j) => j.onRef("ls.section", "=", "s.id").on("ls.link", "=", link))
		.select(["s.id", "s.key", "s.name", "s.ordering", "s.created", "ls.position as named_pos"])
		.where("s.workspace", "=", workspace)
		.where((eb) =>
			eb.or([
				eb("ls.link", "is not", null),
				eb(
					"s.id",
					"in",
					eb
						.selectFrom("link_records as lr")
						.innerJoin("records as r", "r.id", "lr.record")
						.select("r.section")
						.where("lr.link", "=", link)
						.where("r.section", "is not", null),
				),
			]),
		);

export function compileGrantedQueries(db: Kysely<Database>) {
	const grantedRecords = prepare<{ link: string; workspace: string }, GrantedRecordRow>(
		grantedRecordsQuery(db, param("link"), param("workspace")),
	);
	const grantedSections = prepare<{ link: string; workspace: string }, GrantedSectionRow>(
		grantedSectionsQuery(db, param("link"), param("workspace")),
	);
	return { grantedRecords, grantedSections };
}
