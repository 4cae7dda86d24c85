// The view gate's statements: one view taken by a conditional UPDATE whose condition is the gate
// module's "open" (gates/open.ts), and its read-log row, in one statement on PostgreSQL and one
// transaction on SQLite. A reader who lost the last view to a concurrent one matches no row and
// logs nothing; the view that reaches the cap turns the share `expired` with it.
import { type Expression, type ExpressionBuilder, type Kysely, type QueryCreator, sql } from "kysely";
import { param, prepare, runSteps, type Steps, step } from "../../../db/prepared.ts";
import type { Database, ReadKind } from "../../../db/schema.ts";
import { capReached, openSql, viewTakenSql } from "../gates/open.ts";
import { type LoggedViews, onPostgres, type ReadParams, type TakenView, type ViewParams } from "./rows.ts";

/** The share `id` while a view may be taken from it now (`param("now")`). */
export const takeable = (eb: ExpressionBuilder<Database, "links">) =>
	eb.and([eb("links.id", "=", param("id")), openSql(eb, param("now"))]);

export function compileViewQueries(db: Kysely<Database>) {
	const insertRead = prepare<ReadParams, never>(
		db.insertInto("link_reads").values({
			id: param("readId"),
			link: param("id"),
			workspace: param("workspace"),
			at: param("now"),
			kind: param("kind"),
			view: param("view"),
			record: param("record"),
			reader: param("reader"),
		}),
	);

	// PostgreSQL: the conditional UPDATE (row-locked, re-checked after a wait) and the INSERT of
	// what it returned, in one WITH: one round trip.
	const takeViewStatement = onPostgres(db)
		? prepare<LoggedViews & { id: string; kind: ReadKind; reader: string | null }, TakenView>(
				db
					.with("taken", (qb) =>
						qb
							.updateTable("links")
							.set(viewTakenSql)
							.where(takeable)
							.returning(["id", "workspace", "view_count", "status", sql<number>`1`.as("taken")]),
					)
					.with("logged", (qb) =>
						logTakenViews(
							qb,
							sql<string>`cast(${param("kind")} as varchar(16))`,
							sql<string | null>`cast(${param("reader")} as varchar(64))`,
						),
					)
					.selectFrom("taken")
					.select(["taken.view_count", "taken.status"]),
			)
		: undefined;

	// SQLite (no writes inside WITH): the conditional UPDATE, the read-log row of the view it took,
	// and at the cap the expiry, run back to back in one `BEGIN IMMEDIATE` transaction, which holds
	// SQLite's one write lock from its start: no other connection slips between check and count.
	const countView = prepare<{ id: string; now: number }, CountedView>(
		db
			.updateTable("links")
			.set({ view_count: viewTakenSql.view_count })
			.where(takeable)
			.returning(["workspace", "view_count", "max_views"]),
	);
	const expireSpent = prepare<{ id: string }, never>(
		db
			.updateTable("links")
			.set({ status: "expired" })
			.where("id", "=", param("id"))
			.where("status", "=", "active"),
	);
	/** SQLite, as one transaction (`runSteps`): the view, its read-log row and, at the cap, the expiry. */
	function* takeViewSteps(p: ViewParams): Steps<TakenView | undefined> {
		const [counted] = yield* step(countView, p);
		if (!counted) return undefined;
		return yield* logViewSteps(p, counted);
	}
	/**
	 * SQLite, after a conditional UPDATE counted the view `counted` (`countView`, or the open
	 * resolve's by slug): its read-log row and, at the cap, the expiry, in the same transaction.
	 */
	function* logViewSteps(p: ViewParams, counted: CountedView): Steps<TakenView> {
		const { workspace, view_count } = counted;
		yield* step(insertRead, { ...p, workspace, view: view_count, record: null });
		const spent = capReached(counted);
		if (spent) yield* step(expireSpent, { id: p.id });
		return { view_count, status: spent ? "expired" : "active" };
	}
	const takeView = async (db: Kysely<Database>, p: ViewParams): Promise<TakenView[]> => {
		if (takeViewStatement) return takeViewStatement(db, { ...p, readIds: [p.readId], ats: [p.now] });
		const taken = await runSteps(db, () => takeViewSteps(p));
		return taken ? [taken] : [];
	};

	return { insertRead, takeView, takeViewSteps, logViewSteps };
}

/** What the conditional UPDATE of a view answers on SQLite: the count with this view in it. */
export interface CountedView {
	workspace: string;
	view_count: number;
	max_views: number | null;
}

/**
 * PostgreSQL's one-statement reads log the views they took in the same WITH: a read-log row per
 * view the `taken` CTE's share took (its `taken` column), numbered up to its new view count, with
 * the reads' ids and times as array parameters `readIds` and `ats`, in the order of the views.
 */
export function logTakenViews<
	Taken extends { id: string; workspace: string; view_count: number; taken: number },
>(
	qb: QueryCreator<Database & { taken: Taken }>,
	kind: Expression<string>,
	reader: Expression<string | null>,
) {
	const reads = sql<{
		id: string;
		at: number;
		n: number;
	}>`(select * from unnest(cast(${param("readIds")} as varchar(64)[]), cast(${param("ats")} as bigint[])) with ordinality as r(id, at, n))`;
	return qb
		.insertInto("link_reads")
		.columns(["id", "link", "workspace", "at", "kind", "view", "record", "reader"])
		.expression((eb) =>
			eb
				.selectFrom("taken")
				.crossJoin(reads.as("r"))
				.select([
					"r.id",
					"taken.id as link",
					"taken.workspace",
					"r.at",
					sql<string>`${kind}`.as("kind"),
					sql<number>`taken.view_count - taken.taken + r.n`.as("view"),
					sql<null>`null`.as("record"),
					sql<string | null>`${reader}`.as("reader"),
				])
				.whereRef("r.n", "<=", "taken.taken"),
		);
}
