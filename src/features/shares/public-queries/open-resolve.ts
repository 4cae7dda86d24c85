// The resolve of an ungated share at once (`resolveOpen`): the view taken by slug, its read-log row,
// and what the share grants. Its conditions are the gate module's (gates/open.ts): ungated, and
// open for a view; nothing matches a share that is gone, not active, spent, past its expiry or
// gated, and the caller then runs the gates one by one, which refuse it with the right code (or
// pass it, for a gated share).
import { type Kysely, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { type PreparedQuery, param, prepare, runSteps, type Steps, step } from "../../../db/prepared.ts";
import type { Database } from "../../../db/schema.ts";
import { keyedBatches } from "../../../lib/batches.ts";
import { batchViewsSql, isUngated, openSql, ungatedSql, viewTakenSql } from "../gates/open.ts";
import { grantedRecordsQuery, grantedSectionsQuery } from "./granted.ts";
import {
	type GrantedRecordRow,
	type GrantedSectionRow,
	type LoggedViews,
	type OpenRead,
	type OpenResolveRow,
	onPostgres,
	type PublicLinkRow,
	type TakenView,
	type ViewParams,
} from "./rows.ts";
import { logTakenViews } from "./views.ts";

/**
 * At most this many open reads of one share in one statement (PostgreSQL): the rest wait for the
 * next. A batch's reads are those that arrived during one round trip, a few dozen at most under
 * a heavy load; the bound keeps a flood of one share from making one huge statement.
 */
const MAX_OPEN_BATCH = 64;

type OpenBatchParams = LoggedViews & { slug: string; now: number; count: number };
type Grants = PreparedQuery<{ link: string; workspace: string }, GrantedRecordRow>;
type Sections = PreparedQuery<{ link: string; workspace: string }, GrantedSectionRow>;

/** The open read of `slug` on the app's handle, or nothing (the caller then runs the gates). */
export type ResolveOpen = (slug: string, read: OpenRead) => Promise<OpenResolveRow | undefined>;

/**
 * PostgreSQL: one statement, one round trip, what the share grants as JSON, for a batch of reads
 * of one share (`keyedBatches`): a share with no view cap takes one view per read of the batch,
 * numbered in its order; a capped share takes one, the first read's, by the same conditional
 * UPDATE as alone, and the other reads go through the gates. The row is locked, and the commit
 * flushed, once per batch: a read of a busy share waits in this process, not on the row.
 */
export function compileOpenResolvePostgres(db: Kysely<Database>): ResolveOpen {
	const viewsOfBatch = batchViewsSql(param("count"));
	const statement = prepare<OpenBatchParams, OpenResolveRow & { taken: number }>(
		db
			.with("taken", (qb) =>
				qb
					.updateTable("links")
					.set({ ...viewTakenSql, view_count: sql<number>`view_count + ${viewsOfBatch}` })
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
						"status",
						viewsOfBatch.as("taken"),
					]),
			)
			.with("logged", (qb) => logTakenViews(qb, sql<string>`'api'`, sql<null>`null`))
			.selectFrom("taken")
			.selectAll("taken")
			.select([
				jsonArrayFrom(grantedRecordsQuery(db, sql.ref("taken.id"), sql.ref("taken.workspace"))).as("records"),
				jsonArrayFrom(grantedSectionsQuery(db, sql.ref("taken.id"), sql.ref("taken.workspace"))).as(
					"sections",
				),
			]),
	);
	/** One batch of open reads of `slug`, each answered with its own view or nothing. */
	const resolveOpenBatch = async (
		slug: string,
		reads: OpenRead[],
	): Promise<(OpenResolveRow | undefined)[]> => {
		const [row] = await statement(db, {
			slug,
			// The batch runs now, after every read in it arrived: its time is the latest read's.
			now: Math.max(...reads.map((r) => r.now)),
			count: reads.length,
			readIds: reads.map((r) => r.readId),
			ats: reads.map((r) => r.now),
		});
		if (!row) return reads.map(() => undefined);
		const { taken, ...open } = row;
		const first = open.view_count - taken;
		return reads.map((_, i) => (i < taken ? { ...open, view_count: first + i + 1 } : undefined));
	};
	return keyedBatches(resolveOpenBatch, MAX_OPEN_BATCH);
}

/**
 * SQLite: the share, its view and what it grants in one transaction, on the app's handle
 * synchronously with no await between, in the group commit of its event-loop round
 * (db/direct.ts): about 25 µs where the four statements through Kysely took 50, and the commit
 * shared. The row is read first, so "ungated" is asked of it (`isUngated`); "open" is the view's
 * conditional UPDATE.
 */
export function compileOpenResolveSqlite(
	db: Kysely<Database>,
	q: {
		linkBySlug: PreparedQuery<{ slug: string }, PublicLinkRow>;
		takeViewSteps: (p: ViewParams) => Steps<TakenView | undefined>;
		grantedRecords: Grants;
		grantedSections: Sections;
	},
): ResolveOpen {
	function* resolveOpenSteps(p: OpenRead & { slug: string }): Steps<OpenResolveRow[]> {
		const [link] = yield* step(q.linkBySlug, { slug: p.slug });
		if (!link || !isUngated(link)) return [];
		const { id, workspace, slug, label, purpose, identity, stamp } = link;
		const taken = yield* q.takeViewSteps({ id, now: p.now, readId: p.readId, kind: "api", reader: null });
		if (!taken) return [];
		const records = yield* step(q.grantedRecords, { link: id, workspace });
		const sections = yield* step(q.grantedSections, { link: id, workspace });
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
