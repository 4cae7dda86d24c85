// The one query of the share formats beyond what the shares feature reads: the template items that
// type a share's keys (docs/api.md "Share page and formats": vCard and iCalendar mapping). Compiled
// once per database handle, like the shares' public queries (db/prepared.ts), and its answer kept
// ten seconds per share: templates change rarely, and the page's hot path has no statement to spare.
import type { Kysely } from "kysely";
import { sql } from "kysely";
import { param, prepare } from "../../db/prepared.ts";
import type { Database } from "../../db/schema.ts";
import type { TemplateItemType } from "../vault/templates/service.ts";
import { typesByKey } from "./fields.ts";

/** How long a share's template types are kept; a changed template shows within this time. */
export const TYPES_TTL_MS = 10_000;
const KEPT = 1000;

interface Kept {
	at: number;
	types: Map<string, TemplateItemType>;
}

const compiled = new WeakMap<
	Kysely<Database>,
	{ query: ReturnType<typeof compile>; kept: Map<string, Kept> }
>();

function compile(db: Kysely<Database>) {
	// The request a share answers first (its keys were minted from those items), then the sharing
	// workspace's own templates, oldest first.
	return prepare<{ link: string; workspace: string }, { items: string }>(
		db
			.selectFrom("request_answers as a")
			.innerJoin("requests as q", "q.id", "a.request")
			.select(["q.items", sql<number>`0`.as("pos"), "q.created"])
			.where("a.id", "=", param("link"))
			.unionAll((eb) =>
				eb
					.selectFrom("templates as t")
					.select(["t.items", sql<number>`1`.as("pos"), "t.created"])
					.where("t.workspace", "=", param("workspace")),
			)
			.orderBy("pos")
			.orderBy("created"),
	);
}

/** The template types of a share's keys, the answered request's first, read at most every TYPES_TTL_MS. */
export async function templateTypes(
	db: Kysely<Database>,
	link: { id: string; workspace: string },
	now: number,
): Promise<Map<string, TemplateItemType>> {
	let handle = compiled.get(db);
	if (!handle) {
		handle = { query: compile(db), kept: new Map() };
		compiled.set(db, handle);
	}
	const hit = handle.kept.get(link.id);
	if (hit && now - hit.at < TYPES_TTL_MS && now >= hit.at) return hit.types;
	const types = typesByKey(await handle.query(db, { link: link.id, workspace: link.workspace }));
	handle.kept.delete(link.id);
	if (handle.kept.size >= KEPT) handle.kept.delete(handle.kept.keys().next().value as string);
	handle.kept.set(link.id, { at: now, types });
	return types;
}
