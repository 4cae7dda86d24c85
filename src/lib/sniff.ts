// Content type from a file's first bytes (magic numbers), never from the client's claim, and a safe
// form of a client-supplied file name. Knows nothing of the app.
import { Transform, type TransformCallback } from "node:stream";

/** Bytes to look at; enough for every signature below and a fair text check. */
export const SNIFF_BYTES = 512;

export function sniffContentType(head: Uint8Array): string {
	const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
	const starts = (sig: number[], at = 0) => sig.every((x, i) => b[at + i] === x);
	if (b.length === 0) return "application/octet-stream";
	if (b.subarray(0, 5).toString("latin1") === "%PDF-") return "application/pdf";
	if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
	if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
	const six = b.subarray(0, 6).toString("latin1");
	if (six === "GIF87a" || six === "GIF89a") return "image/gif";
	if (b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") {
		return "image/webp";
	}
	// Local file header, empty archive, spanned archive.
	if (
		starts([0x50, 0x4b, 0x03, 0x04]) ||
		starts([0x50, 0x4b, 0x05, 0x06]) ||
		starts([0x50, 0x4b, 0x07, 0x08])
	) {
		return "application/zip";
	}
	return looksLikeText(b) ? "text/plain; charset=utf-8" : "application/octet-stream";
}

/** UTF-8 without control characters other than tab, line breaks and form feed. */
function looksLikeText(b: Buffer): boolean {
	for (const byte of b) {
		if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) return false;
		if (byte === 0x7f) return false;
	}
	// The head may cut a multi-byte character: drop up to 3 trailing bytes of an unfinished sequence.
	for (let cut = 0; cut <= 3 && cut <= b.length; cut++) {
		try {
			new TextDecoder("utf-8", { fatal: true }).decode(b.subarray(0, b.length - cut));
			return true;
		} catch {
			// try a shorter prefix
		}
	}
	return false;
}

/** A pass-through stream that keeps a copy of the first `SNIFF_BYTES` bytes. */
export class HeadCapture extends Transform {
	private chunks: Buffer[] = [];
	private kept = 0;

	head(): Buffer {
		return Buffer.concat(this.chunks);
	}

	override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
		if (this.kept < SNIFF_BYTES) {
			const part = chunk.subarray(0, SNIFF_BYTES - this.kept);
			this.chunks.push(Buffer.from(part));
			this.kept += part.length;
		}
		done(null, chunk);
	}
}

/**
 * Characters that change how a name is shown without being seen: C0 and C1 controls, DEL, and the
 * bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A to
 * U+202E, U+2066 to U+2069). `invoice\u202Efdp.exe` shows as `invoiceexe.pdf`.
 */
export function isDisguising(c: number): boolean {
	return (
		c < 0x20 ||
		(c >= 0x7f && c <= 0x9f) ||
		c === 0x61c ||
		c === 0x200e ||
		c === 0x200f ||
		(c >= 0x202a && c <= 0x202e) ||
		(c >= 0x2066 && c <= 0x2069)
	);
}

/** `text` without the characters that disguise how it reads (file names, share labels). */
export function stripDisguising(text: string): string {
	let out = "";
	for (const ch of text) if (!isDisguising(ch.codePointAt(0) ?? 0)) out += ch;
	return out;
}

/**
 * The last path segment of a client's file name, without control characters (NUL among them, C1
 * too), bidirectional controls, lone surrogates, quotes or separators, at most 200 characters (the
 * extension kept), `file` when nothing is left.
 */
export function sanitizeFilename(raw: string | undefined): string {
	const base = stripDisguising((raw ?? "").split(/[/\\]/).pop() ?? "");
	const UNSAFE = '"<>:|?*';
	let name = [...base]
		.filter((ch) => {
			const c = ch.codePointAt(0) ?? 0;
			// A lone surrogate (a `filename*` in UTF-16 can carry one) cannot be stored faithfully.
			const lone = c >= 0xd800 && c <= 0xdfff;
			return c >= 0x20 && c !== 0x7f && !lone && !UNSAFE.includes(ch);
		})
		.join("")
		.replace(/\s+/g, " ")
		.trim();
	name = name.replace(/^\.+/, "").trim();
	if (name.length > 200) {
		const dot = name.lastIndexOf(".");
		const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : "";
		// Cut by code units, so a pair split at the cut loses its orphaned half.
		name = name.slice(0, 200 - ext.length).replace(/[\uD800-\uDBFF]$/, "") + ext;
	}
	return name === "" ? "file" : name;
}

/** A Content-Disposition value with an ASCII fallback and the UTF-8 name (RFC 6266, RFC 8187). */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
	// Names stored before the rule, and labels, may still hold them: never in the header.
	const filename = stripDisguising(name);
	const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
	const encoded = encodeURIComponent(filename).replace(
		/['()*]/g,
		(c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
	);
	return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
