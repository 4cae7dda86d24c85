// Kysely queries for grants handed out with a token (spec "Remote grant and bulk read").
import type { Kysely, Transaction } from "kysely";
import type { Dialect } from "../../db/index.ts";
import * as outbox from "../../db/outbox.ts";
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
			"links.slug",
			"links.stamp",
			"links.purpose",
			"grant_tokens.peer",
		]);
}

export function insertGrant(db: Db, row: GrantTokenTable) {
	return db.insertInto("grant_tokens").values(row).execute();
}

/** A grant taken back before anyone was told of it (relay.ts). */
export function deleteGrant(db: Db, linkId: string) {
	return db.deleteFrom("grant_tokens").where("link", "=", linkId).execute();
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

/** Claims up to `limit` due events (db/outbox.ts): a lapsed claim is taken again, events may repeat. */
export function claimDuePeerEvents(
	db: Kysely<Database>,
	dialect: Dialect,
	input: { now: number; lease: string; leaseUntil: number; limit: number },
) {
	return outbox.claimDue(db, dialect, "peer_events", input);
}

/** Records a batch's outcome on its rows, only those whose claim is still ours. */
export async function finishPeerEvents(
	db: Db,
	ids: readonly string[],
	lease: string,
	changes: Partial<Pick<PeerEventTable, "state" | "next_attempt" | "last_status" | "last_error" | "updated">>,
) {
	await outbox.finishClaimed(db, "peer_events", ids, lease, changes);
}

export function purgeFinishedPeerEvents(db: Db, before: number) {
	return outbox.purgeFinished(db, "peer_events", before);
}

/** The grant of a sign-in share, kept with a fresh token hash: an earlier token stops working. */
export function upsertGrant(db: Db, row: Pick<GrantTokenTable, "link" | "token_hash" | "keys">, now: number) {
	return db
		.insertInto("grant_tokens")
		.values({ ...row, peer: null, request_slug: null, created: now, updated: now })
		.onConflict((oc) =>
			oc.column("link").doUpdateSet({ token_hash: row.token_hash, keys: row.keys, updated: now }),
		)
		.execute();
}
