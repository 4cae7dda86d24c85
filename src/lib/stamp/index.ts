// Stamping files with a line of text (watermarks): PDF with pdf-lib, JPEG, PNG and WebP with sharp.
// `createStamper()` owns a small worker pool; `stampFile` reads the file (from a path, a stream or
// bytes) only once a worker is free and answers the stamped copy. The original is never touched.
// One stamper per app: `close()` stops its workers. Knows nothing of the app.
import fs from "node:fs";
import os from "node:os";
import type { Readable } from "node:stream";
import { NotWatermarkableError, StampBusyError } from "./errors.ts";
import { type PoolOptions, StampPool } from "./pool.ts";
import { isStampable, STAMPABLE_TYPES, type StampableType } from "./types.ts";

export { isNotWatermarkable, NotWatermarkableError, StampBusyError } from "./errors.ts";
export { isStampable, STAMPABLE_TYPES, type StampableType };

export interface StampInput {
	/** The file's sniffed content type; anything but STAMPABLE_TYPES is refused before reading. */
	type: string;
	/** The stamp line; control characters and line breaks become spaces. */
	line: string;
	path?: string;
	stream?: Readable;
	bytes?: Uint8Array;
}

export interface StamperOptions extends Partial<PoolOptions> {
	/** Largest file read for stamping, in bytes; a larger one is refused. */
	maxBytes?: number;
}

export interface Stamper {
	/** The stamped copy. Rejects with NotWatermarkableError or StampBusyError. */
	stampFile(input: StampInput): Promise<Buffer>;
	readonly saturated: boolean;
	/** Jobs stamping now and jobs waiting for a worker. */
	readonly load: { running: number; queued: number };
	close(): Promise<void>;
}

export const STAMP_DEFAULTS = {
	/** min(2, cores - 1), at least 1: a core stays free for the event loop. */
	size: Math.min(2, Math.max(1, os.availableParallelism() - 1)),
	maxQueue: 16,
	timeoutMs: 30_000,
	maxHeapMb: 1024,
	maxBytes: 64 * 1024 * 1024,
} as const;

export function createStamper(options: StamperOptions = {}): Stamper {
	const settings = { ...STAMP_DEFAULTS, ...options };
	const pool = new StampPool(settings);
	return {
		async stampFile(input) {
			try {
				if (!isStampable(input.type)) {
					throw new NotWatermarkableError(`${input.type} files cannot be stamped`);
				}
				if (pool.saturated) throw new StampBusyError();
				const out = await pool.run(() => readInput(input, settings.maxBytes), input.type, input.line);
				return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
			} finally {
				// Read whole, refused or never started: the stream is done with either way.
				input.stream?.destroy();
			}
		},
		get saturated() {
			return pool.saturated;
		},
		get load() {
			return pool.load;
		},
		close: () => pool.close(),
	};
}

/** The input's bytes in memory this module owns (it is handed to a worker, not copied). */
async function readInput(input: StampInput, maxBytes: number): Promise<Uint8Array> {
	if (input.bytes) {
		if (input.bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
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
