// Kysely queries for grants handed out with a token (spec "Remote grant and bulk read").
import { type ExpressionBuilder, type Kysely, sql, type Transaction } from "kysely";
import type { Dialect } from "../../db/index.ts";
import type { Database, GrantTokenTable, PeerEventTable } from "../../db/schema.ts";
import { resolvesAnyOf } from "../shares/service.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** The grant with its link, or undefined: no such link, or a link never handed out with a token. */
export function grantById(db: Db, id: string) {
	return grantRows(db).where("grant_tokens.link", "=", id).executeTakeFirst();
}

/** The grants among `ids` (a bulk read's, at most 100), each with its link. */
export function grantsByIds(db: Db, ids: readonly string[]) {
	return grantRows(db)
		.where("grant_tokens.link", "in", [...ids])
		.execute();
}

function grantRows(db: Db) {
	return db
		.selectFrom("grant_tokens")
		.innerJoin("links", "links.id", "grant_tokens.link")
		.select([
			"grant_tokens.link as id",
			"grant_tokens.token_hash",
			"grant_tokens.keys",
			"links.workspace",
			"links.status",
			"links.expires_at",
			"links.max_views",
			"links.view_count",
			"links.sign_in_client",
		]);
}

export function insertGrant(db: Db, row: GrantTokenTable) {
	return db.insertInto("grant_tokens").values(row).execute();
}

export function grantOfLink(db: Db, linkId: string) {
	return db.selectFrom("grant_tokens").selectAll().where("link", "=", linkId).executeTakeFirst();
}

// ---- grants handed to another server: their events (events-out.ts) ----

/** Of `links`, those handed to a peer, with the peer and the request slug there. */
export function peerGrantsOfLinks(db: Db, links: readonly string[]) {
	return db
		.selectFrom("grant_tokens")
		.select(["link", "peer as peer", "request_slug"])
		.where("link", "in", [...links])
		.where("peer", "is not", null)
		.$narrowType<{ peer: string }>()
		.execute();
}

/** Active grants handed to a peer that resolve any of `records` (as answer links do). */
export function peerGrantLinksResolving(db: Db, records: readonly string[]) {
	return db
		.selectFrom("links")
		.innerJoin("grant_tokens", "grant_tokens.link", "links.id")
		.select([
			"links.id",
			"links.workspace",
			"links.label",
			"links.status",
			"links.expires_at",
			"links.max_views",
			"links.view_count",
		])
		.where("grant_tokens.peer", "is not", null)
		.where("links.status", "=", "active")
		.where(resolvesAnyOf(records))
		.execute();
}

/** Grants of a workspace handed to a peer and not yet revoked or expired. */
export function standingPeerGrantsInWorkspace(db: Db, workspaceId: string) {
	return db
		.selectFrom("links")
		.innerJoin("grant_tokens", "grant_tokens.link", "links.id")
		.select("links.id")
		.where("links.workspace", "=", workspaceId)
		.where("grant_tokens.peer", "is not", null)
		.where("links.status", "in", ["active", "paused"])
		.execute();
}

export function insertPeerEvents(db: Db, rows: PeerEventTable[]) {
	return db.insertInto("peer_events").values(rows).execute();
}

/** Due now: pending and its time has come, or claimed by a worker whose lease lapsed. */
function due(now: number) {
	return (eb: ExpressionBuilder<Database, "peer_events">) =>
		eb.or([
			eb.and([eb("state", "=", "pending"), eb("next_attempt", "<=", now)]),
			eb.and([eb("state", "=", "sending"), eb("lease_until", "<=", now)]),
		]);
}

/**
 * Claims up to `limit` due events in one statement, counted as an attempt, as the callback outbox
 * does (callbacks/store.ts claimDue): SKIP LOCKED on PostgreSQL so workers take disjoint rows.
 */
export function claimDuePeerEvents(
	db: Kysely<Database>,
	dialect: Dialect,
	input: { now: number; lease: string; leaseUntil: number; limit: number },
) {
	const candidates = db
		.selectFrom("peer_events")
		.select("id")
		.where(due(input.now))
		.orderBy("next_attempt")
		.orderBy("id")
		.limit(input.limit)
		.$if(dialect === "postgres", (qb) => qb.forUpdate().skipLocked());
	return db
		.updateTable("peer_events")
		.set({
			state: "sending",
			lease: input.lease,
			lease_until: input.leaseUntil,
			attempts: sql<number>`attempts + 1`,
			updated: input.now,
		})
		.where("id", "in", candidates)
		.where(due(input.now))
		.returningAll()
		.execute();
}

/** Records a batch's outcome on its rows, only those whose claim is still ours. */
export async function finishPeerEvents(
	db: Db,
	ids: readonly string[],
	lease: string,
	changes: Partial<Pick<PeerEventTable, "state" | "next_attempt" | "last_status" | "last_error" | "updated">>,
) {
	for (let i = 0; i < ids.length; i += 500) {
		await db
			.updateTable("peer_events")
			.set({ ...changes, lease: null, lease_until: null })
			.where("id", "in", ids.slice(i, i + 500))
			.where("lease", "=", lease)
			.where("state", "=", "sending")
			.execute();
	}
}

export function purgeFinishedPeerEvents(db: Db, before: number) {
	return db
		.deleteFrom("peer_events")
		.where("state", "in", ["delivered", "failed"])
		.where("updated", "<", before)
		.executeTakeFirst();
}

// ---- remote answers kept here: events from the server holding the grant (events-in.ts) ----

/**
 * Records a peer's event on the answer it names, unless one as new or newer was recorded: one
 * conditional UPDATE, so a late or repeated event changes nothing. The answer when it applied.
 */
export function applyRemoteStatus(db: Db, server: string, grantId: string, status: string, at: number) {
	return db
		.updateTable("request_answers")
		.set({ remote_status: status, remote_at: at })
		.where("server", "=", server)
		.where("grant_id", "=", grantId)
		.where((eb) => eb.or([eb("remote_at", "is", null), eb("remote_at", "<", at)]))
		.returning(["id", "request"])
		.executeTakeFirst();
}
