// Stamping files with a line of text (watermarks): PDF with pdf-lib, JPEG, PNG and WebP with sharp.
// `createStamper()` owns a small worker pool, fair between tenants (pool.ts), and optionally a disk
// cache of stamped copies (cache.ts); `stampCopy` reads the file (from a path, a stream or bytes)
// only once a worker is free and answers the stamped copy. A PDF's bytes are scanned as they are
// read, and one with more pages or objects than any real document is refused before it is parsed
// (pdf-scan.ts). The original is never touched. One stamper per app: `close()` stops its workers.
// Knows nothing of the app.
import fs from "node:fs";
import os from "node:os";
import type { Readable } from "node:stream";
import { StampCache } from "./cache.ts";
import { NotWatermarkableError } from "./errors.ts";
import { PDF_LIMITS, PdfCounter, type PdfLimits } from "./pdf-scan.ts";
import { type PoolOptions, StampPool } from "./pool.ts";
import { isStampable, STAMPABLE_TYPES, type StampableType } from "./types.ts";

export { isNotWatermarkable, NotWatermarkableError, StampBusyError } from "./errors.ts";
export { PDF_LIMITS, type PdfLimits } from "./pdf-scan.ts";
export { isStampable, STAMPABLE_TYPES, type StampableType };

export interface StampInput {
	/** The file's sniffed content type; anything but STAMPABLE_TYPES is refused before reading. */
	type: string;
	/** The stamp line; control characters and line breaks become spaces. */
	line: string;
	path?: string;
	stream?: Readable;
	bytes?: Uint8Array;
	/** Whose job (a workspace): tenants share the pool fairly. One shared tenant when absent. */
	tenant?: string;
	/** Time budget of this job in ms; the pool's `timeoutMs` when absent. */
	budgetMs?: number;
	/**
	 * What names these bytes for good (a stored file's key, which changes when the file does):
	 * with it, the copy is kept in the cache under (tenant, type, source, line) and served from it.
	 */
	source?: string;
}

/** A stamped copy: from the cache a file stream, fresh from a worker the bytes. */
export interface StampedCopy {
	body: Buffer | Readable;
	size: number;
	cached: boolean;
}

export interface StamperOptions extends Partial<PoolOptions> {
	/** Largest file read for stamping, in bytes; a larger one is refused. */
	maxBytes?: number;
	/** Most pages and objects of a PDF that is stamped (PDF_LIMITS). */
	pdfLimits?: PdfLimits;
	/** Folder of the stamped-copy cache; no cache without it. */
	cacheDir?: string;
	cacheMaxBytes?: number;
	cacheMaxAgeMs?: number;
}

export interface Stamper {
	/** The stamped copy in memory, never cached. Rejects with NotWatermarkableError or StampBusyError. */
	stampFile(input: StampInput): Promise<Buffer>;
	/** The stamped copy, from the cache when `source` is given and it holds it. Rejects as stampFile. */
	stampCopy(input: StampInput): Promise<StampedCopy>;
	readonly saturated: boolean;
	/** Jobs stamping now and jobs waiting for a worker. */
	readonly load: { running: number; queued: number };
	/** Jobs handed to a worker since start (a cache hit is none). */
	readonly jobs: number;
	close(): Promise<void>;
}

export const STAMP_DEFAULTS = {
	/**
	 * cores − 1, at least 2 and at most 4: with two workers one tenant's job never holds them all
	 * (a tenant runs at most size − 1 jobs at once), and a core stays free for the event loop
	 * wherever there are three or more.
	 */
	size: Math.min(4, Math.max(2, os.availableParallelism() - 1)),
	maxQueue: 64,
	maxQueuePerTenant: 8,
	timeoutMs: 30_000,
	maxHeapMb: 1024,
	maxBytes: 64 * 1024 * 1024,
	pdfLimits: PDF_LIMITS,
	cacheMaxBytes: 256 * 1024 * 1024,
	cacheMaxAgeMs: 24 * 60 * 60 * 1000,
} as const;

export function createStamper(options: StamperOptions = {}): Stamper {
	const settings = { ...STAMP_DEFAULTS, ...options };
	const pool = new StampPool(settings);
	const cache = settings.cacheDir ? openCache(settings.cacheDir, settings) : undefined;
	/** Copies being made now, by cache key: a second ask waits for the first instead of stamping. */
	const making = new Map<string, Promise<Buffer>>();

	async function stamp(input: StampInput): Promise<Buffer> {
		try {
			if (!isStampable(input.type)) {
				throw new NotWatermarkableError(`${input.type} files cannot be stamped`);
			}
			const limits = settings.pdfLimits;
			const out = await pool.run(() => readInput(input, settings.maxBytes, limits), {
				tenant: input.tenant ?? "",
				budgetMs: input.budgetMs,
				type: input.type,
				line: input.line,
				limits,
			});
			return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
		} finally {
			// Read whole, refused or never started: the stream is done with either way.
			input.stream?.destroy();
		}
	}

	return {
		stampFile: stamp,
		async stampCopy(input) {
			if (!cache || input.source === undefined) {
				const bytes = await stamp(input);
				return { body: bytes, size: bytes.length, cached: false };
			}
			const key = StampCache.key(input.tenant ?? "", input.type, input.source, input.line);
			const hit = await cache.get(key);
			if (hit) {
				input.stream?.destroy();
				return { body: hit.stream, size: hit.size, cached: true };
			}
			let pending = making.get(key);
			if (pending === undefined) {
				pending = stamp(input).then(async (bytes) => {
					await cache.put(key, bytes);
					return bytes;
				});
				making.set(key, pending);
				void pending.then(
					() => making.delete(key),
					() => making.delete(key),
				);
			} else input.stream?.destroy(); // the same copy is being made: wait for it
			const bytes = await pending;
			return { body: bytes, size: bytes.length, cached: false };
		},
		get saturated() {
			return pool.saturated;
		},
		get load() {
			return pool.load;
		},
		get jobs() {
			return pool.jobs;
		},
		async close() {
			cache?.close();
			await pool.close();
		},
	};
}

/** The cache, or none when its folder cannot be made (a read-only DATA_DIR): stamping goes on uncached. */
function openCache(dir: string, settings: { cacheMaxBytes: number; cacheMaxAgeMs: number }) {
	try {
		return new StampCache({ dir, maxBytes: settings.cacheMaxBytes, maxAgeMs: settings.cacheMaxAgeMs });
	} catch {
		return undefined;
	}
}

/** The input's bytes in memory this module owns (it is handed to a worker, not copied). */
async function readInput(input: StampInput, maxBytes: number, limits: PdfLimits): Promise<Uint8Array> {
	// A PDF is scanned as it is read, and the read stops at the first limit passed.
	const counter = input.type === "application/pdf" ? new PdfCounter(limits) : undefined;
	if (input.bytes) {
		if (input.bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
		for (let at = 0; counter && at < input.bytes.byteLength; at += 1 << 16) {
			counter.push(input.bytes.subarray(at, at + (1 << 16)));
		}
		// A copy: the worker takes this memory over, and the caller's buffer must stay intact.
		return new Uint8Array(input.bytes);
	}
	const stream = input.stream ?? (input.path ? fs.createReadStream(input.path) : undefined);
	if (!stream) throw new TypeError("stampFile needs a path, a stream or bytes");
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of stream) {
			const buf = chunk as Buffer;
			size += buf.length;
			if (size > maxBytes) throw tooLarge(maxBytes);
			counter?.push(buf);
			chunks.push(buf);
		}
	} finally {
		if (stream !== input.stream) stream.destroy();
	}
	const bytes = new Uint8Array(size);
	let at = 0;
	for (const c of chunks) {
		bytes.set(c, at);
		at += c.length;
	}
	return bytes;
}

function tooLarge(maxBytes: number) {
	const mib = maxBytes / 1024 / 1024;
	const cap = Number.isInteger(mib) ? `${mib} MiB` : `${maxBytes} bytes`;
	return new NotWatermarkableError(`files over ${cap} are not stamped`);
}
