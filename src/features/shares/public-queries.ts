// The queries of a share's public paths (probe, resolve, file and archive tokens), compiled once per
// database handle (db/prepared.ts): the hot paths cannot afford building a query per request.
// Only the shares feature runs them.
import {
	type Expression,
	type ExpressionBuilder,
	type Kysely,
	PostgresAdapter,
	type QueryCreator,
	sql,
} from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { param, prepare, runSteps, type Steps, step } from "../../db/prepared.ts";
import type { Database, LinkTable, LinkTokenTable, ReadKind, RecordTable } from "../../db/schema.ts";
import { keyedBatches } from "../../lib/batches.ts";

/** A link with what its public pages show of the sharer. */
export type PublicLinkRow = Omit<
	LinkTable,
	"created_by" | "created" | "updated" | "sign_in_client" | "connection"
> & {
	sharer_name: string;
	identity_name: string | null;
	identity_fingerprint: string | null;
};

/** A record a share grants, with its alias's current value and how it is granted. */
export type GrantedRecordRow = Omit<RecordTable, "workspace" | "identity"> & {
	target_value: string | null;
	/** 0: named by the link; 1: through a section it names. */
	via: number;
	/** Position of the naming row (link order), then the section's ordering. */
	pos: number;
	section_pos: number;
};

export interface GrantedSectionRow {
	id: string;
	key: string;
	name: string;
	ordering: number;
	/** Position among the sections the link names; null for a section only holding a granted record. */
	named_pos: number | null;
	created: number;
}

/** The open resolve's row: the view taken and what the share grants. */
export interface OpenResolveRow {
	id: string;
	workspace: string;
	slug: string;
	label: string;
	purpose: string;
	identity: string | null;
	stamp: string | null;
	view_count: number;
	status: LinkTable["status"];
	records: GrantedRecordRow[];
	sections: GrantedSectionRow[];
}

/** Whether a share's views reached its cap (the view that does so expires it). */
export function capReached(link: Pick<LinkTable, "max_views" | "view_count">): boolean {
	return link.max_views !== null && link.view_count >= link.max_views;
}

/** A placeholder (`param`) or a column of an enclosing query, compared against. */
// biome-ignore lint/suspicious/noExplicitAny: both stand for a value of the compared column's type
type Operand = any;

export interface SpentToken {
	link: string;
	kind: LinkTokenTable["kind"];
	record: string | null;
	view: number;
	stamp_line: string | null;
	reader: string | null;
	expires: number;
}

/** A view to take and the read it is: `readId` names the read-log row. */
export type ViewParams = {
	id: string;
	now: number;
	readId: string;
	kind: ReadKind;
	reader: string | null;
};

export interface TakenView {
	view_count: number;
	status: LinkTable["status"];
}

/** The read-log rows of the views a statement takes, in view order: their ids and times. */
type LoggedViews = { readIds: string[]; ats: number[] };

/** An open read (`resolveOpen`): its read-log id and its time. */
export interface OpenRead {
	readId: string;
	now: number;
}

type OpenBatchParams = LoggedViews & { slug: string; now: number; count: number };

/**
 * At most this many open reads of one share in one statement (PostgreSQL): the rest wait for the
 * next. A batch's reads are those that arrived during one round trip, a few dozen at most under
 * a heavy load; the bound keeps a flood of one share from making one huge statement.
 */
const MAX_OPEN_BATCH = 64;
/** At most this many probes share one read of a share (PostgreSQL), or shares' reads are kept (SQLite). */
const MAX_SHARED_READ = 256;

/** One read-log row (docs/api.md "Read log"): never a value, never the reader's address. */
export type ReadParams = {
	readId: string;
	id: string;
	workspace: string;
	now: number;
	kind: ReadKind;
	view: number;
	record: string | null;
	reader: string | null;
};

function onPostgres(db: Kysely<Database>): boolean {
	return db.getExecutor().adapter instanceof PostgresAdapter;
}

const compiled = new WeakMap<Kysely<Database>, ReturnType<typeof compilePublicQueries>>();

/** The compiled public queries of one database handle, compiled on first use. */
export function publicQueries(db: Kysely<Database>) {
	let queries = compiled.get(db);
	if (!queries) {
		queries = compilePublicQueries(db);
		compiled.set(db, queries);
	}
	return queries;
}

function compilePublicQueries(db: Kysely<Database>) {
	const linkBySlug = prepare<{ slug: string }, PublicLinkRow>(
		db
			.selectFrom("links")
			.innerJoin("workspaces", "workspaces.id", "links.workspace")
			.leftJoin("identities", (j) =>
				j.onRef("identities.id", "=", "links.identity").onRef("identities.workspace", "=", "links.workspace"),
			)
			.select([
				"links.id",
				"links.workspace",
				"links.slug",
				"links.label",
				"links.status",
				"links.password_hash",
				"links.max_views",
				"links.view_count",
				"links.expires_at",
				"links.require_handshake",
				"links.stamp",
				"links.purpose",
				"links.ref",
				"links.identity",
				"links.handed_over",
				"workspaces.name as sharer_name",
				"identities.name as identity_name",
				"identities.fingerprint as identity_fingerprint",
			])
			.where("links.slug", "=", param("slug")),
	);

	// PostgreSQL: the probes of one share that arrive while its row is being read share the next
	// read (`keyedBatches`): a probe waits at most for the read running when it arrived, then one
	// begun after it arrived, so it never sees an older row than a read of its own would. The row
	// is frozen: every probe of the batch gets the same object.
	const probeBatches = onPostgres(db)
		? keyedBatches<null, Readonly<PublicLinkRow> | undefined>(async (slug, probes) => {
				const [link] = await linkBySlug(db, { slug });
				if (link) Object.freeze(link);
				return probes.map(() => link);
			}, MAX_SHARED_READ)
		: undefined;
	// SQLite, read in-process: a probe takes the read of the same share begun for another probe
	// after it arrived (`arrived`, `performance.now()`), the same rule: never a row older than its
	// own read would be. The probes one round of the event loop answers together (answer-rounds.ts)
	// all arrived before the first of them reads, so they share its read. Reads are kept until the
	// next round, for at most MAX_SHARED_READ shares.
	const recentReads = new Map<string, { at: number; read: Promise<Readonly<PublicLinkRow> | undefined> }>();
	const forgetReads = () => recentReads.clear();
	/** The share by slug for a probe that arrived at `arrived`, on the app's handle. */
	const probeLink = (slug: string, arrived: number): Promise<Readonly<PublicLinkRow> | undefined> => {
		if (probeBatches) return probeBatches(slug, null);
		const recent = recentReads.get(slug);
		if (recent && recent.at > arrived) return recent.read;
		const at = performance.now();
		const read = linkBySlug(db, { slug }).then(([link]) => link && Object.freeze(link));
		if (recentReads.size === 0) setImmediate(forgetReads);
		if (recentReads.size < MAX_SHARED_READ) recentReads.set(slug, { at, read });
		return read;
	};

	// A view may be taken while the share is active, under its cap and before its expiry.
	// Both view-taking statements (by id after the gates, by slug for an ungated share) share it.
	const viewOpen = (eb: ExpressionBuilder<Database, "links">) =>
		eb.and([
			eb("links.status", "=", "active"),
			eb.or([eb("links.max_views", "is", null), eb("links.view_count", "<", eb.ref("links.max_views"))]),
			eb.or([eb("links.expires_at", "is", null), eb("links.expires_at", ">", param("now"))]),
		]);
	const takeable = (eb: ExpressionBuilder<Database, "links">) =>
		eb.and([eb("links.id", "=", param("id")), viewOpen(eb)]);
	// One view more; the view that reaches the cap expires the share.
	const viewTaken = {
		view_count: sql<number>`view_count + 1`,
		status: sql<
			LinkTable["status"]
		>`case when max_views is not null and view_count + 1 >= max_views then 'expired' else status end`,
	};

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

	// The view and its read-log row: one statement on PostgreSQL, one transaction on SQLite. A reader
	// who lost the last view to a concurrent one matches no row and logs nothing. The view that
	// reaches the cap turns the share `expired` with it.
	const takeViewStatement = onPostgres(db)
		? // PostgreSQL: the conditional UPDATE (row-locked, re-checked after a wait) and the INSERT
			// of what it returned, in one WITH: one round trip.
			prepare<LoggedViews & { id: string; kind: ReadKind; reader: string | null }, TakenView>(
				db
					.with("taken", (qb) =>
						qb
							.updateTable("links")
							.set(viewTaken)
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
	const countView = prepare<
		{ id: string; now: number },
		{ workspace: string; view_count: number; max_views: number | null }
	>(
		db
			.updateTable("links")
			.set({ view_count: sql<number>`view_count + 1` })
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

	// Named records, then records of named sections; an alias carries its target's value. `link` and
	// `workspace` are placeholders (`param`) or columns of an enclosing query (the open resolve).
	const grantedRecordsQuery = (link: Operand, workspace: Operand) =>
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
	const grantedRecords = prepare<{ link: string; workspace: string }, GrantedRecordRow>(
		grantedRecordsQuery(param("link"), param("workspace")),
	);

	// Sections the link names, and sections holding a record it names directly.
	const grantedSectionsQuery = (link: Operand, workspace: Operand) =>
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
	const grantedSections = prepare<{ link: string; workspace: string }, GrantedSectionRow>(
		grantedSectionsQuery(param("link"), param("workspace")),
	);

	// The resolve of a share with no password and no handshake at once: the view taken by slug (the
	// same conditional UPDATE as `takeView`), its read-log row, and what the share grants. Nothing
	// matches a share that is gone, not active, spent, past its expiry or gated: the caller then runs
	// the gates one by one, which refuse it with the right code (or pass it, for a gated share).
	// PostgreSQL: one statement, one round trip, what the share grants as JSON, for a batch of reads
	// of one share (`keyedBatches`): a share with no view cap takes one view per read of the batch,
	// numbered in its order; a capped share takes one, the first read's, by the same conditional
	// UPDATE as alone, and the other reads go through the gates. The row is locked, and the commit
	// flushed, once per batch: a read of a busy share waits in this process, not on the row.
	const viewsOfBatch = sql<number>`case when max_views is null then cast(${param("count")} as integer) else 1 end`;
	const resolveOpenStatement = onPostgres(db)
		? prepare<OpenBatchParams, OpenResolveRow & { taken: number }>(
				db
					.with("taken", (qb) =>
						qb
							.updateTable("links")
							.set({ ...viewTaken, view_count: sql<number>`view_count + ${viewsOfBatch}` })
							.where("links.slug", "=", param("slug"))
							.where("links.password_hash", "is", null)
							.where("links.require_handshake", "=", 0)
							.where(viewOpen)
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
						jsonArrayFrom(grantedRecordsQuery(sql.ref("taken.id"), sql.ref("taken.workspace"))).as("records"),
						jsonArrayFrom(grantedSectionsQuery(sql.ref("taken.id"), sql.ref("taken.workspace"))).as(
							"sections",
						),
					]),
			)
		: undefined;
	/** PostgreSQL: one batch of open reads of `slug`, each answered with its own view or nothing. */
	const resolveOpenBatch = async (
		slug: string,
		reads: OpenRead[],
	): Promise<(OpenResolveRow | undefined)[]> => {
		if (!resolveOpenStatement) throw new Error("resolveOpenBatch: PostgreSQL only");
		const [row] = await resolveOpenStatement(db, {
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
	const openBatches = resolveOpenStatement ? keyedBatches(resolveOpenBatch, MAX_OPEN_BATCH) : undefined;
	// SQLite: the share, its view and what it grants in one transaction, on the app's handle
	// synchronously with no await between, in the group commit of its event-loop round
	// (db/direct.ts): about 25 µs where the four statements through Kysely took 50, and the commit
	// shared.
	function* resolveOpenSteps(p: OpenRead & { slug: string }): Steps<OpenResolveRow[]> {
		const [link] = yield* step(linkBySlug, { slug: p.slug });
		if (!link || link.password_hash !== null || link.require_handshake !== 0) return [];
		const { id, workspace, slug, label, purpose, identity, stamp } = link;
		const taken = yield* takeViewSteps({ id, now: p.now, readId: p.readId, kind: "api", reader: null });
		if (!taken) return [];
		const records = yield* step(grantedRecords, { link: id, workspace });
		const sections = yield* step(grantedSections, { link: id, workspace });
		return [{ id, workspace, slug, label, purpose, identity, stamp, ...taken, records, sections }];
	}
	/** The open read of `slug` on the app's handle, or nothing (the caller then runs the gates). */
	const resolveOpen = async (slug: string, read: OpenRead): Promise<OpenResolveRow | undefined> => {
		if (openBatches) return openBatches(slug, read);
		const [open] = await runSteps(db, () => resolveOpenSteps({ slug, ...read }));
		return open;
	};

	const insertToken = prepare<
		{
			hash: string;
			link: string;
			kind: string;
			record: string | null;
			view: number;
			line: string | null;
			reader: string | null;
			now: number;
			expires: number;
		},
		never
	>(
		db.insertInto("link_tokens").values({
			token_hash: param("hash"),
			link: param("link"),
			kind: param("kind"),
			record: param("record"),
			view: param("view"),
			stamp_line: param("line"),
			reader: param("reader"),
			created: param("now"),
			expires: param("expires"),
		}),
	);

	// Spent on first presentation, right or wrong: the row goes whatever the caller meant it for.
	const spendToken = prepare<{ hash: string }, SpentToken>(
		db
			.deleteFrom("link_tokens")
			.where("token_hash", "=", param("hash"))
			.returning(["link", "kind", "record", "view", "stamp_line", "reader", "expires"]),
	);

	const markExpired = prepare<{ id: string; now: number }, { id: string }>(
		db
			.updateTable("links")
			.set({ status: "expired", updated: param("now") })
			.where("id", "=", param("id"))
			.where("status", "=", "active")
			.where((eb) =>
				eb.or([
					eb("expires_at", "<=", param("now")),
					eb.and([eb("max_views", "is not", null), eb("view_count", ">=", eb.ref("max_views"))]),
				]),
			)
			.returning("id"),
	);

	return {
		linkBySlug,
		probeLink,
		takeView,
		insertRead,
		grantedRecords,
		grantedSections,
		resolveOpen,
		insertToken,
		spendToken,
		markExpired,
	};
}

export type PublicQueries = ReturnType<typeof publicQueries>;

/**
 * PostgreSQL's one-statement reads log the views they took in the same WITH: a read-log row per
 * view the `taken` CTE's share took (its `taken` column), numbered up to its new view count, with
 * the reads' ids and times as array parameters `readIds` and `ats`, in the order of the views.
 */
function logTakenViews<Taken extends { id: string; workspace: string; view_count: number; taken: number }>(
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
