// Zip archives of a share's files, streamed with yazl: entries are added one at a time and read
// from the blob store only when yazl gets to them, so neither the archive nor a file is ever held
// in memory whole. Files are stored, not deflated: PDFs and images do not shrink.
//
// On a watermarked share every entry is a stamped copy, and a file that cannot be stamped is left
// out, never included unmarked. Stamped copies are made one at a time while the archive streams,
// and the next is made only once the client has taken most of the previous one.
import type { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply } from "fastify";
import type yazl from "yazl";
import type { AccountCaller } from "../../http/auth.ts";
import { requireScope } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { seesHidden } from "../../http/permissions.ts";
import { lazy } from "../../lib/lazy.ts";
import { hasScope } from "../../lib/scopes.ts";
import { contentDisposition } from "../../lib/sniff.ts";
import { isNotWatermarkable, StampBusyError, type StampedCopy } from "../../lib/stamp/index.ts";
import type { StoredFile } from "../vault/service.ts";
import type { SharesContext } from "./context.ts";
import { grantedFiles, readGrants } from "./granted.ts";
import { isWatermarked } from "./lifecycle.ts";
import * as store from "./store.ts";

/** The owner's copy: the caller's own share, claiming no view; only files the caller may read. */
export async function ownerArchive(ctx: SharesContext, caller: AccountCaller, linkId: string, now: number) {
	requireScope(caller, "link:read");
	const link = await store.findLink(ctx.db, caller.workspaceId, linkId);
	if (!link) throw new AppError("link_not_found");
	// A key never opens the vault: it may read none of the files.
	const readsFiles = caller.kind === "session" && hasScope(caller.scopes, "record:read");
	// Hidden files stay out for a caller who does not see hidden entries (members and viewers).
	const granted = readsFiles ? (await readGrants(ctx, link)).records : [];
	const files = grantedFiles(seesHidden(caller) ? granted : granted.filter((r) => r.hidden !== 1));
	if (files.length === 0) throw new AppError("archive_empty");
	const stampLine = isWatermarked(link)
		? `${link.stamp ?? ""} | owner copy | ${new Date(now).toISOString().slice(0, 10)}`
		: null;
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

const BUSY_RETRIES = 20;
const BUSY_WAIT_MS = 250;
/** How much of the archive may wait unread before the next stamped copy is made. */
const BACKLOG_BYTES = 1024 * 1024;

/**
 * A stamped copy of `file` for a share of `workspace`, or undefined when it cannot be stamped
 * (left out of archives). A full stamping pool is waited out (a few seconds) rather than failing
 * the download. The same copy asked again (same file, same line) comes from the stamper's cache.
 */
export async function stampedCopy(
	app: FastifyInstance,
	workspace: string,
	file: StoredFile,
	line: string,
): Promise<StampedCopy | undefined> {
	for (let attempt = 0; ; attempt++) {
		try {
			return await app.stamper.stampCopy({
				type: file.type,
				line,
				stream: await app.blobs.get(file.fileKey),
				tenant: workspace,
				source: file.fileKey,
			});
		} catch (err) {
			if (isNotWatermarkable(err)) return undefined;
			if (err instanceof StampBusyError && attempt < BUSY_RETRIES) {
				await new Promise((r) => setTimeout(r, BUSY_WAIT_MS));
				continue;
			}
			throw err;
		}
	}
}

/** yazl, loaded with the first archive. */
const zipLibrary = lazy(async () => (await import("yazl")).default);

/**
 * Streams `files` as a zip attachment named after the share's label; stamped with `stampLine` when it is set.
 * `served` runs once the archive is sure to have an entry, just before it is sent (the read log:
 * a watermarked share none of whose files can be stamped is 404 `archive_empty` and logs nothing).
 */
export async function streamArchive(
	app: FastifyInstance,
	reply: FastifyReply,
	link: { label: string; workspace: string },
	files: StoredFile[],
	stampLine: string | null,
	served: () => Promise<void> = async () => {},
) {
	const name = archiveName(link.label);
	const { ZipFile } = await zipLibrary();
	const zip: yazl.ZipFile = new ZipFile();
	const names = new EntryNames();
	const mtime = new Date(app.clock.now());
	const output = zip.outputStream as Readable;
	zip.on("error", (err: Error) => {
		app.log.warn({ err }, "archive stream failed");
		output.destroy(err);
	});
	// No byte ranges: an archive is built anew per request (entry times are now), and the public
	// one's token is spent by the request itself (docs/api.md "Range requests").
	reply
		.type("application/zip")
		.header("accept-ranges", "none")
		.header("cache-control", "private, no-store")
		.header("content-disposition", contentDisposition("attachment", name));

	if (stampLine === null) {
		for (const file of files) {
			zip.addReadStreamLazy(names.next(file.name), { size: file.size, compress: false, mtime }, (cb) => {
				app.blobs.get(file.fileKey).then(
					(stream) => cb(null, stream),
					(err: unknown) => cb(err, undefined as never),
				);
			});
		}
		// With every size known and nothing deflated, yazl knows the archive's length before a byte.
		// (@types/yazl omits the callback's argument: yazl passes the total, or -1 when unknown.)
		const end = zip.end.bind(zip) as (options: object, done: (total: number) => void) => void;
		const total = await new Promise<number>((resolve) => end({}, resolve));
		if (total >= 0) reply.header("content-length", String(total));
		await served();
		return reply.send(output);
	}

	// Watermarked: the first stampable file decides whether there is an archive at all.
	let next = 0;
	let first: StampedCopy | undefined;
	for (; next < files.length && !first; next++)
		first = await stampedCopy(app, link.workspace, files[next] as StoredFile, stampLine);
	if (!first) throw new AppError("archive_empty", "No file of this share could be stamped");
	const add = (copy: StampedCopy, entry: string) => {
		const options = { compress: false, mtime };
		if (Buffer.isBuffer(copy.body)) zip.addBuffer(copy.body, entry, options);
		else zip.addReadStream(copy.body, entry, { ...options, size: copy.size });
	};
	add(first, names.next((files[next - 1] as StoredFile).name));
	await served();
	const rest = files.slice(next);
	void (async () => {
		for (const file of rest) {
			while (output.readableLength > BACKLOG_BYTES && !output.destroyed) {
				await new Promise((r) => setTimeout(r, 20));
			}
			if (output.destroyed) return;
			const copy = await stampedCopy(app, link.workspace, file, stampLine);
			if (copy) add(copy, names.next(file.name));
		}
		zip.end();
	})().catch((err: unknown) => {
		app.log.warn({ err }, "stamped archive failed");
		output.destroy(err as Error);
	});
	return reply.send(output);
}
