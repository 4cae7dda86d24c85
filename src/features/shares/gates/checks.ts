// The named checks of a share's gates, each what one gate enforces. gates.ts lists them in order
// and says which reader runs which; readers run them through it, not one by one.
import type { FormatTokenKind, ReadKind } from "../../../db/schema.ts";
import { AppError } from "../../../http/errors.ts";
import { newId } from "../../../lib/crypto.ts";
import { verifyPassword } from "../../../lib/password.ts";
import { type ChallengeScope, type ProvenIdentity, verifyChallenge } from "../../challenges/service.ts";
import type { SharesContext } from "../context.ts";
import { runLinkStatus } from "../grant-hooks.ts";
import { expireLink } from "../lifecycle.ts";
import type { PublicLinkRow } from "../public-queries.ts";
import { effectiveStatus, isUngated, type LinkStatus } from "./open.ts";

/** What a reader may present at the gates (the resolve body; all optional). */
export interface GateInput {
	password?: string | undefined;
	identityId?: string | undefined;
	challengeNonce?: string | undefined;
	challengeSignature?: string | undefined;
}

/** How a view was taken, as the read log records it (docs/api.md "Read log"). */
export type ViewKind = Exclude<ReadKind, "file" | "archive" | FormatTokenKind>;

/** A share read in any status but active says which, as a 404 (design: no more than a missing slug). */
export function refuseStatus(status: LinkStatus): never {
	if (status === "paused") throw new AppError("link_paused", "The share is paused");
	if (status === "revoked") throw new AppError("link_revoked", "The share was revoked");
	throw new AppError("link_expired", "The share has expired");
}

/** Status gate: the status a reader sees; one found past its expiry or at its cap is expired now, once. */
export async function expireOnSight(
	ctx: SharesContext,
	link: PublicLinkRow,
	now: number,
): Promise<LinkStatus> {
	const status = effectiveStatus(link, now);
	if (status !== link.status) await expireLink(ctx.q, ctx.db, ctx.hooks, link.id, now);
	return status;
}

/** Status gate, refusing: only an active share is read. */
export async function checkStatus(ctx: SharesContext, link: PublicLinkRow, now: number): Promise<void> {
	const status = await expireOnSight(ctx, link, now);
	if (status !== "active") refuseStatus(status);
}

/**
 * Status gate of a one-time token: paused, revoked or past its expiry refuses; a share expired by
 * its view cap still honours the view the token was minted by (that view was taken before it).
 */
export function checkTokenStatus(link: PublicLinkRow, now: number): void {
	const status = effectiveStatus(link, now);
	const byViewCap =
		status === "expired" && link.status === "expired" && (link.expires_at === null || link.expires_at > now);
	if (status !== "active" && !byViewCap) refuseStatus(status);
}

/**
 * How a reader meets the status gate: `refuse` (a share not active answers its status's code),
 * `report` (the status is answered, not refused), both writing `expired` once for a share found
 * past its expiry or at its cap; `token` (as `refuse`, but a share its view cap expired honours
 * the view a token was minted by; nothing written); `peek` (the status as it stands, nothing
 * written: values only while it is `active`).
 */
export type StatusPolicy = "refuse" | "report" | "token" | "peek";

/** The status gate as `policy` runs it; answers the status the reader sees. */
export async function passStatus(
	ctx: SharesContext,
	policy: StatusPolicy,
	link: PublicLinkRow,
	now: number,
): Promise<LinkStatus> {
	if (policy === "peek") return effectiveStatus(link, now);
	if (policy === "report") return expireOnSight(ctx, link, now);
	if (policy === "token") {
		checkTokenStatus(link, now);
		return link.status;
	}
	await checkStatus(ctx, link, now);
	return "active";
}

/** Password gate: a share or request with a password needs it (required, then invalid). */
export async function checkPassword(hash: string | null, password: string | undefined): Promise<void> {
	if (hash === null) return;
	if (typeof password !== "string" || password === "") throw new AppError("link_password_required");
	if (!(await verifyPassword(password, hash))) throw new AppError("link_password_invalid");
}

/** Handshake gate: when required, a spent-on-sight nonce for this scope and slug, signed by the identity. */
export async function checkHandshake(
	ctx: Pick<SharesContext, "db">,
	gate: { required: boolean; scope: ChallengeScope; slug: string },
	input: GateInput,
	now: number,
): Promise<ProvenIdentity | undefined> {
	if (!gate.required) return undefined;
	return verifyChallenge(
		ctx.db,
		{
			scope: gate.scope,
			slug: gate.slug,
			nonce: input.challengeNonce,
			signature: input.challengeSignature,
			...(input.identityId ? { identityId: input.identityId } : {}),
		},
		now,
	);
}

/** Handshake gate for a reader that cannot prove an identity (a browser): refused before any password. */
export function refuseUnprovable(link: PublicLinkRow): void {
	if (link.require_handshake === 1) {
		throw new AppError("challenge_required", "This share needs a proven identity: open it in the app");
	}
}

/** Password and handshake gates for a reader that serves only ungated shares: any other is missing. */
export function refuseGated(link: PublicLinkRow, detail: string): void {
	if (!isUngated(link)) throw new AppError("link_not_found", detail);
}

/**
 * View gate: one conditional UPDATE. A concurrent reader who took the last permitted view leaves
 * nothing to take, and the loser is refused as the status gate would now refuse it. Answers the
 * view count after this read; the view that reaches the cap expires the share in the same statement,
 * and the read is logged with it (docs/api.md "Read log").
 */
export async function takeView(
	ctx: SharesContext,
	link: PublicLinkRow,
	now: number,
	read: { kind: ViewKind; reader: string | null },
): Promise<number> {
	const { kind, reader } = read;
	const [taken] = await ctx.q.takeView(ctx.db, { id: link.id, now, readId: newId(), kind, reader });
	if (!taken) {
		const [again] = await ctx.q.linkBySlug(ctx.db, { slug: link.slug });
		const current = again ? effectiveStatus(again, now) : "revoked";
		refuseStatus(current === "active" ? "expired" : current);
	}
	if (taken.status === "expired") {
		await runLinkStatus(ctx.hooks, ctx.db, { link: link.id, from: "active", to: "expired" }, now);
	}
	return taken.view_count;
}
