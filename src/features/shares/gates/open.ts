// What "open" means for a share (spec "Link (share) status"), written once for each way it is
// asked: in JavaScript for a row already read, and as SQL for the statements compiled once
// (public-queries/) that take a view without reading the row first: the conditional UPDATE of
// every view (both databases), the view by slug of the resolve of an ungated share (both databases:
// one statement on PostgreSQL, the first of its transaction on SQLite), and the expiry write. The gates (gates.ts) and the fast
// path take their conditions from here; nothing else writes them.
import { type ExpressionBuilder, sql } from "kysely";
import type { Database, LinkTable } from "../../../db/schema.ts";

export type LinkStatus = LinkTable["status"];
type Links = ExpressionBuilder<Database, "links">;
/** The time of the read: a placeholder (`param("now")`) of a compiled statement. */
// biome-ignore lint/suspicious/noExplicitAny: a placeholder stands for a value of the column's type
type Now = any;

/** Cap gate: a share whose views reached its cap is spent (the view that does so expires it). */
export function capReached(link: Pick<LinkTable, "max_views" | "view_count">): boolean {
	return link.max_views !== null && link.view_count >= link.max_views;
}

/** Expiry gate: a share is expired from its `expires_at` on (that very millisecond included). */
export function pastExpiry(link: Pick<LinkTable, "expires_at">, now: number): boolean {
	return link.expires_at !== null && link.expires_at <= now;
}

/**
 * The status a reader sees now: an active share past its expiry, or whose views reached its cap
 * (the owner lowered `maxViews` to the views already taken), is expired.
 */
export function effectiveStatus(
	link: Pick<LinkTable, "status" | "expires_at" | "max_views" | "view_count">,
	now: number,
): LinkStatus {
	if (link.status !== "active") return link.status;
	return pastExpiry(link, now) || capReached(link) ? "expired" : "active";
}

/** A share that asks nothing of its reader: no password, no proven identity. */
export function isUngated(link: Pick<LinkTable, "password_hash" | "require_handshake">): boolean {
	return link.password_hash === null && link.require_handshake === 0;
}

/** SQL of `effectiveStatus(link, now) === "active"`: active, under its cap, before its expiry. */
export const openSql = (eb: Links, now: Now) =>
	eb.and([
		eb("links.status", "=", "active"),
		eb.or([eb("links.max_views", "is", null), eb("links.view_count", "<", eb.ref("links.max_views"))]),
		eb.or([eb("links.expires_at", "is", null), eb("links.expires_at", ">", now)]),
	]);

/** SQL of `isUngated(link)`. */
export const ungatedSql = (eb: Links) =>
	eb.and([eb("links.password_hash", "is", null), eb("links.require_handshake", "=", 0)]);

/** SQL of a share stored active that `effectiveStatus` finds expired: past its expiry, or at its cap. */
export const expiringSql = (eb: Links, now: Now) =>
	eb.and([
		eb("links.status", "=", "active"),
		eb.or([
			eb("links.expires_at", "<=", now),
			eb.and([
				eb("links.max_views", "is not", null),
				eb("links.view_count", ">=", eb.ref("links.max_views")),
			]),
		]),
	]);

/** SQL of a share stored active and past its expiry (the expiry sweep's; a cap expires at its view). */
export const pastExpirySql = (eb: Links, now: Now) =>
	eb.and([eb("links.status", "=", "active"), eb("links.expires_at", "<=", now)]);

/** One view more (the SET of the conditional UPDATE): the view that reaches the cap expires the share. */
export const viewTakenSql = {
	view_count: sql<number>`view_count + 1`,
	status: sql<LinkStatus>`case when max_views is not null and view_count + 1 >= max_views then 'expired' else status end`,
};

/**
 * How many views one statement takes for `count` reads of one share arriving together: all of them
 * on a share without a cap; one on a capped share, whose other reads then meet the gates one by
 * one, so a cap is only ever reached through the conditional UPDATE.
 */
export const batchViewsSql = (count: Now) =>
	sql<number>`case when max_views is null then cast(${count} as integer) else 1 end`;
