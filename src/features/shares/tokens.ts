// The one-time tokens of a share (spec "Share (link)", "One-time artefacts"): a resolve mints
// a `downloadToken` per granted file and one `archiveToken`, and the share page's read one token
// per data format it offers (docs/api.md "Share page and formats"), each carrying the view that
// minted it; each is spent on first presentation, right or wrong (one conditional DELETE … RETURNING).
import type { Kysely } from "kysely";
import type { Database, FormatTokenKind } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import type { StoredFile } from "../vault/service.ts";
import type { SharesContext } from "./context.ts";
import { passGates } from "./gates.ts";
import { grantedFiles, readGrants } from "./granted.ts";
import { type PublicLinkRow, publicQueries } from "./public-queries.ts";

/** How long a `downloadToken` is good for (spec: single use; the lifetime is ours). */
export const DOWNLOAD_TOKEN_TTL_MS = 10 * 60_000;
/** `archiveToken`: usable within two minutes of the resolve (spec "Limits"). */
export const ARCHIVE_TOKEN_TTL_MS = 2 * 60_000;

/** A data format from the opened share page: single use, within the download tokens' ten minutes (ours). */
export const FORMAT_TOKEN_TTL_MS = DOWNLOAD_TOKEN_TTL_MS;

const TOKEN_BYTES = 32;

const TTL: Record<"download" | "archive" | FormatTokenKind, number> = {
	download: DOWNLOAD_TOKEN_TTL_MS,
	archive: ARCHIVE_TOKEN_TTL_MS,
	csv: FORMAT_TOKEN_TTL_MS,
	vcard: FORMAT_TOKEN_TTL_MS,
	ical: FORMAT_TOKEN_TTL_MS,
};

interface Minting {
	link: string;
	view: number;
	/** The watermark line files are stamped with; null on an unwatermarked share. */
	line: string | null;
	/** The fingerprint the resolve proved, for the read log; null without a handshake. */
	reader: string | null;
	now: number;
}

async function mint(
	ctx: Pick<SharesContext, "db" | "q">,
	m: Minting,
	kind: keyof typeof TTL,
	record: string | null,
): Promise<string> {
	const token = randomToken(TOKEN_BYTES);
	await ctx.q.insertToken(ctx.db, {
		hash: sha256Hex(token),
		link: m.link,
		kind,
		record,
		view: m.view,
		line: m.line,
		reader: m.reader,
		now: m.now,
		expires: m.now + TTL[kind],
	});
	return token;
}

/** The tokens of one resolve: one per file record, and an archive token when there is a file. */
export async function mintFileTokens(ctx: SharesContext, fileIds: readonly string[], m: Minting) {
	const downloads = new Map<string, string>();
	for (const id of fileIds) downloads.set(id, await mint(ctx, m, "download", id));
	const archive = fileIds.length > 0 ? await mint(ctx, m, "archive", null) : undefined;
	return { downloads, archive };
}

/**
 * The share page's tokens of one read (the view `m.view`): one per data format it offers. Each
 * serves its format once, within FORMAT_TOKEN_TTL_MS, without another view.
 */
export async function mintFormatTokens(
	ctx: SharesContext,
	kinds: readonly FormatTokenKind[],
	m: Minting,
): Promise<Map<FormatTokenKind, string>> {
	const tokens = new Map<FormatTokenKind, string>();
	for (const kind of kinds) tokens.set(kind, await mint(ctx, m, kind, null));
	return tokens;
}

type Wanted = { kind: "download"; record: string } | { kind: "archive" } | { kind: FormatTokenKind };

/** The reader (gates.ts) a token of each kind reads as, and the read-log kind it is written with. */
function readerOf(kind: Wanted["kind"]) {
	if (kind === "download") return { reader: "fileToken", read: "file" } as const;
	if (kind === "archive") return { reader: "archive", read: "archive" } as const;
	return { reader: "formatToken", read: kind } as const;
}

/**
 * Spends a token (first presentation, right or wrong), then checks it was minted for this share,
 * this kind (and record) and is within its time, then runs the token readers' gates (gates.ts):
 * paused, revoked or past its expiry refuses; a share expired by its view cap still honours the
 * view the token was minted by.
 */
async function spend(
	ctx: SharesContext,
	slug: string,
	token: string | undefined,
	want: Wanted,
	now: number,
): Promise<{ link: PublicLinkRow; stampLine: string | null; read: TokenRead }> {
	if (!token) throw new AppError("file_download_invalid", "The token (`dl`) is missing");
	const [spent] = await ctx.q.spendToken(ctx.db, { hash: sha256Hex(token) });
	const [link] = await ctx.q.linkBySlug(ctx.db, { slug });
	// The spec's archive answer for a share that no longer exists is `archive_empty`.
	if (!link) throw new AppError(want.kind === "archive" ? "archive_empty" : "link_not_found");
	const bound =
		spent !== undefined &&
		spent.link === link.id &&
		spent.kind === want.kind &&
		(want.kind !== "download" || spent.record === want.record) &&
		spent.expires > now;
	if (!bound) throw new AppError("file_download_invalid");
	const { reader, read: kind } = readerOf(want.kind);
	await passGates(ctx, reader, link, {}, now);
	const read: TokenRead = {
		link: link.id,
		workspace: link.workspace,
		kind,
		view: spent.view,
		record: want.kind === "download" ? want.record : null,
		reader: spent.reader,
	};
	return { link, stampLine: spent.stamp_line, read };
}

/**
 * The share a data-format token opens (`/s/{slug}?format=…&dl=`): spent, bound to this share and
 * format, within its time, through the formatToken reader's gates. The caller reads the values
 * as they stand now (a living grant, as a file token serves the file as it is now) and logs the
 * read under the token's view once it answers.
 */
export async function openFormat(
	ctx: SharesContext,
	slug: string,
	kind: FormatTokenKind,
	token: string | undefined,
	now: number,
): Promise<{ link: PublicLinkRow; read: TokenRead }> {
	const { link, read } = await spend(ctx, slug, token, { kind }, now);
	return { link, read };
}

/** The file a `downloadToken` opens; the record must still be granted by the share now. */
export async function openDownload(
	ctx: SharesContext,
	slug: string,
	recordId: string,
	token: string | undefined,
	now: number,
): Promise<{ link: PublicLinkRow; file: StoredFile; stampLine: string | null; read: TokenRead }> {
	const { link, stampLine, read } = await spend(
		ctx,
		slug,
		token,
		{ kind: "download", record: recordId },
		now,
	);
	const { records } = await readGrants(ctx, link);
	const file = grantedFiles(records).find((f) => f.id === recordId);
	if (!file) throw new AppError("record_not_found", "The share no longer grants this file");
	return { link, file, stampLine, read };
}

/** Every file the share grants now, directly or through sections, for an `archiveToken`. */
export async function openArchive(ctx: SharesContext, slug: string, token: string | undefined, now: number) {
	const { link, stampLine, read } = await spend(ctx, slug, token, { kind: "archive" }, now);
	const { records } = await readGrants(ctx, link);
	const files = grantedFiles(records);
	if (files.length === 0) throw new AppError("archive_empty");
	return { link, files, stampLine, read };
}

/** A file, archive or format read by token, logged once its bytes are about to be sent (docs/api.md "Read log"). */
export interface TokenRead {
	link: string;
	workspace: string;
	kind: "file" | "archive" | FormatTokenKind;
	view: number;
	record: string | null;
	reader: string | null;
}

export async function logTokenRead(ctx: SharesContext, read: TokenRead, now: number): Promise<void> {
	const { link: id, workspace, kind, view, record, reader } = read;
	await ctx.q.insertRead(ctx.db, { readId: newId(), id, workspace, now, kind, view, record, reader });
}

/**
 * A `downloadToken` for one file a share grants, minted for a reader that takes no view: a grant's
 * holder (the requester of a remote answer, `POST /api/grants/files`) or the requester of an answer
 * kept here. Its view is 0 (none taken); the file route then runs the fileToken reader's gates and
 * stamps `line` on a watermarked share, as for any download. Undefined when the share does not
 * grant `recordId` as a file now.
 */
export async function mintViewlessDownload(
	db: Kysely<Database>,
	link: { id: string; workspace: string },
	recordId: string,
	line: string | null,
	now: number,
): Promise<{ token: string; file: StoredFile } | undefined> {
	const ctx = { db, q: publicQueries(db) };
	const { records } = await readGrants(ctx, link);
	const file = grantedFiles(records).find((f) => f.id === recordId);
	if (!file) return undefined;
	const token = await mint(ctx, { link: link.id, view: 0, line, reader: null, now }, "download", recordId);
	return { token, file };
}
