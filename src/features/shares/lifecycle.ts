// A share's life (spec "Link (share) status"): the one new-link row, the status a reader sees, the
// transition table, expiry, and the revocation notice. Every status change, whoever asks for it
// (the owner, a tool, an answer, the expiry sweep), goes through here and tells the grant hooks.
import type { Kysely, Transaction } from "kysely";
import type { Database, LinkTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { newId, randomToken } from "../../lib/crypto.ts";
import { SHARE_TRANSITIONS } from "../../lib/share-status.ts";
import { raiseNotice } from "../notifications/service.ts";
import { effectiveStatus, type LinkStatus } from "./gates/open.ts";
import { type GrantHooks, runLinkStatus } from "./grant-hooks.ts";
import { type PublicQueries, publicQueries } from "./public-queries.ts";
import * as store from "./store.ts";

// The status a reader sees is the status gate's (gates/open.ts); other features ask it here.
export { effectiveStatus, type LinkStatus };

type Db = Kysely<Database> | Transaction<Database>;

/** Bytes of a slug: 256 bits from the CSPRNG, base64url (design: at least 128). */
const SLUG_BYTES = 32;

/** What a new share sets; everything else starts as a plain, active, ungated share. */
export type NewLink = Pick<LinkTable, "workspace" | "created_by"> &
	Partial<Omit<LinkTable, "workspace" | "created_by" | "created" | "updated" | "status" | "view_count">>;

/** Inserts a share with a fresh slug and the records and sections it grants, in order. */
export async function createLink(
	db: Db,
	fields: NewLink,
	grants: { records: readonly string[]; sections: readonly string[] },
	now: number,
): Promise<string> {
	const row = newLinkRow(fields, now);
	await store.insertLink(db, row);
	await store.replaceGrants(db, row.id, grants.records, grants.sections);
	return row.id;
}

/** A new share's row: a fresh id and slug, `fields`, and a plain, active, ungated share for the rest. */
export function newLinkRow(fields: NewLink, now: number): LinkTable {
	return {
		id: newId(),
		slug: randomToken(SLUG_BYTES),
		label: "",
		password_hash: null,
		max_views: null,
		expires_at: null,
		require_handshake: 0,
		stamp: null,
		purpose: "",
		ref: null,
		identity: null,
		handed_over: 0,
		sign_in_client: null,
		connection: null,
		...fields,
		status: "active",
		view_count: 0,
		created: now,
		updated: now,
	};
}

export function isWatermarked(link: Pick<LinkTable, "stamp" | "purpose">): boolean {
	return link.stamp !== null || link.purpose === "application";
}

/** Who changes a share's status: named in the revocation notice. */
export type Actor =
	| { kind: "owner"; accountId: string }
	| { kind: "tool"; name: string; origin: string }
	| { kind: "system"; reason: string };

/**
 * Moves a share to `to` with one conditional UPDATE (the status must still be the one read, so two
 * owners pausing and revoking at once cannot undo each other). Returns the status before. Run it
 * in the caller's transaction: the revocation notice commits with the revocation.
 */
export async function changeLinkStatus(
	db: Db,
	link: Pick<LinkTable, "id" | "workspace" | "label" | "status" | "expires_at" | "max_views" | "view_count">,
	to: LinkStatus,
	actor: Actor,
	now: number,
	hooks?: GrantHooks,
): Promise<LinkStatus> {
	if (to === "expired")
		throw new AppError("link_status_invalid", "A share expires by itself, never by request");
	const from = effectiveStatus(link, now);
	if (!SHARE_TRANSITIONS[from].includes(to)) {
		throw new AppError("link_status_invalid", `A share that is ${from} cannot become ${to}`, {
			extra: { from, to },
		});
	}
	if (from === to) return from;
	// The stored status may be `active` for a share past its expiry: it counts as expired.
	const stored: LinkStatus[] = from === "expired" ? ["active", "expired"] : [from];
	const changed = await store.changeStatus(db, link.id, stored, to, now);
	if (!changed) throw new AppError("conflict", "The share changed meanwhile; read it again");
	if (to === "revoked") await notifyRevoked(db, link, actor, now);
	// A share past its expiry (or at its cap) but still stored active expires first, then is revoked.
	if (from === "expired" && link.status === "active") {
		await runLinkStatus(hooks, db, { link: link.id, from: "active", to: "expired" }, now);
	}
	await runLinkStatus(hooks, db, { link: link.id, from, to }, now);
	return from;
}

async function notifyRevoked(
	db: Db,
	link: Pick<LinkTable, "id" | "workspace" | "label">,
	actor: Actor,
	now: number,
) {
	const ws = await store.workspaceOwner(db, link.workspace);
	if (!ws) return;
	const by =
		actor.kind === "tool"
			? `by the tool ${actor.name} (${actor.origin})`
			: actor.kind === "system"
				? actor.reason
				: "by you";
	await raiseNotice(
		db,
		{
			account: ws.owner,
			workspace: link.workspace,
			kind: "link_revoked",
			title: `Share revoked: ${link.label || "untitled share"}`,
			body: `The share was revoked ${by}; its address no longer opens.`,
			// A tool is named by its origin (what it is) and the name it gives itself (a claim).
			data: {
				link: link.id,
				label: link.label,
				by: actor.kind,
				...(actor.kind === "tool" ? { tool: actor.origin, toolName: actor.name } : {}),
			},
		},
		now,
	);
}

/**
 * Writes `expired` for an active share past its expiry or at its view cap, once (a conditional
 * UPDATE), and tells the watchers. Answers whether this call expired it.
 */
export async function expireLink(
	q: PublicQueries,
	db: Db,
	hooks: GrantHooks | undefined,
	linkId: string,
	now: number,
): Promise<boolean> {
	const [changed] = await q.markExpired(db, { id: linkId, now });
	if (changed) await runLinkStatus(hooks, db, { link: linkId, from: "active", to: "expired" }, now);
	return changed !== undefined;
}

/** Expires each share past its expiry, each in its own transaction; answers how many it expired. */
export async function expireLinks(
	db: Kysely<Database>,
	hooks: GrantHooks | undefined,
	ids: readonly string[],
	now: number,
): Promise<number> {
	const q = publicQueries(db);
	let expired = 0;
	for (const id of ids) {
		if (await db.transaction().execute((trx) => expireLink(q, trx, hooks, id, now))) expired++;
	}
	return expired;
}

/** A share holding a hidden record or a file is never handed to a tool (spec; checked on every change). */
export async function assertHandOverable(db: Db, linkId: string): Promise<void> {
	if (await store.grantsHiddenOrFile(db, linkId)) {
		throw new AppError(
			"link_hand_over_not_allowed",
			"A share holding a hidden record or a file is never handed to a tool",
		);
	}
}
