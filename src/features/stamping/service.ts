// The rules of `POST /api/stamp-preview`: which line is stamped (the caller's text, or a share's
// stamp) on which file (a file record of the caller's active workspace), and who may ask. The
// original in the vault is only read. Nothing here knows HTTP.
import type { Readable } from "node:stream";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { type AccountCaller, requireScope } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { BlobNotFoundError, type BlobStore } from "../../lib/blob-store.ts";
import {
	isNotWatermarkable,
	isStampable,
	StampBusyError,
	type StampedCopy,
	type Stamper,
} from "../../lib/stamp/index.ts";
import { findWorkspaceFile } from "../vault/service.ts";

/** Stamp text: one line of 1 to 120 characters once trimmed (spec "Limits"). */
export const STAMP_TEXT_MAX = 120;
/** Appended to every preview line, so a preview can never pass for a share's real copy. */
export const PREVIEW_MARK = "#preview";
/**
 * A preview's time budget: a file that takes longer is refused (415) and its worker stopped. Shares'
 * downloads get the pool's 30 s; a preview is a look at a stamp, and the short budget bounds what a
 * crafted file can hold a worker for.
 */
export const PREVIEW_BUDGET_MS = 5000;

/**
 * The stamp line of a share for one of its records, provided by the shares feature: throws
 * `link_not_found` for a share that is not the workspace's, `record_not_found` when the share
 * does not grant the record.
 */
export type ShareStampFor = (
	db: Kysely<Database>,
	workspaceId: string,
	linkId: string,
	recordId: string,
	now: number,
) => Promise<{ line: string }>;

export interface PreviewDeps {
	db: Kysely<Database>;
	blobs: BlobStore;
	stamper: Stamper;
	shareStampFor: ShareStampFor;
	now: number;
}

export interface PreviewInput {
	record: string;
	text?: string | undefined;
	link?: string | undefined;
}

/** The caller's text as a stamp: trimmed, 1 to 120 code points, no line break or control character. */
export function stampText(raw: string | undefined): string {
	const text = (raw ?? "").trim();
	const length = [...text].length;
	if (length === 0 || length > STAMP_TEXT_MAX) {
		throw new AppError(
			"watermark_text_invalid",
			`text must be 1 to ${STAMP_TEXT_MAX} characters once trimmed`,
		);
	}
	// Cc covers CR, LF, NEL and tab; Cs a lone surrogate.
	if (/[\p{Cc}\p{Cs}\u2028\u2029]/u.test(text)) {
		throw new AppError("watermark_text_invalid", "text must be one line without control characters");
	}
	return text;
}

export function previewLine(base: string): string {
	return `${base} ${PREVIEW_MARK}`;
}

/** The stamped copy of a vault file, with its type and attachment name. */
export async function stampPreview(
	deps: PreviewDeps,
	caller: AccountCaller,
	input: PreviewInput,
): Promise<{ copy: StampedCopy; type: string; filename: string }> {
	// A key never opens the vault (as for `GET /api/files/{id}`): refused before anything is read.
	if (caller.kind === "apiKey") {
		throw new AppError("api_key_scope_missing", "API keys never reach vault files", {
			extra: { scope: "record:read" },
		});
	}
	requireScope(caller, "record:read");
	// With a share, the share's stamp is used and `text` is ignored, valid or not.
	const text = input.link === undefined ? stampText(input.text) : undefined;

	const file = await findWorkspaceFile(deps.db, caller, input.record);
	if (!file) throw new AppError("record_not_found", "No file record with this id in this workspace");
	const base =
		text ??
		(await deps.shareStampFor(deps.db, caller.workspaceId, input.link as string, file.id, deps.now)).line;

	const { type } = file;
	if (!isStampable(type))
		throw new AppError("file_not_watermarkable", `Not stamped: ${type} files cannot be stamped`);
	let stream: Readable;
	try {
		stream = await deps.blobs.get(file.fileKey);
	} catch (err) {
		if (err instanceof BlobNotFoundError) throw new AppError("record_not_found", "The file's bytes are gone");
		throw err;
	}
	try {
		const copy = await deps.stamper.stampCopy({
			type,
			line: previewLine(base),
			stream,
			tenant: caller.workspaceId,
			budgetMs: PREVIEW_BUDGET_MS,
			source: file.fileKey,
		});
		return { copy, type, filename: previewName(file.name, type) };
	} catch (err) {
		if (isNotWatermarkable(err)) throw new AppError("file_not_watermarkable", `Not stamped: ${err.message}`);
		if (err instanceof StampBusyError) {
			throw new AppError("service_unavailable", "Every stamping worker is busy; retry shortly", {
				headers: { "retry-after": "2" },
			});
		}
		throw err;
	}
}

const EXTENSIONS: Record<string, readonly string[]> = {
	"application/pdf": [".pdf"],
	"image/jpeg": [".jpg", ".jpeg", ".jpe", ".jfif"],
	"image/png": [".png"],
	"image/webp": [".webp"],
};
const KNOWN = new Set(Object.values(EXTENSIONS).flat());

/**
 * `<name>-preview<ext>`: the name without its extension, then the extension it had when that fits
 * the file's type, else the type's own (`scan.png` holding a JPEG becomes `scan-preview.jpg`).
 * A name whose ending is no known extension keeps it: `notes.v2` becomes `notes.v2-preview.pdf`.
 */
export function previewName(name: string, type: string): string {
	const dot = name.lastIndexOf(".");
	const ext = dot > 0 ? name.slice(dot) : "";
	const stem = KNOWN.has(ext.toLowerCase()) ? name.slice(0, dot) : name;
	const fits = EXTENSIONS[type]?.includes(ext.toLowerCase());
	return `${stem}-preview${fits ? ext : (EXTENSIONS[type]?.[0] ?? "")}`;
}
