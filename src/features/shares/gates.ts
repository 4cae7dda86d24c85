// The gates of a share, as ordered named checks (spec "Link (share) status", resolve rules): every
// reader of a share (the resolve, the share page, the addressbook, remote answers) runs them in
// this order, with these codes: status, password, handshake, then one view taken atomically.
// Requests reuse the password and handshake gates for their answers.
import type { ReadKind } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { newId } from "../../lib/crypto.ts";
import { verifyPassword } from "../../lib/password.ts";
import { type ChallengeScope, type ProvenIdentity, verifyChallenge } from "../challenges/service.ts";
import type { SharesContext } from "./context.ts";
import { runLinkStatus } from "./grant-hooks.ts";
import { effectiveStatus, expireLink, type LinkStatus } from "./lifecycle.ts";
import type { PublicLinkRow } from "./public-queries.ts";

/**
 * Every gate a reader of a share may have to honour, as the gate-by-reader test names them
 * (test/shares/gate-matrix/): adding one here makes that test name each reader that does
 * not yet answer for it.
 */
export const SHARE_GATES = [
	"paused",
	"revoked",
	"expired",
	"capReached",
	"password",
	"handshake",
	"watermark",
	"hidden",
	"handOver",
] as const;
export type ShareGate = (typeof SHARE_GATES)[number];

/** Every way a share is read from outside, as the gate-by-reader test names them. */
export const SHARE_READERS = [
	"probe",
	"resolve",
	"page",
	"csv",
	"vcard",
	"ical",
	"carddav",
	"fileToken",
	"archive",
	"grantRead",
	"oidcClaims",
	"remoteAnswer",
] as const;
export type ShareReader = (typeof SHARE_READERS)[number];

/** What a reader may present at the gates (the resolve body; all optional). */
export interface GateInput {
	password?: string | undefined;
	identityId?: string | undefined;
	challengeNonce?: string | undefined;
	challengeSignature?: string | undefined;
}

/** A share read in any status but active says which, as a 404 (design: no more than a missing slug). */
export function refuseStatus(status: LinkStatus): never {
	if (status === "paused") throw new AppError("link_paused", "The share is paused");
	if (status === "revoked") throw new AppError("link_revoked", "The share was revoked");
	throw new AppError("link_expired", "The share has expired");
}

/** Status gate: only an active share is read; one found past its expiry is expired now, once. */
export async function checkStatus(ctx: SharesContext, link: PublicLinkRow, now: number): Promise<void> {
	const status = effectiveStatus(link, now);
	if (status !== link.status) await expireLink(ctx.q, ctx.db, ctx.hooks, link.id, now);
	if (status !== "active") refuseStatus(status);
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

/** How a view was taken, as the read log records it (docs/api.md "Read log"). */
export type ViewKind = Exclude<ReadKind, "file" | "archive">;

/** A reader who passed every gate: who they proved to be (handshake shares) and the view they took. */
export interface Admitted {
	reader: ProvenIdentity | undefined;
	view: number;
}

/**
 * The gates before the view, in the spec's order: status, password, handshake. Alone, for answers
 * that carry no value (a 304, a HEAD) yet must be refused exactly as a read would be.
 */
export async function passGates(
	ctx: SharesContext,
	link: PublicLinkRow,
	input: GateInput,
	now: number,
): Promise<ProvenIdentity | undefined> {
	await checkStatus(ctx, link, now);
	await checkPassword(link.password_hash, input.password);
	return checkHandshake(
		ctx,
		{ required: link.require_handshake === 1, scope: "link", slug: link.slug },
		input,
		now,
	);
}

/** Runs a share's gates in the spec's order for one read that consumes a view. */
export async function admit(
	ctx: SharesContext,
	link: PublicLinkRow,
	input: GateInput,
	now: number,
	kind: ViewKind,
): Promise<Admitted> {
	const reader = await passGates(ctx, link, input, now);
	const view = await takeView(ctx, link, now, { kind, reader: reader?.fingerprint ?? null });
	return { reader, view };
}
