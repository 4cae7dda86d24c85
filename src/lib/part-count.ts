// Counts the parts of a multipart body from its raw bytes, beside the real parser, so a part the
// parser drops without a word (busboy skips a part whose Content-Disposition is missing or not
// `form-data`, or whose name or file name holds a bare line break) can be noticed and refused.
// Knows nothing of the app.
import type { Readable } from "node:stream";

/** The boundary of a `multipart/*` Content-Type (quoted or not), or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
	const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType ?? "");
	return match?.[1] ?? match?.[2];
}

export class PartCounter {
	private readonly delimiter: Buffer;
	/** The last bytes seen, for a delimiter split across chunks; the body start counts as a line break. */
	private tail = Buffer.from("\r\n");
	private delimiters = 0;

	constructor(boundary: string) {
		this.delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
	}

	/** Parts seen so far: delimiters minus the closing one. */
	get parts(): number {
		return Math.max(0, this.delimiters - 1);
	}

	readonly push = (chunk: Buffer): void => {
		const d = this.delimiter;
		// A delimiter that starts in the tail and ends in this chunk (one wholly inside the tail
		// cannot be: the tail is shorter than a delimiter).
		const joint = Buffer.concat([this.tail, chunk.subarray(0, d.length - 1)]);
		for (let at = joint.indexOf(d); at !== -1 && at < this.tail.length; at = joint.indexOf(d, at + 1)) {
			this.delimiters += 1;
		}
		for (let at = chunk.indexOf(d); at !== -1; at = chunk.indexOf(d, at + d.length)) this.delimiters += 1;
		// A copy, so a large chunk is not kept alive for its last few bytes.
		this.tail = Buffer.from((chunk.length >= d.length - 1 ? chunk : joint).subarray(-(d.length - 1)));
	};

	/** Counts what `stream` emits until the returned function is called. */
	watch(stream: Readable): () => void {
		stream.on("data", this.push);
		return () => stream.off("data", this.push);
	}
}
