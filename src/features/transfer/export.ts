// The vault export: `vault.json` (document.ts) and every file entry's bytes beside it, as one zip
// streamed with yazl the way share archives are (shares/archive.ts): a file is read from the blob
// store only when yazl reaches it, and nothing is deflated, so the archive's length is known before
// the first byte and neither the archive nor a file is ever held in memory.
import type { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Kysely } from "kysely";
import type yazl from "yazl";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { seesHidden } from "../../http/permissions.ts";
import { lazy } from "../../lib/lazy.ts";
import { contentDisposition } from "../../lib/sniff.ts";
import { readContents } from "../vault/service.ts";
import { DOCUMENT_NAME, type ExportDocument, FORMAT, filePath, VERSION } from "./document.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** The document of `caller`'s active workspace, and where each file's bytes go in the zip. */
export async function exportDocument(
	db: Kysely<Database>,
	caller: AccountCaller,
	server: string,
	now: number,
): Promise<{ doc: ExportDocument; files: { path: string; key: string; size: number }[] }> {
	const contents = await readContents(db, caller.workspaceId);
	// Hidden entries, and aliases of them, do not exist for a member or viewer (docs/api.md "Roles").
	if (!seesHidden(caller)) {
		const hidden = new Set(contents.records.filter((r) => r.hidden === 1).map((r) => r.id));
		contents.records = contents.records.filter(
			(r) => !hidden.has(r.id) && (r.alias === null || !hidden.has(r.alias)),
		);
	}
	const sectionKey = new Map(contents.sections.map((s) => [s.id, s.key]));
	const files: { path: string; key: string; size: number }[] = [];
	const doc: ExportDocument = {
		format: FORMAT,
		version: VERSION,
		exported: iso(now),
		server,
		workspace: caller.workspaceId,
		sections: contents.sections.map((s) => ({ key: s.key, name: s.name, ordering: s.ordering })),
		entries: contents.records.map((r) => {
			let file: ExportDocument["entries"][number]["file"] = null;
			if (r.kind === "file" && r.file_key) {
				const path = filePath(r.id, r.file_name ?? "file");
				file = {
					path,
					name: r.file_name ?? "file",
					type: r.file_type ?? "application/octet-stream",
					size: r.file_size ?? 0,
					sha256: r.file_sha256 ?? "",
				};
				files.push({ path, key: r.file_key, size: r.file_size ?? 0 });
			}
			return {
				id: r.id,
				key: r.key,
				name: r.name,
				type: r.kind,
				value: r.kind === "file" ? null : (r.value ?? ""),
				section: r.section === null ? null : (sectionKey.get(r.section) ?? null),
				hidden: r.hidden === 1,
				alias: r.alias,
				file,
				created: iso(r.created),
				updated: iso(r.updated),
			};
		}),
		templates: contents.templates.map((t) => ({ name: t.name, items: t.items })),
	};
	return { doc, files };
}

const zipLibrary = lazy(async () => (await import("yazl")).default);

/** Streams the export of `caller`'s active workspace as a zip attachment. */
export async function streamExport(app: FastifyInstance, reply: FastifyReply, caller: AccountCaller) {
	const now = app.clock.now();
	const { doc, files } = await exportDocument(app.store.db, caller, app.config.domain, now);
	const { ZipFile } = await zipLibrary();
	const zip: yazl.ZipFile = new ZipFile();
	const mtime = new Date(now);
	const output = zip.outputStream as Readable;
	zip.on("error", (err: Error) => {
		app.log.warn({ err }, "vault export stream failed");
		output.destroy(err);
	});
	zip.addBuffer(Buffer.from(`${JSON.stringify(doc, null, 2)}\n`), DOCUMENT_NAME, { compress: false, mtime });
	for (const file of files) {
		zip.addReadStreamLazy(file.path, { size: file.size, compress: false, mtime }, (cb) => {
			app.blobs.get(file.key).then(
				(stream) => cb(null, stream),
				(err: unknown) => cb(err, undefined as never),
			);
		});
	}
	// (@types/yazl omits the callback's argument: yazl passes the total, or -1 when unknown.)
	const end = zip.end.bind(zip) as (options: object, done: (total: number) => void) => void;
	const total = await new Promise<number>((resolve) => end({}, resolve));
	reply
		.type("application/zip")
		.header("accept-ranges", "none")
		.header("cache-control", "private, no-store")
		.header("content-disposition", contentDisposition("attachment", `vault-${iso(now).slice(0, 10)}.zip`));
	if (total >= 0) reply.header("content-length", String(total));
	return reply.send(output);
}
