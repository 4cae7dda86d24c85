// What a share grants: the records it names, then the records of the sections it names (an alias
// carries its target's value), and the sections it shows.
import { type InferResult, type Kysely, sql } from "kysely";
import { param, prepare } from "../../../db/prepared.ts";
import type { Database } from "../../../db/schema.ts";
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
/**
 * What a share grants, records and sections, in one statement (issue 37: the sections were a
 * statement of their own, which walked every section of the workspace): the records it names
 * (`via` 0, each with its section on its row, looked up by its key), and for each section it names
 * a row per record in it (`via` 1) or, for a section holding none, one row without a record
 * (`via` 2), each with the section on its row and `pos` the section's place among them. An alias
 * carries its target's value. `link` and `workspace` are placeholders (`param`) or columns of an
 * enclosing query (PostgreSQL's open resolve). `splitGrants` makes the rows the records and the
 * sections.
 */
export const grantsQuery = (db: Kysely<Database>, link: Operand, workspace: Operand) => {
	const named = db
		.selectFrom("link_records as lr")
		.innerJoin("records as r", "r.id", "lr.record")
		.leftJoin("records as t", "t.id", "r.alias")
		.leftJoin("sections as s", (j) => j.onRef("s.id", "=", "r.section").on("s.workspace", "=", workspace))
		.select(recordColumns("r"))
		.select(["t.value as target_value", sql<number>`0`.as("via"), "lr.position as pos"])
		.select(sectionColumns)
		.where("lr.link", "=", link)
		.where("r.workspace", "=", workspace);
	// A section's row without a record has its columns null: typed as the named records' rows.
	type Row = InferResult<typeof named>[number];
	return named.unionAll((eb) =>
		// CROSS JOIN keeps SQLite's join order: the share's sections, each by its key, then their
		// records by `records_section`. With inner joins and no statistics SQLite walked every
		// record (or section) of the workspace and probed each against the share, so a resolve
		// grew with the vault. PostgreSQL reorders it freely.
		eb
			.selectFrom("link_sections as ls")
			.crossJoin("sections as s")
			.leftJoin("records as r", (j) =>
				j.onRef("r.section", "=", "ls.section").on("r.workspace", "=", workspace),
			)
			.leftJoin("records as t", "t.id", "r.alias")
			.select([
				"r.id",
				"r.key",
				"r.name",
				"r.kind",
				"r.value",
				// The section's id, also on the row of a section holding no record.
				"s.id as section",
				"r.hidden",
				"r.alias",
				"r.file_key",
				"r.file_name",
				"r.file_type",
				"r.file_size",
				"r.file_sha256",
				"r.version",
				"r.updated",
				"r.created",
			])
			.select([
				"t.value as target_value",
				sql<number>`case when r.id is null then 2 else 1 end`.as("via"),
				"ls.position as pos",
			])
			.select(sectionColumns)
			.whereRef("s.id", "=", "ls.section")
			.where("ls.link", "=", link)
			.where("s.workspace", "=", workspace)
			.$castTo<Row>(),
	);
};

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
		const section = row.section;
		if (row.via === 0) {
			// A named record's section, unless the link names it too (that row gives its place).
			if (section !== null && row.section_key !== null && !sections.has(section)) {
				sections.set(section, sectionOf(row, null));
			}
		} else if (typeof sections.get(section as string)?.named_pos !== "number") {
			// A section the link names, at its place among them (once: its first row).
			sections.set(section as string, sectionOf(row, row.pos));
		}
		if (row.via !== 2) records.push(row);
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
