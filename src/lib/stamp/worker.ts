// A stamping worker thread: takes {id, bytes, type, line}, answers {id, bytes} or {id, error}.
// Started by pool.ts from this file (worker.ts under tsx, worker.js once compiled).
import { parentPort } from "node:worker_threads";
import sharp from "sharp";
import { NotWatermarkableError } from "./errors.ts";
import type { PdfLimits } from "./pdf-scan.ts";
import { stampBytes } from "./stamp.ts";

export interface StampJob {
	id: number;
	bytes: Uint8Array;
	type: string;
	line: string;
	limits: PdfLimits;
}

/** Posted once, when the worker has loaded and listens for jobs. */
export interface StampReady {
	ready: true;
}

export type StampAnswer =
	| { id: number; bytes: Uint8Array }
	| { id: number; error: { message: string; notWatermarkable: boolean } };

// One libvips thread per job keeps a core for the event loop; no operation cache, since every
// file is new. (Both settings are process-wide; the main thread does no image work.)
sharp.concurrency(1);
sharp.cache(false);
// pdf-lib prints each unparsable object of a damaged PDF; the refusal already says it.
console.warn = () => {};

const port = parentPort;
if (!port) throw new Error("worker.ts runs as a worker thread");

port.on("message", async (job: StampJob) => {
	try {
		const out = await stampBytes(job.bytes, job.type, job.line, job.limits);
		// Hand the result's memory over instead of copying it, when it owns all of it.
		const own = out.byteOffset === 0 && out.byteLength === out.buffer.byteLength;
		const bytes = own ? out : new Uint8Array(out);
		port.postMessage({ id: job.id, bytes } satisfies StampAnswer, [bytes.buffer as ArrayBuffer]);
	} catch (err) {
		const message = err instanceof Error ? err.message : String(err);
		port.postMessage({
			id: job.id,
			error: { message, notWatermarkable: err instanceof NotWatermarkableError },
		} satisfies StampAnswer);
	}
});

port.postMessage({ ready: true } satisfies StampReady);
