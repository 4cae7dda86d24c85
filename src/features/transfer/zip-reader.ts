// Reads an uploaded zip where it lies in the blob store, with yauzl over byte-range reads: the
// central directory first (names and sizes, checked before a byte of content is read), then each
// entry streamed on demand. A zip is never held in memory. Everything the archive claims is bounded:
// the number of entries, each entry's and the total uncompressed size, the expansion ratio of a
// deflated entry, and names (yauzl refuses absolute paths, `..` and backslashes; we refuse the rest).
import { PassThrough, type Readable } from "node:stream";
import yauzl from "yauzl";
import { AppError } from "../../http/errors.ts";
import type { BlobStore } from "../../lib/blob-store.ts";
import { MAX_ARCHIVE_BYTES, MAX_RATIO, MAX_ZIP_ENTRIES } from "./limits.ts";

/** Central-directory reads are many and small: one cached block serves most of them. */
const BLOCK = 256 * 1024;

class BlobReader extends yauzl.RandomAccessReader {
	private cache: { start: number; bytes: Buffer } | undefined;
	constructor(
		private readonly blobs: BlobStore,
		private readonly key: string,
		private readonly total: number,
	) {
		super();
	}

	override _readStreamForRange(start: number, end: number): Readable {
		const out = new PassThrough();
		this.blobs.get(this.key, { start, end: end - 1 }).then(
			(stream) => {
				stream.on("error", (err) => out.destroy(err));
				stream.pipe(out);
			},
			(err: unknown) => out.destroy(err as Error),
		);
		return out;
	}

	override read(
		buffer: Buffer,
		offset: number,
		length: number,
		position: number,
		callback: (err: Error | null) => void,
	): void {
		const hit = (c: { start: number; bytes: Buffer }) =>
			position >= c.start && position + length <= c.start + c.bytes.length;
		if (this.cache && hit(this.cache)) {
			this.cache.bytes.copy(
				buffer,
				offset,
				position - this.cache.start,
				position - this.cache.start + length,
			);
			setImmediate(() => callback(null));
			return;
		}
		const end = Math.min(this.total, position + Math.max(length, BLOCK));
		const chunks: Buffer[] = [];
		const stream = this._readStreamForRange(position, end);
		stream.on("data", (c: Buffer) => chunks.push(c));
		stream.on("error", (err) => callback(err));
		stream.on("end", () => {
			const bytes = Buffer.concat(chunks);
			if (bytes.length < length) return callback(new Error("the archive is shorter than its directory says"));
			this.cache = { start: position, bytes };
			bytes.copy(buffer, offset, 0, length);
			callback(null);
		});
	}
}

export interface ZipEntries {
	/** Entries by name, folders left out. */
	entries: Map<string, yauzl.Entry>;
	/** Opens an entry's bytes, inflated and held to its declared size. */
	open(entry: yauzl.Entry): Promise<Readable>;
	close(): void;
}

const refuse = (message: string, status = 400) =>
	status === 413 ? new AppError("import_too_large", message) : new AppError("import_invalid", message);

/** Opens the zip stored under `key` and reads its directory, refusing what no export of ours holds. */
export async function readZip(
	blobs: BlobStore,
	key: string,
	size: number,
	maxEntryBytes: number,
): Promise<ZipEntries> {
	const reader = new BlobReader(blobs, key, size);
	const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
		yauzl.fromRandomAccessReader(
			reader,
			size,
			{
				lazyEntries: true,
				autoClose: false,
				decodeStrings: true,
				validateEntrySizes: true,
				strictFileNames: true,
			},
			(err, z) =>
				err ? reject(refuse(`The upload is not a readable zip archive: ${err.message}`)) : resolve(z),
		),
	);
	try {
		if (zip.entryCount > MAX_ZIP_ENTRIES)
			throw refuse(`The archive has ${zip.entryCount} entries; at most ${MAX_ZIP_ENTRIES} are read`, 413);
		const entries = new Map<string, yauzl.Entry>();
		let total = 0;
		await new Promise<void>((resolve, reject) => {
			zip.on("error", (err: Error) =>
				reject(err instanceof AppError ? err : refuse(`The archive is damaged: ${err.message}`)),
			);
			zip.on("end", () => resolve());
			zip.on("entry", (entry: yauzl.Entry) => {
				const name = entry.fileName;
				if (name.endsWith("/")) return zip.readEntry();
				if (entries.has(name)) return reject(refuse(`The archive holds ${name} twice`));
				if (entry.isEncrypted()) return reject(refuse(`${name} is encrypted`));
				if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
					return reject(refuse(`${name} uses an unsupported compression method`));
				if (maxEntryBytes >= 0 && entry.uncompressedSize > maxEntryBytes)
					return reject(
						refuse(`${name} is ${entry.uncompressedSize} bytes; the cap is ${maxEntryBytes}`, 413),
					);
				// A deflated entry expanding a thousandfold is a bomb, not a document.
				if (
					entry.compressionMethod === 8 &&
					entry.uncompressedSize > MAX_RATIO * Math.max(entry.compressedSize, 1024)
				)
					return reject(
						refuse(
							`${name} expands ${Math.round(entry.uncompressedSize / Math.max(entry.compressedSize, 1))} times: refused as a zip bomb`,
							413,
						),
					);
				total += entry.uncompressedSize;
				if (total > MAX_ARCHIVE_BYTES)
					return reject(refuse(`The archive unpacks to more than ${MAX_ARCHIVE_BYTES} bytes`, 413));
				entries.set(name, entry);
				zip.readEntry();
			});
			zip.readEntry();
		});
		return {
			entries,
			open: (entry) =>
				new Promise((resolve, reject) =>
					zip.openReadStream(entry, (err, stream) =>
						err ? reject(refuse(`${entry.fileName} cannot be read: ${err.message}`)) : resolve(stream),
					),
				),
			close: () => zip.close(),
		};
	} catch (err) {
		zip.close();
		throw err;
	}
}
