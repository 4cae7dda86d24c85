// What a share grants now: the records it names, then the records of the sections it names, each
// once, read live through the record reader (an alias reads as its target's current value).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { currentValue, fileMeta, type StoredFile, storedFile } from "../vault/service.ts";
import type { SharesContext } from "./context.ts";
import { splitGrants } from "./public-queries/granted.ts";
import { type GrantedRecordRow, type GrantedSectionRow, publicQueries } from "./public-queries.ts";

export type { GrantedRecordRow } from "./public-queries.ts";

/** Granted records in share order (named first, then through sections), each once. */
function orderGranted(rows: GrantedRecordRow[], sectionOrder: Map<string, number>): GrantedRecordRow[] {
	const sorted = [...rows].sort(
		(a, b) =>
			a.via - b.via ||
			(a.via === 0
				? a.pos - b.pos
				: (sectionOrder.get(a.section ?? "") ?? 0) - (sectionOrder.get(b.section ?? "") ?? 0)) ||
			a.created - b.created ||
			(a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
	);
	const seen = new Set<string>();
	return sorted.filter((r) => {
		if (seen.has(r.id)) return false;
		seen.add(r.id);
		return true;
	});
}

export interface Granted {
	records: GrantedRecordRow[];
	sections: GrantedSectionRow[];
}

/** The records and sections a share grants now, in order. */
export async function readGrants(
	ctx: Pick<SharesContext, "db" | "q">,
	link: { id: string; workspace: string },
): Promise<Granted> {
	const { records, sections } = splitGrants(
		await ctx.q.grants(ctx.db, { link: link.id, workspace: link.workspace }),
	);
	return orderGrants(records, sections);
}

/** Granted rows as read (in no order) into share order. */
export function orderGrants(rows: GrantedRecordRow[], sectionRows: GrantedSectionRow[]): Granted {
	// The sections the link names (in its order), then the others by their vault ordering.
	const sections = [...sectionRows].sort(
		(a, b) =>
			(a.named_pos === null ? 1 : 0) - (b.named_pos === null ? 1 : 0) ||
			(a.named_pos ?? 0) - (b.named_pos ?? 0) ||
			a.ordering - b.ordering ||
			a.created - b.created,
	);
	const sectionOrder = new Map(sections.map((s, i) => [s.id, i]));
	return { records: orderGranted(rows, sectionOrder), sections };
}

/** A granted record as a reader of the share sees it (the resolve's `records` items). */
export function sharedRecord(r: GrantedRecordRow, downloadToken?: string) {
	return {
		id: r.id,
		key: r.key,
		name: r.name,
		type: r.kind,
		value: currentValue(r),
		section: r.section,
		hidden: r.hidden === 1,
		file: fileMeta(r),
		version: r.version,
		updated: new Date(r.updated).toISOString(),
		...(downloadToken ? { downloadToken } : {}),
	};
}

/** The sections as the resolve lists them, each with the ids of its granted records. */
export function sharedSections({ records, sections }: Granted) {
	return sections.map((s) => ({
		id: s.id,
		key: s.key,
		name: s.name,
		records: records.filter((r) => r.section === s.id).map((r) => r.id),
	}));
}

/** The files among the granted records, in share order. */
export function grantedFiles(records: readonly GrantedRecordRow[]): StoredFile[] {
	return records.flatMap((r) => storedFile(r) ?? []);
}

/** What a share grants now, for another feature holding only the database (an answer's owner, say). */
export function grantsOf(db: Kysely<Database>, link: { id: string; workspace: string }): Promise<Granted> {
	return readGrants({ db, q: publicQueries(db) }, link);
}
