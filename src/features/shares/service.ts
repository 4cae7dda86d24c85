// The rules of shares (spec "Share (link)", "Link (share) status", "One-time artefacts"):
// status transitions, the public probe, the resolve's gates and its one atomic view, and the
// single-use download and archive tokens. Nothing here knows HTTP.
import type { Kysely, Transaction } from "kysely";
import type { Database, LinkTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { verifyPassword } from "../../lib/password.ts";
import { type ProvenIdentity, verifyChallenge } from "../challenges/service.ts";
import { createNotification } from "../notifications/service.ts";
import { type GrantHooks, runLinkStatus } from "./grant-hooks.ts";
import type { GrantedRecordRow, PublicLinkRow, PublicQueries } from "./store.ts";
import * as store from "./store.ts";

export type LinkStatus = LinkTable["status"];
type Db = Kysely<Database> | Transaction<Database>;

/** How long a `downloadToken` is good for (spec: single use; the lifetime is ours). */
export const DOWNLOAD_TOKEN_TTL_MS = 10 * 60_000;
/** `archiveToken`: usable within two minutes of the resolve (spec "Limits"). */
export const ARCHIVE_TOKEN_TTL_MS = 2 * 60_000;

export interface ServerClaim {
	domain: string;
	fingerprint: string;
	origin: string;
}

/** What the public paths need, built once per app. */
export interface SharesContext {
	db: Kysely<Database>;
	q: PublicQueries;
	server: ServerClaim;
	hooks?: GrantHooks;
}

/** Writes `expired` for a share read past its expiry, once, and tells the watchers. */
async function expireNow(ctx: SharesContext, linkId: string, now: number) {
	const [changed] = await ctx.q.markExpired(ctx.db, { id: linkId, now });
	if (changed) await runLinkStatus(ctx.hooks, ctx.db, { link: linkId, from: "active", to: "expired" }, now);
}

/** The status a reader sees now: an active share past its expiry is expired. */
export function effectiveStatus(link: Pick<LinkTable, "status" | "expires_at">, now: number): LinkStatus {
	return link.status === "active" && link.expires_at !== null && link.expires_at <= now
		? "expired"
		: link.status;
}

export function isWatermarked(link: Pick<LinkTable, "stamp" | "purpose">): boolean {
	return link.stamp !== null || link.purpose === "application";
}

// ---- transitions (owner, and later tools) ----

/**
 * The transition table: active <-> paused; active or paused -> revoked (one-way; revoking again
 * succeeds and changes nothing); expired is final except that it may still be revoked.
 */
const ALLOWED: Record<LinkStatus, readonly LinkStatus[]> = {
	active: ["active", "paused", "revoked"],
	paused: ["paused", "active", "revoked"],
	revoked: ["revoked"],
	expired: ["expired", "revoked"],
};

export type Actor = { kind: "owner"; accountId: string } | { kind: "tool"; name: string };

/**
 * Moves a share to `to` with one conditional UPDATE (the status must still be the one read, so two
 * owners pausing and revoking at once cannot undo each other). Returns the status before. Run it
 * in the caller's transaction: the revocation notice commits with the revocation.
 */
export async function changeLinkStatus(
	db: Db,
	link: Pick<LinkTable, "id" | "workspace" | "label" | "status" | "expires_at">,
	to: LinkStatus,
	actor: Actor,
	now: number,
	hooks?: GrantHooks,
): Promise<LinkStatus> {
	if (to === "expired")
		throw new AppError("link_status_invalid", "A share expires by itself, never by request");
	const from = effectiveStatus(link, now);
	if (!ALLOWED[from].includes(to)) {
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
	// A share past its expiry but still stored active expires first, then is revoked.
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
	const by = actor.kind === "tool" ? `the tool ${actor.name}` : "you";
	await createNotification(
		db,
		{
			account: ws.owner,
			workspace: link.workspace,
			kind: "link_revoked",
			title: `Share revoked: ${link.label || "untitled share"}`,
			body: `The share was revoked by ${by}; its address no longer opens.`,
			data: { link: link.id, by: actor.kind },
		},
		now,
	);
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

// ---- public probe ----

function sharerOf(link: PublicLinkRow, server: ServerClaim) {
	return {
		name: link.sharer_name,
		domain: server.domain,
		...(link.identity && link.identity_fingerprint
			? {
					identity: {
						id: link.identity,
						fingerprint: link.identity_fingerprint,
						name: link.identity_name ?? "",
					},
				}
			: {}),
	};
}

async function findBySlug(ctx: SharesContext, slug: string): Promise<PublicLinkRow> {
	const [link] = await ctx.q.linkBySlug(ctx.db, { slug });
	if (!link) throw new AppError("link_not_found");
	return link;
}

/** Reports the gates without data and without consuming a view. */
export async function probe(ctx: SharesContext, slug: string, now: number) {
	const link = await findBySlug(ctx, slug);
	const status = effectiveStatus(link, now);
	if (status !== link.status) await expireNow(ctx, link.id, now);
	return {
		slug: link.slug,
		label: link.label,
		status,
		requiresPassword: link.password_hash !== null,
		requireHandshake: link.require_handshake === 1,
		watermarked: isWatermarked(link),
		purpose: link.purpose,
		identity: link.identity ?? "",
		sharer: sharerOf(link, ctx.server),
		server: ctx.server,
	};
}

// ---- resolve ----

export interface ResolveInput {
	password?: string | undefined;
	identityId?: string | undefined;
	handshakeToken?: string | undefined;
	challengeNonce?: string | undefined;
	challengeSignature?: string | undefined;
}

function refuseStatus(status: LinkStatus): never {
	if (status === "paused") throw new AppError("link_paused", "The share is paused");
	if (status === "revoked") throw new AppError("link_revoked", "The share was revoked");
	throw new AppError("link_expired", "The share has expired");
}

/** The watermark line: the stamp text, who it was sent to (the proven identity, else the view), the date. */
export function watermarkLine(stamp: string, reader: ProvenIdentity | undefined, view: number, now: number) {
	const who = reader
		? `${reader.name ? `${reader.name} ` : ""}${reader.fingerprint.slice(0, 16)}`
		: `view ${view}`;
	return `${stamp} | ${who} | ${new Date(now).toISOString().slice(0, 10)}`;
}

function fileInfo(r: GrantedRecordRow) {
	return r.kind === "file"
		? {
				name: r.file_name ?? "file",
				type: r.file_type ?? "application/octet-stream",
				size: r.file_size ?? 0,
				sha256: r.file_sha256 ?? "",
			}
		: null;
}

/** Granted records in share order (named first, then through sections), each once. */
function orderGranted(rows: GrantedRecordRow[], sectionOrder: Map<string, number>): GrantedRecordRow[] {
	const sorted = [...rows].sort(
		(a, b) =>
			a.via - b.via ||
			(a.via === 0
				? a.pos - b.pos
				: (sectionOrder.get(a.section ?? "") ?? 0) - (sectionOrder.get(b.section ?? "") ?? 0)) ||
			a.created - b.created ||
			(a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
	);
	const seen = new Set<string>();
	return sorted.filter((r) => {
		if (seen.has(r.id)) return false;
		seen.add(r.id);
		return true;
	});
}

/** The records and sections a share grants now, in order. */
export async function readGrants(
	ctx: Pick<SharesContext, "db" | "q">,
	link: { id: string; workspace: string },
) {
	const params = { link: link.id, workspace: link.workspace };
	const [rows, sectionRows] = await Promise.all([
		ctx.q.grantedRecords(ctx.db, params),
		ctx.q.grantedSections(ctx.db, params),
	]);
	// The sections the link names (in its order), then the others by their vault ordering.
	const sections = [...sectionRows].sort(
		(a, b) =>
			(a.named_pos === null ? 1 : 0) - (b.named_pos === null ? 1 : 0) ||
			(a.named_pos ?? 0) - (b.named_pos ?? 0) ||
			a.ordering - b.ordering ||
			a.created - b.created,
	);
	const sectionOrder = new Map(sections.map((s, i) => [s.id, i]));
	const records = orderGranted(rows, sectionOrder);
	return { records, sections };
}

export async function resolve(ctx: SharesContext, slug: string, input: ResolveInput, now: number) {
	const link = await findBySlug(ctx, slug);
	const status = effectiveStatus(link, now);
	if (status !== "active") {
		if (status !== link.status) await expireNow(ctx, link.id, now);
		refuseStatus(status);
	}

	if (link.password_hash !== null) {
		if (typeof input.password !== "string" || input.password === "")
			throw new AppError("link_password_required");
		if (!(await verifyPassword(input.password, link.password_hash)))
			throw new AppError("link_password_invalid");
	}

	let reader: ProvenIdentity | undefined;
	if (link.require_handshake === 1) {
		reader = await verifyChallenge(
			ctx.db,
			{
				scope: "link",
				slug,
				nonce: input.challengeNonce,
				signature: input.challengeSignature,
				...(input.identityId ? { identityId: input.identityId } : {}),
			},
			now,
		);
	}

	// The one view: a concurrent reader who took the last permitted view leaves nothing to take.
	const [taken] = await ctx.q.consumeView(ctx.db, { id: link.id, now });
	if (!taken) {
		const [again] = await ctx.q.linkBySlug(ctx.db, { slug });
		const current = again ? effectiveStatus(again, now) : "revoked";
		refuseStatus(current === "active" ? "expired" : current);
	}
	const view = taken.view_count;
	// The view that reached the cap expired the share in the same statement.
	if (taken.status === "expired") {
		await runLinkStatus(ctx.hooks, ctx.db, { link: link.id, from: "active", to: "expired" }, now);
	}

	const { records, sections } = await readGrants(ctx, link);
	const watermark = isWatermarked(link) ? watermarkLine(link.stamp ?? "", reader, view, now) : undefined;

	const files = records.filter((r) => r.kind === "file");
	const downloadTokens = new Map<string, string>();
	for (const file of files) {
		const token = randomToken(32);
		await ctx.q.insertToken(ctx.db, {
			hash: sha256Hex(token),
			link: link.id,
			kind: "download",
			record: file.id,
			view,
			line: watermark ?? null,
			now,
			expires: now + DOWNLOAD_TOKEN_TTL_MS,
		});
		downloadTokens.set(file.id, token);
	}
	let archiveToken: string | undefined;
	if (files.length > 0) {
		archiveToken = randomToken(32);
		await ctx.q.insertToken(ctx.db, {
			hash: sha256Hex(archiveToken),
			link: link.id,
			kind: "archive",
			record: null,
			view,
			line: watermark ?? null,
			now,
			expires: now + ARCHIVE_TOKEN_TTL_MS,
		});
	}

	return {
		slug: link.slug,
		label: link.label,
		purpose: link.purpose,
		identity: link.identity ?? "",
		sections: sections.map((s) => ({
			id: s.id,
			key: s.key,
			name: s.name,
			records: records.filter((r) => r.section === s.id).map((r) => r.id),
		})),
		records: records.map((r) => {
			const token = downloadTokens.get(r.id);
			return {
				id: r.id,
				key: r.key,
				name: r.name,
				type: r.kind,
				value: r.kind === "file" ? null : r.alias !== null ? (r.target_value ?? "") : (r.value ?? ""),
				section: r.section,
				hidden: r.hidden === 1,
				file: fileInfo(r),
				version: r.version,
				updated: new Date(r.updated).toISOString(),
				...(token ? { downloadToken: token } : {}),
			};
		}),
		viewCount: view,
		...(watermark !== undefined ? { watermark } : {}),
		...(archiveToken ? { archiveToken } : {}),
	};
}

// ---- files and archives through a share ----

export interface ShareFile {
	id: string;
	fileKey: string;
	name: string;
	type: string;
	size: number;
}

function toShareFile(r: GrantedRecordRow): ShareFile | undefined {
	if (r.kind !== "file" || !r.file_key) return undefined;
	return {
		id: r.id,
		fileKey: r.file_key,
		name: r.file_name ?? "file",
		type: r.file_type ?? "application/octet-stream",
		size: r.file_size ?? 0,
	};
}

/**
 * Spends a token (first presentation, right or wrong), then checks it was minted for this share,
 * this kind (and record) and is within its time, and that the share may still be read: paused,
 * revoked or past its expiry refuses; a share expired by its view cap still honours the view the
 * token was minted by.
 */
async function spend(
	ctx: SharesContext,
	slug: string,
	token: string | undefined,
	want: { kind: "download"; record: string } | { kind: "archive" },
	now: number,
) {
	if (!token) throw new AppError("file_download_invalid", "The token (`dl`) is missing");
	const [spent] = await ctx.q.spendToken(ctx.db, { hash: sha256Hex(token) });
	const [link] = await ctx.q.linkBySlug(ctx.db, { slug });
	// The spec's archive answer for a share that no longer exists is `archive_empty`.
	if (!link) throw new AppError(want.kind === "archive" ? "archive_empty" : "link_not_found");
	const bound =
		spent !== undefined &&
		spent.link === link.id &&
		spent.kind === want.kind &&
		(want.kind === "archive" || spent.record === want.record) &&
		spent.expires > now;
	if (!bound) throw new AppError("file_download_invalid");
	const status = effectiveStatus(link, now);
	const byViewCap =
		status === "expired" && link.status === "expired" && (link.expires_at === null || link.expires_at > now);
	if (status !== "active" && !byViewCap) refuseStatus(status);
	return { link, stampLine: spent.stamp_line };
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
	const { records } = await readGrants({ db, q: store.publicQueries(db) }, link);
	if (!records.some((r) => r.id === recordId))
		throw new AppError("record_not_found", "The share does not grant this record");
	if (link.stamp === null) throw new AppError("watermark_text_invalid", "The share has no stamp text");
	return { line: link.stamp };
}

/** The file a `downloadToken` opens; the record must still be granted by the share now. */
export async function openDownload(
	ctx: SharesContext,
	slug: string,
	recordId: string,
	token: string | undefined,
	now: number,
) {
	const { link, stampLine } = await spend(ctx, slug, token, { kind: "download", record: recordId }, now);
	const { records } = await readGrants(ctx, link);
	const file = records.map(toShareFile).find((f) => f?.id === recordId);
	if (!file) throw new AppError("record_not_found", "The share no longer grants this file");
	return { link, file, stampLine };
}

/** Every file the share grants now, directly or through sections, for an `archiveToken`. */
export async function openArchive(ctx: SharesContext, slug: string, token: string | undefined, now: number) {
	const { link, stampLine } = await spend(ctx, slug, token, { kind: "archive" }, now);
	const { records } = await readGrants(ctx, link);
	const files = records.map(toShareFile).filter((f): f is ShareFile => f !== undefined);
	if (files.length === 0) throw new AppError("archive_empty");
	return { link, files, stampLine };
}

/** Archive entry names: the file's name, a repeat becomes `name (2).ext`, `name (3).ext`, … */
export class EntryNames {
	private readonly taken = new Set<string>();
	next(raw: string): string {
		const name = raw.replace(/[\\/]/g, "_") || "file";
		const dot = name.lastIndexOf(".");
		const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
		for (let n = 1; ; n++) {
			const candidate = n === 1 ? name : `${stem} (${n})${ext}`;
			if (!this.taken.has(candidate.toLowerCase())) {
				this.taken.add(candidate.toLowerCase());
				return candidate;
			}
		}
	}
}

/** The attachment name of a share's archive: its label, else "share". */
export function archiveName(label: string): string {
	const base = label
		.replace(/[\p{Cc}"\\/:*?<>|]/gu, "")
		.trim()
		.slice(0, 100);
	return `${base || "share"}.zip`;
}
