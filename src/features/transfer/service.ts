// Import into the active workspace's vault, from an export archive, vCard contacts or CSV entries.
// The upload already lies in the blob store (streamed there under a size cap); it is read from
// there and deleted after. A preview reports what would be made and every refusal, and changes
// nothing. An import with any refusal is refused whole (400 `import_invalid`, the first refusal in
// `detail`, all of them in `refusals`); one without is written in one transaction through the
// vault's own rules (vault/contents.ts), so it lands whole or not at all. File bytes go into the
// blob store first under fresh keys and are deleted if the rows do not commit (the sweeper catches
// what a crash leaves).
import type { Kysely } from "kysely";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { requireScope } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import type { BlobStore } from "../../lib/blob-store.ts";
import type { StoredUpload } from "../collections/registry.ts";
import {
	checkContents,
	insertContents,
	type Refusal,
	sectionKeys,
	type VaultContents,
} from "../vault/service.ts";
import { readArchive } from "./archive-import.ts";
import { readCsv } from "./csv-import.ts";
import { MAX_ARCHIVE_BYTES, MAX_REFUSALS, MAX_TEXT_BYTES } from "./limits.ts";
import { readVcards } from "./vcard-import.ts";

export const IMPORT_FORMATS = ["archive", "vcard", "csv"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** How many entries a report lists one by one; the counts cover them all. */
const LISTED = 1000;

export interface ImportDeps {
	db: Kysely<Database>;
	blobs: BlobStore;
	caller: AccountCaller;
	now: number;
	maxFileSize: number;
}

/** A key never opens the vault (spec rule 6): refused as the records collection refuses it. */
function refuseApiKey(caller: AccountCaller, scope: string): void {
	if (caller.kind === "apiKey")
		throw new AppError("api_key_scope_missing", `API keys never reach the vault (needs ${scope})`, {
			extra: { scope },
		});
}

/** The scopes an export reads with: the whole vault, and the templates. */
export function requireExportScopes(caller: AccountCaller): void {
	refuseApiKey(caller, "record:read");
	for (const scope of ["record:read", "section:read", "template:read"]) requireScope(caller, scope);
}

/** The scopes an import writes with; templates only when it brings some (checked after reading). */
export function requireImportScopes(caller: AccountCaller): void {
	refuseApiKey(caller, "record:write");
	for (const scope of ["record:write", "section:write"]) requireScope(caller, scope);
}

/** The cap on an upload of `format`: an archive holds files, each under MAX_FILE_SIZE. */
export function uploadCap(format: ImportFormat): number {
	return format === "archive" ? MAX_ARCHIVE_BYTES : MAX_TEXT_BYTES;
}

export async function runImport(
	deps: ImportDeps,
	format: ImportFormat,
	upload: StoredUpload,
	preview: boolean,
) {
	const { db, blobs, caller } = deps;
	const existing = await sectionKeys(db, caller.workspaceId);
	let stored: string[] = [];
	let committed = false;
	try {
		const read = await readUpload(deps, format, upload, existing, !preview);
		stored = read.stored;
		const refusals = [
			...read.refusals,
			...(read.refusals.length > 0 ? [] : checkContents(read.contents, new Set(existing.keys()))),
		];
		if (read.contents.templates.length > 0) requireScope(caller, "template:write");
		// Only owners and admins mark entries hidden, by import as by hand.
		if (read.contents.entries.some((e) => e.hidden)) requireScope(caller, "hidden:write");
		const report = reportOf(format, preview, read.contents, existing, refusals, read.skipped);
		if (preview) return report;
		if (refusals.length > 0) {
			const first = refusals[0] as Refusal;
			throw new AppError("import_invalid", `${first.at}: ${first.message}`, {
				extra: { refusals: report.refusals, refusalCount: refusals.length },
			});
		}
		try {
			await db
				.transaction()
				.execute((trx) => insertContents(trx, caller.workspaceId, read.contents, deps.now));
		} catch (err) {
			if (isUniqueViolation(err))
				throw new AppError(
					"conflict",
					"A section with one of these keys was just made; nothing was imported, retry",
				);
			throw err;
		}
		committed = true;
		return report;
	} finally {
		await blobs.delete(upload.key).catch(() => undefined);
		if (!committed) await Promise.all(stored.map((k) => blobs.delete(k).catch(() => undefined)));
	}
}

async function readUpload(
	deps: ImportDeps,
	format: ImportFormat,
	upload: StoredUpload,
	existing: Map<string, { id: string; name: string }>,
	store: boolean,
): Promise<{ contents: VaultContents; refusals: Refusal[]; stored: string[]; skipped: number }> {
	switch (format) {
		case "archive": {
			const read = await readArchive(deps.blobs, upload, deps.maxFileSize, store);
			return { ...read, skipped: 0 };
		}
		case "vcard": {
			const text = await readSmallText(deps.blobs, upload.key);
			return { ...readVcards(text, new Set(existing.keys())), stored: [] };
		}
		case "csv": {
			const head = await readSmallText(deps.blobs, upload.key, 4096);
			const firstLine = head.split(/\r\n|\n|\r/)[0] ?? "";
			const read = await readCsv(await deps.blobs.get(upload.key), firstLine, existing);
			return { ...read, stored: [], skipped: 0 };
		}
	}
}

/** A text upload (at most MAX_TEXT_BYTES, held by the upload cap) or its first `max` bytes. */
async function readSmallText(blobs: BlobStore, key: string, max = MAX_TEXT_BYTES): Promise<string> {
	const size = (await blobs.size(key)) ?? 0;
	if (size === 0) return "";
	const stream = await blobs.get(key, { start: 0, end: Math.min(size, max) - 1 });
	const chunks: Buffer[] = [];
	for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
	return Buffer.concat(chunks).toString("utf8");
}

function reportOf(
	format: ImportFormat,
	preview: boolean,
	contents: VaultContents,
	existing: Map<string, { id: string; name: string }>,
	refusals: Refusal[],
	skipped: number,
) {
	const files = contents.entries.filter((e) => e.file !== null);
	const newSections = contents.sections.filter((s) => !existing.has(s.key));
	return {
		format,
		preview,
		counts: {
			sections: newSections.length,
			entries: contents.entries.length,
			files: files.length,
			bytes: files.reduce((n, e) => n + (e.file?.size ?? 0), 0),
			templates: contents.templates.length,
			skipped,
		},
		sections: contents.sections.map((s) => ({
			key: s.key,
			name: existing.get(s.key)?.name ?? s.name,
			existing: existing.has(s.key),
		})),
		entries: contents.entries.slice(0, LISTED).map((e) => ({
			at: e.at,
			key: e.key,
			name: e.name,
			type: e.file ? ("file" as const) : ("value" as const),
			section: e.section,
			hidden: e.hidden,
			alias: e.alias !== null,
			...(e.file ? { size: e.file.size } : {}),
		})),
		templates: contents.templates.map((t) => ({ at: t.at, name: t.name, items: t.items.length })),
		refusals: refusals.slice(0, MAX_REFUSALS),
		refusalCount: refusals.length,
	};
}
