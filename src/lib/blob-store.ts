// The blob store: one interface, two backends. The default is a folder under DATA_DIR
// (this file); several nodes share S3-compatible object storage (blob-store-s3.ts). Writes stream
// through a running size check and digest (`meter`); a blob appears under its key only when it is
// complete, so a refused or interrupted upload leaves nothing a reader can see.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface BlobInfo {
	key: string;
	size: number;
	sha256: string;
}

export interface BlobStore {
	/** Streams `source` into a new blob; rejects with BlobTooLargeError past `maxBytes` (-1 = no cap). */
	put(source: Readable, options?: { maxBytes?: number; key?: string }): Promise<BlobInfo>;
	get(key: string, range?: { start: number; end: number }): Promise<Readable>;
	size(key: string): Promise<number | undefined>;
	delete(key: string): Promise<void>;
	/** Keys with their modification time, for sweeping blobs no row points at. */
	list(): AsyncIterable<{ key: string; modified: number }>;
	/** Removes partial uploads a dead process left, older than `olderThanMs`; returns how many. */
	sweepPartials(olderThanMs: number, now?: number): Promise<number>;
	/** Resolves when the store can be used; rejects with what is wrong (checked at start). */
	ready(): Promise<void>;
}

export class BlobTooLargeError extends Error {
	constructor(readonly maxBytes: number) {
		super(`blob exceeds ${maxBytes} bytes`);
		this.name = "BlobTooLargeError";
	}
}

export class BlobNotFoundError extends Error {
	constructor(key: string) {
		super(`blob ${key} not found`);
		this.name = "BlobNotFoundError";
	}
}

const KEY = /^[a-z0-9]{16,64}$/;

/** Keys are ours (random hex); anything else never reaches a file system or a bucket. */
export function isKey(key: string): boolean {
	return KEY.test(key);
}

export function checkKey(key: string): string {
	if (!isKey(key)) throw new BlobNotFoundError(key);
	return key;
}

export function newKey(): string {
	return crypto.randomBytes(16).toString("hex");
}

/** A pass-through that counts and hashes, and fails with BlobTooLargeError past `maxBytes`. */
export function meter(maxBytes = -1): { stream: Transform; info: () => { size: number; sha256: string } } {
	const hash = crypto.createHash("sha256");
	let size = 0;
	const stream = new Transform({
		transform(chunk: Buffer, _enc, done) {
			size += chunk.length;
			if (maxBytes >= 0 && size > maxBytes) return done(new BlobTooLargeError(maxBytes));
			hash.update(chunk);
			done(null, chunk);
		},
	});
	return { stream, info: () => ({ size, sha256: hash.digest("hex") }) };
}

export function createFsBlobStore(root: string): BlobStore {
	const objects = path.join(root, "objects");
	const tmp = path.join(root, "tmp");
	fs.mkdirSync(objects, { recursive: true });
	fs.mkdirSync(tmp, { recursive: true });
	const where = (key: string) => path.join(objects, key.slice(0, 2), checkKey(key));

	return {
		async put(source, options = {}) {
			const key = checkKey(options.key ?? newKey());
			const partial = path.join(tmp, `${key}.${process.pid}.part`);
			const metered = meter(options.maxBytes);
			const out = fs.createWriteStream(partial, { flags: "wx" });
			try {
				await pipeline(source, metered.stream, out);
				const final = where(key);
				await fs.promises.mkdir(path.dirname(final), { recursive: true });
				await fs.promises.rename(partial, final);
			} catch (err) {
				// The file is opened asynchronously: a failure before the open completes would let
				// the open recreate it after the removal. Wait until the stream has closed.
				// (Not events.once: it rejects on the stream's own error event, which comes first.)
				if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()));
				await fs.promises.rm(partial, { force: true });
				source.resume?.();
				throw err;
			}
			return { key, ...metered.info() };
		},
		async get(key, range) {
			const file = where(key);
			try {
				await fs.promises.access(file);
			} catch {
				throw new BlobNotFoundError(key);
			}
			return fs.createReadStream(file, range ? { start: range.start, end: range.end } : {});
		},
		async size(key) {
			try {
				return (await fs.promises.stat(where(key))).size;
			} catch {
				return undefined;
			}
		},
		async delete(key) {
			await fs.promises.rm(where(key), { force: true });
		},
		async *list() {
			for (const dir of await fs.promises.readdir(objects)) {
				for (const name of await fs.promises.readdir(path.join(objects, dir))) {
					const stat = await fs.promises.stat(path.join(objects, dir, name));
					yield { key: name, modified: stat.mtimeMs };
				}
			}
		},
		sweepPartials: (olderThanMs, now) => sweepPartials(root, olderThanMs, now),
		async ready() {},
	};
}

/** Removes partial uploads left by a process that died mid-write. */
export async function sweepPartials(root: string, olderThanMs: number, now = Date.now()): Promise<number> {
	const tmp = path.join(root, "tmp");
	let removed = 0;
	for (const name of await fs.promises.readdir(tmp).catch(() => [] as string[])) {
		const file = path.join(tmp, name);
		const stat = await fs.promises.stat(file).catch(() => undefined);
		if (stat && now - stat.mtimeMs > olderThanMs) {
			await fs.promises.rm(file, { force: true });
			removed++;
		}
	}
	return removed;
}
