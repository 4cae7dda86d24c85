// What other features ask of shares: the readers of a share by slug (the formats and the
// addressbook) and their gates, the stamp line for a preview, and for answers (which are shares
// in the responder's workspace) keeping the answer's share and asking what it grants. Nothing
// outside this feature touches its store or compiled queries.
import type { Kysely, Transaction } from "kysely";
import type { Database, LinkTable } from "../../db/schema.ts";
import { type Caller, requireScope } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import type { SharesContext } from "./context.ts";
import { passGates } from "./gates.ts";
import type { GrantHooks } from "./grant-hooks.ts";
import { grantsOf } from "./granted.ts";
import { changeLinkStatus, createLink, effectiveStatus, type LinkStatus, type NewLink } from "./lifecycle.ts";
import { findBySlug } from "./public.ts";
import type { PublicLinkRow } from "./public-queries.ts";
import { sweepReads } from "./reads.ts";
import * as store from "./store.ts";

export { type SharesContext, sharesContext } from "./context.ts";
export { effectiveStatus, pastExpiry, pastExpirySql } from "./gates/open.ts";
export {
	type Client,
	checkHandshake,
	checkPassword,
	type GateInput,
	isUngated,
	passGates,
	passGrantToken,
	peekStatus,
	type ShareReader,
} from "./gates.ts";
export {
	createGrantHooks,
	type GrantHooks,
	type LinkStatusChange,
	type RecordsChange,
	runRecordsChanged,
} from "./grant-hooks.ts";
export { grantsOf, readGrants, sharedRecord, sharedSections } from "./granted.ts";
export { changeLinkStatus, createLink, expireLinks, isWatermarked, newLinkRow } from "./lifecycle.ts";
export { findBySlug, resolveLink } from "./public.ts";
export type { PublicLinkRow } from "./public-queries.ts";
export { resolvesAnyOf } from "./store.ts";
export {
	FORMAT_TOKEN_TTL_MS,
	logTokenRead,
	mintFormatTokens,
	mintViewlessDownload,
	openFormat,
	type TokenRead,
} from "./tokens.ts";

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The owner's preview of their share (GET /api/links/{id}/preview): the share of the caller's
 * workspace, read as the `ownerPreview` reader of READER_GATES: its status as it stands, none of
 * the password and identity gates its readers pass, no view taken, nothing logged. A session with
 * `link:read` and `record:read` only: a key never opens the vault, so it never sees a share's values.
 */
export async function ownerPreview(
	ctx: SharesContext,
	caller: Caller,
	linkId: string,
	now: number,
): Promise<{ link: PublicLinkRow; status: LinkStatus }> {
	requireScope(caller, "link:read");
	if (caller.kind !== "session")
		throw new AppError("api_key_scope_missing", "An API key never opens a share's values", {
			extra: { scope: "record:read" },
		});
	requireScope(caller, "record:read");
	const own = await store.findLink(ctx.db, caller.workspaceId, linkId);
	if (!own) throw new AppError("link_not_found");
	// The row every reader of the share reads (with its sharer), by the share's own slug.
	const link = await findBySlug(ctx, own.slug);
	const { status } = await passGates(ctx, "ownerPreview", link, {}, now);
	return { link, status };
}

/**
 * The stamp line of a share for one of its records, for `POST /api/stamp-preview` with `link`:
 * the share must be the workspace's and grant the record now, and be watermarked.
 */
export async function shareStampFor(
	db: Kysely<Database>,
	workspaceId: string,
	linkId: string,
	recordId: string,
	_now: number,
): Promise<{ line: string }> {
	const link = await store.findLink(db, workspaceId, linkId);
	if (!link) throw new AppError("link_not_found");
	const { records } = await grantsOf(db, link);
	if (!records.some((r) => r.id === recordId))
		throw new AppError("record_not_found", "The share does not grant this record");
	if (link.stamp === null) throw new AppError("watermark_text_invalid", "The share has no stamp text");
	return { line: link.stamp };
}

/** Whether the share grants any record (directly or through sections) besides `excluding`. */
export async function grantsBeyond(db: Db, linkId: string, excluding: readonly string[]): Promise<boolean> {
	return (await store.countGrantedExcept(db, linkId, excluding)) > 0;
}

/** At most this many of a tool's shares are listed to it, newest first. */
export const TOOL_LINKS_MAX = 1000;

/** The shares a connected tool's proposals became, newest first. */
export function toolLinks(db: Db, connectionId: string): Promise<LinkTable[]> {
	return store.linksOfConnection(db, connectionId, TOOL_LINKS_MAX);
}

/**
 * Which of these shares hold a hidden record or a file now. A share is checked when it is made
 * or changed for a tool, but a record can become hidden, or a file can land in a granted section,
 * afterwards: the address is withheld while that lasts (spec: never handed to a tool).
 */
export function holdingHiddenOrFile(db: Db, linkIds: readonly string[]): Promise<Set<string>> {
	return store.linksHoldingHiddenOrFile(db, linkIds);
}

/**
 * A tool revokes a share its proposal became (spec: `POST /api/connection/links/{id}/revoke`):
 * through the one transition table, so revoking again succeeds and the owner is told which tool
 * did it. Another tool's share, or the owner's own, answers `link_not_found`.
 */
export async function revokeForTool(
	db: Kysely<Database>,
	connectionId: string,
	linkId: string,
	tool: { name: string; origin: string },
	now: number,
	hooks: GrantHooks,
): Promise<LinkTable> {
	return db.transaction().execute(async (trx) => {
		const link = await store.findToolLink(trx, connectionId, linkId);
		if (!link) throw new AppError("link_not_found", "No share of this tool has that id");
		await changeLinkStatus(trx, link, "revoked", { kind: "tool", ...tool }, now, hooks);
		return { ...link, status: "revoked" as const, updated: now };
	});
}

/**
 * Keeps the share of someone who grants again (an answer sent again, a sign-in that shares again)
 * granting `records`, in order. The one rule: the share `current` is updated in place while it
 * stands (active, or paused: the owner's pause holds); one that no longer stands (revoked, expired
 * by date or by its view cap, or gone) is never revived but made again, with a fresh slug, as
 * `fields.id`: replacing the old row when that is its id too, else beside it. Answers the share's
 * id, whether it was made again, and its status now.
 */
export async function renewShare(
	db: Db,
	current: string | undefined,
	fields: NewLink & { id: string },
	records: readonly string[],
	now: number,
): Promise<{ id: string; restarted: boolean; status: LinkStatus }> {
	const link = current === undefined ? undefined : await store.findLink(db, fields.workspace, current);
	const status = link && effectiveStatus(link, now);
	if (link && (status === "active" || status === "paused")) {
		await store.replaceGrants(db, link.id, records, []);
		await store.updateLink(db, link.id, { updated: now });
		return { id: link.id, restarted: false, status };
	}
	if (link && link.id === fields.id) await store.deleteLink(db, link.id);
	await createLink(db, fields, { records, sections: [] }, now);
	return { id: fields.id, restarted: true, status: "active" };
}

/**
 * A share minted for a remote answer the other server refused or could not take (grants/relay.ts):
 * removed as if never written, its record rows first. Runs in the caller's transaction.
 */
export async function takeBackLink(db: Db, linkId: string): Promise<void> {
	await db.deleteFrom("link_records").where("link", "=", linkId).execute();
	await db.deleteFrom("links").where("id", "=", linkId).execute();
}

/** How often the server process sweeps shares' leftovers (src/background.ts). */
export const SHARE_SWEEP_MS = 10 * 60_000;

/** Shares' leftovers: one-time tokens past their expiry, and reads older than READ_LOG_DAYS. */
export async function sweepShares(db: Kysely<Database>, readLogDays: number, now: number): Promise<void> {
	await store.deleteExpiredTokens(db, now);
	await sweepReads(db, readLogDays, now);
}
