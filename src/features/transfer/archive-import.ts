// Reading an export back: `vault.json` checked against the version-1 form (refusals name a JSON
// pointer), every file entry's bytes found at the path the document names, and (for an import, not
// a preview) streamed into the blob store under a fresh key, each held to the size the document
// declares and checked against its SHA-256. An entry the document does not name is refused.
import type { Readable } from "node:stream";
import { AppError } from "../../http/errors.ts";
import { type BlobStore, BlobTooLargeError } from "../../lib/blob-store.ts";
import { HeadCapture, sanitizeFilename, sniffContentType } from "../../lib/sniff.ts";
import type { Refusal, VaultContents } from "../vault/service.ts";
import { checkDocument, contentsOf, DOCUMENT_NAME, type ExportDocument } from "./document.ts";
import { MAX_DOCUMENT_BYTES } from "./limits.ts";
import { readZip } from "./zip-reader.ts";

export interface ReadArchive {
	contents: VaultContents;
	refusals: Refusal[];
	/** Blob keys written for the files (an import); the caller deletes them if nothing is kept. */
	stored: string[];
}

async function readText(stream: Readable, max: number, what: string): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of stream as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > max) {
			stream.destroy();
			throw new AppError("import_too_large", `${what} is larger than ${max} bytes`);
		}
		chunks.push(chunk);
	}
	return Buffer.concat(chunks).toString("utf8");
}

export async function readArchive(
	blobs: BlobStore,
	upload: { key: string; size: number },
	maxFileSize: number,
	store: boolean,
): Promise<ReadArchive> {
	// Each entry is a file (held to MAX_FILE_SIZE, -1 none) or the document (held to its own bound).
	const entryCap = maxFileSize < 0 ? -1 : Math.max(maxFileSize, MAX_DOCUMENT_BYTES);
	const zip = await readZip(blobs, upload.key, upload.size, entryCap);
	const stored: string[] = [];
	try {
		const docEntry = zip.entries.get(DOCUMENT_NAME);
		if (!docEntry)
			throw new AppError("import_invalid", `The archive has no ${DOCUMENT_NAME}: it is not a vault export`);
		if (docEntry.uncompressedSize > MAX_DOCUMENT_BYTES)
			throw new AppError("import_too_large", `${DOCUMENT_NAME} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
		const text = await readText(await zip.open(docEntry), MAX_DOCUMENT_BYTES, DOCUMENT_NAME);
		let doc: unknown;
		try {
			doc = JSON.parse(text.replace(/^\uFEFF/, ""));
		} catch (err) {
			return refused([{ at: "/", message: `${DOCUMENT_NAME} is not JSON: ${(err as Error).message}` }]);
		}
		const wrong = checkDocument(doc);
		if (wrong.length > 0) return refused(wrong);
		const document = doc as ExportDocument;
		const contents = contentsOf(document);
		const refusals: Refusal[] = [];
		const named = new Set<string>([DOCUMENT_NAME]);
		document.entries.forEach((e, i) => {
			if (!e.file) return;
			const at = `/entries/${i}/file`;
			const entry = zip.entries.get(e.file.path);
			if (named.has(e.file.path))
				refusals.push({ at: `${at}/path`, message: `${e.file.path} is named twice` });
			named.add(e.file.path);
			if (!entry) refusals.push({ at: `${at}/path`, message: `the archive has no ${e.file.path}` });
			else if (entry.uncompressedSize !== e.file.size)
				refusals.push({
					at: `${at}/size`,
					message: `${e.file.path} holds ${entry.uncompressedSize} bytes, not ${e.file.size}`,
				});
			else if (maxFileSize >= 0 && e.file.size > maxFileSize)
				refusals.push({
					at: `${at}/size`,
					message: `${e.file.size} bytes is over this server's ${maxFileSize}-byte file cap`,
				});
		});
		for (const name of zip.entries.keys())
			if (!named.has(name))
				refusals.push({
					at: name,
					message: `the archive holds ${name}, which ${DOCUMENT_NAME} does not name`,
				});
		if (refusals.length > 0 || !store) return { contents, refusals, stored };

		// The bytes, one file at a time, each checked against the document.
		for (const [i, e] of document.entries.entries()) {
			if (!e.file) continue;
			const entry = zip.entries.get(e.file.path);
			const content = contents.entries[i];
			if (!entry || !content?.file) continue;
			const head = new HeadCapture();
			const source = await zip.open(entry);
			source.on("error", (err) => head.destroy(err));
			let blob: Awaited<ReturnType<BlobStore["put"]>>;
			try {
				blob = await blobs.put(source.pipe(head), { maxBytes: e.file.size });
			} catch (err) {
				if (err instanceof BlobTooLargeError)
					return refused(
						[
							{
								at: `/entries/${i}/file/size`,
								message: `${e.file.path} holds more than ${e.file.size} bytes`,
							},
						],
						stored,
					);
				return refused(
					[
						{
							at: `/entries/${i}/file/path`,
							message: `${e.file.path} cannot be read: ${(err as Error).message}`,
						},
					],
					stored,
				);
			}
			stored.push(blob.key);
			if (blob.sha256 !== e.file.sha256 || blob.size !== e.file.size)
				return refused(
					[{ at: `/entries/${i}/file/sha256`, message: `${e.file.path} does not match its SHA-256` }],
					stored,
				);
			content.file.upload = {
				key: blob.key,
				size: blob.size,
				sha256: blob.sha256,
				type: sniffContentType(head.head()),
				name: sanitizeFilename(e.file.name),
			};
		}
		return { contents, refusals: [], stored };
	} catch (err) {
		await Promise.all(stored.map((k) => blobs.delete(k).catch(() => undefined)));
		throw err;
	} finally {
		zip.close();
	}
}

function refused(refusals: Refusal[], stored: string[] = []): ReadArchive {
	return { contents: { sections: [], entries: [], templates: [] }, refusals, stored };
}
