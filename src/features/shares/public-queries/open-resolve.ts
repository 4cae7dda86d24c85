// The resolve of an ungated share at once (`resolveOpen`): the view taken by slug, its read-log row,
// and what the share grants. Its conditions are the gate module's (gates/open.ts): ungated, and
// open for a view; nothing matches a share that is gone, not active, spent, past its expiry or
// gated, and the caller then runs the gates one by one, which refuse it with the right code (or
// pass it, for a gated share).
import { type Kysely, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { type PreparedQuery, param, prepare, runSteps, type Steps, step } from "../../../db/prepared.ts";
import type { Database } from "../../../db/schema.ts";
import { roundBatches } from "../../../lib/batches.ts";
import { batchViewsSql, openSql, ungatedSql, viewTakenSql } from "../gates/open.ts";
import { grantsQuery, splitGrants } from "./granted.ts";
import {
	type GrantRow,
	type OpenRead,
	type OpenResolveRow,
	onPostgres,
	type TakenView,
	type ViewParams,
} from "./rows.ts";
import type { CountedView } from "./views.ts";

/**
 * At most this many open reads in one statement (PostgreSQL): the rest wait for the next. A batch's
 * reads are those of one event-loop round, or of the round trip the lanes were busy for: a few
 * dozen at most under a heavy load; the bound keeps a flood from making one huge statement.
 */
const MAX_OPEN_BATCH = 128;
/** Open-read statements in flight at once (PostgreSQL): each holds a pooled connection. */
const OPEN_LANES = 2;

type OpenBatchParams = {
	/** The batch's shares, each once, sorted: their rows are locked in this order. */
	slugs: string[];
	/** Reads of each of `slugs`, in the same order. */
	counts: number[];
	now: number;
	/** Per read, in arrival order: its share, read-log id, time, and place among its share's reads. */
	readSlugs: string[];
	readIds: string[];
	ats: number[];
	ns: number[];
};

/** The open read of `slug` on the app's handle, or nothing (the caller then runs the gates). */
export type ResolveOpen = (slug: string, read: OpenRead) => Promise<OpenResolveRow | undefined>;

/**
 * PostgreSQL: one statement, one round trip and one commit for the open reads of one event-loop
 * round, of any shares (`roundBatches`), each share's grants as JSON (`grantsQuery`). A share with no view cap
 * takes one view per read of it in the batch, numbered in arrival order, each logged; a capped
 * share takes one, its first read's, by the same conditional UPDATE as alone, and its other reads
 * go through the gates. The batch's rows are locked in slug order first (`locked`), so two
 * batches, in one process or two, never wait on each other in a cycle.
 */
export function compileOpenResolvePostgres(db: Kysely<Database>): ResolveOpen {
	const batch = sql<{
		slug: string;
		count: number;
	}>`(select * from unnest(cast(${param("slugs")} as varchar(64)[]), cast(${param("counts")} as integer[])) as b(slug, count))`;
	const reads = sql<{
		slug: string;
		id: string;
		at: number;
		n: number;
	}>`(select * from unnest(cast(${param("readSlugs")} as varchar(64)[]), cast(${param("readIds")} as varchar(64)[]), cast(${param("ats")} as bigint[]), cast(${param("ns")} as integer[])) as r(slug, id, at, n))`;
	const viewsOfBatch = batchViewsSql(sql.ref("b.count"));
	const statement = prepare<
		OpenBatchParams,
		Omit<OpenResolveRow, "records" | "sections"> & { taken: number; grants: GrantRow[] }
	>(
		db
			.with("locked", (qb) =>
				qb
					.selectFrom("links")
					.select("links.id")
					.where("links.slug", "=", sql<string>`any(cast(${param("slugs")} as varchar(64)[]))`)
					.orderBy("links.slug")
					.forUpdate(),
			)
			.with("taken", (qb) =>
				qb
					.updateTable("links")
					.from(batch.as("b"))
					.set({ ...viewTakenSql, view_count: sql<number>`view_count + ${viewsOfBatch}` })
					.whereRef("links.slug", "=", sql.ref("b.slug"))
					.where("links.id", "in", (eb) => eb.selectFrom("locked").select("locked.id"))
					.where(ungatedSql)
					.where((eb) => openSql(eb, param("now")))
					.returning([
						"links.id",
						"links.workspace",
						"links.slug",
						"links.label",
						"links.purpose",
						"links.identity",
						"links.stamp",
						"links.view_count",
						"links.status",
						viewsOfBatch.as("taken"),
					]),
			)
			.with("logged", (qb) =>
				qb
					.insertInto("link_reads")
					.columns(["id", "link", "workspace", "at", "kind", "view", "record", "reader"])
					.expression((eb) =>
						eb
							.selectFrom("taken")
							.innerJoin(reads.as("r"), (j) => j.onRef("r.slug", "=", "taken.slug"))
							.select([
								"r.id",
								"taken.id as link",
								"taken.workspace",
								"r.at",
								sql<string>`'api'`.as("kind"),
								sql<number>`taken.view_count - taken.taken + r.n`.as("view"),
								sql<null>`null`.as("record"),
								sql<null>`null`.as("reader"),
							])
							.whereRef("r.n", "<=", "taken.taken"),
					),
			)
			.selectFrom("taken")
			.selectAll("taken")
			.select(jsonArrayFrom(grantsQuery(db, sql.ref("taken.id"), sql.ref("taken.workspace"))).as("grants")),
	);
	/** One batch of open reads, of any shares, each answered with its own view or nothing. */
	const resolveOpenBatch = async (
		batchReads: (OpenRead & { slug: string })[],
	): Promise<(OpenResolveRow | undefined)[]> => {
		const counts = new Map<string, number>();
		const readSlugs: string[] = [];
		const readIds: string[] = [];
		const ats: number[] = [];
		const ns: number[] = [];
		let now = 0;
		for (const read of batchReads) {
			const n = (counts.get(read.slug) ?? 0) + 1;
			counts.set(read.slug, n);
			readSlugs.push(read.slug);
			readIds.push(read.readId);
			ats.push(read.now);
			ns.push(n);
			// The batch runs now, after every read in it arrived: its time is the latest read's.
			if (read.now > now) now = read.now;
		}
		const slugs = [...counts.keys()].sort();
		const rows = await statement(db, {
			slugs,
			counts: slugs.map((slug) => counts.get(slug) as number),
			now,
			readSlugs,
			readIds,
			ats,
			ns,
		});
		const bySlug = new Map<string, OpenResolveRow & { taken: number }>();
		for (const { grants, ...row } of rows) bySlug.set(row.slug, { ...row, ...splitGrants(grants) });
		return batchReads.map((read, i) => {
			const row = bySlug.get(read.slug);
			const n = ns[i] as number;
			if (!row || n > row.taken) return undefined;
			const { taken, ...open } = row;
			return { ...open, view_count: open.view_count - taken + n };
		});
	};
	const resolveOpen = roundBatches(resolveOpenBatch, { max: MAX_OPEN_BATCH, lanes: OPEN_LANES });
	return (slug, read) => resolveOpen({ slug, ...read });
}

/**
 * SQLite: the view taken by slug, its read-log row and what the share grants, in one transaction,
 * on the app's handle synchronously with no await between, in the group commit of its event-loop
 * round (db/direct.ts). The view is one conditional UPDATE by slug whose conditions are the gate
 * module's (`ungatedSql`, `openSql`, as PostgreSQL's statement), answering the share's columns
 * the answer needs: no read of the row before it. Three statements (view, read log, grants),
 * four at the cap (the expiry).
 */
export function compileOpenResolveSqlite(
	db: Kysely<Database>,
	q: {
		logViewSteps: (p: ViewParams, counted: CountedView) => Steps<TakenView>;
		grants: PreparedQuery<{ link: string; workspace: string }, GrantRow>;
	},
): ResolveOpen {
	const countOpenView = prepare<
		{ slug: string; now: number },
		CountedView & Omit<OpenResolveRow, "view_count" | "status" | "records" | "sections">
	>(
		db
			.updateTable("links")
			.set({ view_count: viewTakenSql.view_count })
			.where("links.slug", "=", param("slug"))
			.where(ungatedSql)
			.where((eb) => openSql(eb, param("now")))
			.returning([
				"id",
				"workspace",
				"slug",
				"label",
				"purpose",
				"identity",
				"stamp",
				"view_count",
				"max_views",
			]),
	);
	function* resolveOpenSteps(p: OpenRead & { slug: string }): Steps<OpenResolveRow[]> {
		const [counted] = yield* step(countOpenView, { slug: p.slug, now: p.now });
		if (!counted) return [];
		const { id, workspace, slug, label, purpose, identity, stamp } = counted;
		const taken = yield* q.logViewSteps(
			{ id, now: p.now, readId: p.readId, kind: "api", reader: null },
			counted,
		);
		const { records, sections } = splitGrants(yield* step(q.grants, { link: id, workspace }));
		return [{ id, workspace, slug, label, purpose, identity, stamp, ...taken, records, sections }];
	}
	return async (slug, read) => {
		const [open] = await runSteps(db, () => resolveOpenSteps({ slug, ...read }));
		return open;
	};
}

export function compileOpenResolve(db: Kysely<Database>, q: Parameters<typeof compileOpenResolveSqlite>[1]) {
	return onPostgres(db) ? compileOpenResolvePostgres(db) : compileOpenResolveSqlite(db, q);
}
