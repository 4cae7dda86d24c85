import type { Kysely, Transaction } from "kysely";
import type { Dialect } from "../../db/index.ts";
import * as outbox from "../../db/outbox.ts";
import type { Database, OutboxTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** What a delivery needs of its request: where to send and what to name. */
export function findTarget(db: Db, requestId: string) {
	return db
		.selectFrom("requests")
		.select(["id", "slug", "label", "callback_url", "workspace"])
		.where("id", "=", requestId)
		.executeTakeFirst();
}

/** The targets of several requests at once (fan-outs). */
export function findTargets(db: Db, requestIds: readonly string[]) {
	return db
		.selectFrom("requests")
		.select(["id", "slug", "callback_url"])
		.where("id", "in", [...requestIds])
		.execute();
}

/** A request of the workspace, for a test delivery with its real id and slug. */
export function findWorkspaceRequest(db: Db, workspaceId: string, id: string) {
	return db
		.selectFrom("requests")
		.select(["id", "slug", "items"])
		.where("workspace", "=", workspaceId)
		.where("id", "=", id)
		.executeTakeFirst();
}

/**
 * Who hears about a failed delivery: the request's creator while still a member of its workspace,
 * else the workspace's owner.
 */
export function findOwner(db: Db, requestId: string) {
	return db
		.selectFrom("requests")
		.innerJoin("workspaces", "workspaces.id", "requests.workspace")
		.leftJoin("members", (join) =>
			join
				.onRef("members.workspace", "=", "requests.workspace")
				.onRef("members.account", "=", "requests.account"),
		)
		.select([
			"requests.id",
			"requests.label",
			"requests.workspace",
			"workspaces.owner",
			"members.account as member",
		])
		.where("requests.id", "=", requestId)
		.executeTakeFirst();
}

export function insertDeliveries(db: Db, rows: OutboxTable[]) {
	return db.insertInto("outbox").values(rows).execute();
}

export function insertDelivery(db: Db, row: OutboxTable) {
	return db.insertInto("outbox").values(row).execute();
}

/**
 * Claims up to `limit` due rows, each marked `sending` under `lease` and counted as an attempt
 * before anything is sent (db/outbox.ts). Submissions are sent at most once: of the rows whose
 * claim lapsed (their worker died), only grant events are taken again.
 */
export function claimDue(
	db: Kysely<Database>,
	dialect: Dialect,
	input: { now: number; lease: string; leaseUntil: number; limit: number },
) {
	return outbox.claimDue(db, dialect, "outbox", { ...input, retake: (eb) => eb("kind", "=", "grant_event") });
}

/** Records the outcome of an attempt, only while the claim is still ours; the row when it landed. */
export async function finishDelivery(
	db: Db,
	id: string,
	lease: string,
	changes: Pick<OutboxTable, "state" | "next_attempt" | "last_status" | "last_error" | "updated">,
): Promise<OutboxTable | undefined> {
	const [landed] = await outbox.finishClaimed(db, "outbox", [id], lease, changes);
	return landed;
}

/** Submissions whose worker stopped mid-send (still `sending` past their lease). */
export function findInterruptedSubmissions(db: Db, now: number) {
	return db
		.selectFrom("outbox")
		.select("id")
		.where("state", "=", "sending")
		.where("kind", "=", "submission")
		.where("lease_until", "<=", now)
		.execute();
}

/** Fails one such submission: never sent again (at most once). The row when this call took it. */
export function failInterruptedSubmission(db: Db, id: string, now: number, reason: string) {
	return db
		.updateTable("outbox")
		.set({ state: "failed", lease: null, lease_until: null, last_error: reason, updated: now })
		.where("id", "=", id)
		.where("state", "=", "sending")
		.where("kind", "=", "submission")
		.where("lease_until", "<=", now)
		.returningAll()
		.executeTakeFirst();
}

/** Delivered and failed rows are kept a while for diagnosis, then removed. */
export function purgeFinished(db: Db, before: number) {
	return outbox.purgeFinished(db, "outbox", before);
}
