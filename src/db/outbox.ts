// The lease of a durable outbox, written once for the tables that have one: callback deliveries
// (`outbox`), grant events for other servers (`peer_events`) and mails (`mail_outbox`). A worker claims due rows in one
// statement, marking them `sending` under its lease and counting the attempt before anything is
// sent; it records an outcome only while its claim still holds, so a worker whose lease lapsed
// (and whose rows another took) changes nothing. What is due, when to retry and what to send stay
// with each outbox's owner.
import {
	type Expression,
	type ExpressionBuilder,
	type Kysely,
	type SqlBool,
	sql,
	type Transaction,
} from "kysely";
import type { Database } from "./schema.ts";
import type { Dialect } from "./store.ts";

/** The tables kept as a leased outbox; each has the columns of `LeasedRow`. */
export type OutboxName = "outbox" | "peer_events" | "mail_outbox";

type Db = Kysely<Database> | Transaction<Database>;
type Eb = ExpressionBuilder<Database, OutboxName>;

/** What a worker writes when an attempt ends. */
export type Outcome<T extends OutboxName> = Partial<
	Pick<Database[T], "state" | "next_attempt" | "last_status" | "last_error" | "updated">
>;

/** The lease columns of a row just queued: pending, due now, never tried, claimed by no one. */
export function queuedNow(now: number) {
	return {
		state: "pending" as const,
		attempts: 0,
		next_attempt: now,
		lease: null,
		lease_until: null,
		last_status: null,
		last_error: null,
		created: now,
		updated: now,
	};
}

export interface ClaimInput {
	now: number;
	lease: string;
	leaseUntil: number;
	limit: number;
	/**
	 * Which rows whose claim lapsed (their worker died mid-send) may be claimed again; every one when
	 * left out. A row that must be sent at most once is never taken again.
	 */
	retake?: (eb: Eb) => Expression<SqlBool>;
}

/** Rows per statement when finishing many (well under SQLite's parameter cap). */
const BATCH = 500;

/** Due now: pending and its time has come, or claimed by a worker whose lease lapsed. */
function due(input: ClaimInput) {
	return (eb: Eb) =>
		eb.or([
			eb.and([eb("state", "=", "pending"), eb("next_attempt", "<=", input.now)]),
			eb.and([
				eb("state", "=", "sending"),
				eb("lease_until", "<=", input.now),
				...(input.retake ? [input.retake(eb)] : []),
			]),
		]);
}

/**
 * Claims up to `limit` due rows of `table` with one statement, oldest due first. On PostgreSQL the
 * candidate rows are locked with SKIP LOCKED so workers sharing the database take disjoint rows
 * without waiting; the outer condition is checked again on the locked row. SQLite runs one writer
 * at a time, so the statement alone is enough.
 */
export async function claimDue<T extends OutboxName>(
	db: Kysely<Database>,
	dialect: Dialect,
	table: T,
	input: ClaimInput,
): Promise<Database[T][]> {
	const t = table as OutboxName;
	const candidates = db
		.selectFrom(t)
		.select("id")
		.where(due(input))
		.orderBy("next_attempt")
		.orderBy("id")
		.limit(input.limit)
		.$if(dialect === "postgres", (qb) => qb.forUpdate().skipLocked());
	const rows = await db
		.updateTable(t)
		.set({
			state: "sending",
			lease: input.lease,
			lease_until: input.leaseUntil,
			attempts: sql<number>`attempts + 1`,
			updated: input.now,
		})
		.where("id", "in", candidates)
		.where(due(input))
		.returningAll()
		.execute();
	return rows as unknown as Database[T][];
}

/**
 * Records an attempt's outcome on the rows `ids`, releasing the claim, only on those still claimed
 * under `lease`. Answers the rows it landed on.
 */
export async function finishClaimed<T extends OutboxName>(
	db: Db,
	table: T,
	ids: readonly string[],
	lease: string,
	outcome: Outcome<T>,
): Promise<Database[T][]> {
	const t = table as OutboxName;
	const landed: Database[T][] = [];
	for (let i = 0; i < ids.length; i += BATCH) {
		const rows = await db
			.updateTable(t)
			.set({ ...(outcome as Outcome<OutboxName>), lease: null, lease_until: null })
			.where("id", "in", ids.slice(i, i + BATCH))
			.where("lease", "=", lease)
			.where("state", "=", "sending")
			.returningAll()
			.execute();
		landed.push(...(rows as unknown as Database[T][]));
	}
	return landed;
}

/** Delivered and failed rows are kept a while for diagnosis, then removed. */
export function purgeFinished(db: Db, table: OutboxName, before: number) {
	return db
		.deleteFrom(table)
		.where("state", "in", ["delivered", "failed"])
		.where("updated", "<", before)
		.executeTakeFirst();
}
