// What a share grants: the records it names, then the records of the sections it names (an alias
// carries its target's value), and the sections it shows.
import { type Kysely, sql } from "kysely";
import { param, prepare } from "../../../db/prepared.ts";
import type { Database, RecordTable } from "../../../db/schema.ts";
import type { GrantedSectionRow, GrantRow, Operand } from "./rows.ts";

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

/** The columns of a record's section on a grants row (`s`, looked up by the record's `section`). */
const sectionColumns = [
	"s.key as section_key",
	"s.name as section_name",
	"s.ordering as section_ordering",
	"s.created as section_created",
] as const;
/** The same columns on a row with no section of its own. */
const noSectionColumns = [
	sql<string | null>`null`.as("section_key"),
	sql<string | null>`null`.as("section_name"),
	sql<number | null>`null`.as("section_ordering"),
	sql<number | null>`null`.as("section_created"),
] as const;

/**
 * What a share grants, records and sections, in one statement (issue 37: the sections were a
 * statement of their own, which walked every section of the workspace): the records it names
 * (`via` 0, each with its section on its row, looked up by its key), the records of the sections
 * it names (`via` 1), and a row per section it names (`via` 2: `section` its id, `pos` its place
 * among them). An alias carries its target's value. `link` and `workspace` are placeholders
 * (`param`) or columns of an enclosing query (PostgreSQL's open resolve). `splitGrants` makes the
 * rows the records and the sections.
 */
export const grantsQuery = (db: Kysely<Database>, link: Operand, workspace: Operand) =>
	db
		.selectFrom("link_records as lr")
		.innerJoin("records as r", "r.id", "lr.record")
		.leftJoin("records as t", "t.id", "r.alias")
		.leftJoin("sections as s", (j) => j.onRef("s.id", "=", "r.section").on("s.workspace", "=", workspace))
		.select(recordColumns("r"))
		.select([
			"t.value as target_value",
			sql<number>`0`.as("via"),
			"lr.position as pos",
			sql<number>`0`.as("section_pos"),
		])
		.select(sectionColumns)
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
				.select(noSectionColumns)
				.whereRef("r.section", "=", "ls.section")
				.where("ls.link", "=", link)
				.where("r.workspace", "=", workspace),
		)
		.unionAll((eb) =>
			eb
				.selectFrom("link_sections as ls")
				.innerJoin("sections as s", "s.id", "ls.section")
				.select([
					// No record: its columns are null, typed as the first branch's.
					sql<string>`null`.as("id"),
					sql<string>`null`.as("key"),
					sql<string>`null`.as("name"),
					sql<RecordTable["kind"]>`null`.as("kind"),
					sql<string | null>`null`.as("value"),
					"s.id as section",
					sql<number>`null`.as("hidden"),
					sql<string | null>`null`.as("alias"),
					sql<string | null>`null`.as("file_key"),
					sql<string | null>`null`.as("file_name"),
					sql<string | null>`null`.as("file_type"),
					sql<number | null>`null`.as("file_size"),
					sql<string | null>`null`.as("file_sha256"),
					sql<number>`null`.as("version"),
					sql<number>`null`.as("updated"),
					sql<number>`null`.as("created"),
					sql<string | null>`null`.as("target_value"),
					sql<number>`2`.as("via"),
					"ls.position as pos",
					sql<number>`0`.as("section_pos"),
				])
				.select(sectionColumns)
				.where("ls.link", "=", link)
				.where("s.workspace", "=", workspace),
		);

/**
 * The rows of `grantsQuery` as the records and the sections a share shows: the sections the link
 * names with their place among them, and the other sections holding a record it names, each once.
 */
export function splitGrants(rows: readonly GrantRow[]): {
	records: GrantRow[];
	sections: GrantedSectionRow[];
} {
	const records: GrantRow[] = [];
	const sections = new Map<string, GrantedSectionRow>();
	for (const row of rows) {
		if (row.via === 2) {
			sections.set(row.section as string, sectionOf(row, row.pos));
			continue;
		}
		records.push(row);
		if (row.via === 0 && row.section !== null && row.section_key !== null && !sections.has(row.section)) {
			sections.set(row.section, sectionOf(row, null));
		}
	}
	return { records, sections: [...sections.values()] };
}

function sectionOf(row: GrantRow, named: number | null): GrantedSectionRow {
	return {
		id: row.section as string,
		key: row.section_key as string,
		name: row.section_name as string,
		ordering: Number(row.section_ordering),
		named_pos: named,
		created: Number(row.section_created),
	};
}

export function compileGrantedQueries(db: Kysely<Database>) {
	const grants = prepare<{ link: string; workspace: string }, GrantRow>(
		grantsQuery(db, param("link"), param("workspace")),
	);
	return { grants };
}
