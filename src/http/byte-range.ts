// Range requests (RFC 9110 §14) on a stored file: which bytes a GET answers with. The header is
// parsed by range-parser (jshttp); the policy is ours (docs/api.md "Range requests"): one byte
// range or none, `If-Range` compared strongly, and whatever we do not serve as a range (another
// unit, a list of ranges, a header range-parser cannot read) answered whole, as §14.2 allows.
import rangeParser from "range-parser";

/** What a file's validators are made of: its SHA-256 (empty when unknown) and its record's `updated`. */
export interface FileVersion {
	sha256: string;
	updated: number;
}

export type ByteRange =
	| { kind: "whole" }
	| { kind: "part"; start: number; end: number }
	| { kind: "unsatisfiable" };

const WHOLE: ByteRange = { kind: "whole" };
/** The unit and a single range-spec; a comma means a list, which we answer whole. */
const ONE_BYTE_RANGE = /^bytes=[^,]*$/i;
/** `bytes=-N` with N > 0: a suffix, satisfiable whatever the file's length (RFC 9110 §14.1.1). */
const NONEMPTY_SUFFIX = /^bytes=\s*-\s*0*[1-9]\d*\s*$/i;

/** The strong ETag: the quoted SHA-256 of the bytes; none when the digest is unknown. */
export function etagOf(v: FileVersion): string | undefined {
	return v.sha256 ? `"${v.sha256}"` : undefined;
}

/** `Last-Modified`: an HTTP-date, so whole seconds. */
export function lastModifiedOf(v: FileVersion): string {
	return new Date(v.updated).toUTCString();
}

/**
 * The part of a file of `size` bytes a GET with these headers gets (RFC 9110 §13.2.2 step 5:
 * `If-Range` first, so a stale validator gets the whole file even with an unsatisfiable range).
 */
export function selectRange(
	size: number,
	headers: { range?: string | undefined; "if-range"?: string | undefined },
	version: FileVersion,
): ByteRange {
	const header = headers.range?.trim();
	if (header === undefined) return WHOLE;
	const ifRange = headers["if-range"];
	if (ifRange !== undefined && !ifRangeHolds(ifRange.trim(), version)) return WHOLE;
	if (!ONE_BYTE_RANGE.test(header)) return WHOLE;
	const ranges = rangeParser(size, header);
	if (ranges === -1) {
		// range-parser refuses a suffix longer than the file, where RFC 9110 §14.1.2 serves the whole
		// file (jshttp/range-parser#66 fixes it; 1.3.0, the last release for Node 20, still answers
		// -1). An empty file has no byte to name in a Content-Range: it is answered whole.
		if (NONEMPTY_SUFFIX.test(header)) return size > 0 ? { kind: "part", start: 0, end: size - 1 } : WHOLE;
		return { kind: "unsatisfiable" };
	}
	const [range] = ranges === -2 ? [] : ranges;
	return range ? { kind: "part", start: range.start, end: range.end } : WHOLE;
}

/**
 * RFC 9110 §13.1.5: an entity tag must equal ours by strong comparison (a weak one never does);
 * a date must name exactly our Last-Modified second. Anything else does not hold.
 */
function ifRangeHolds(validator: string, version: FileVersion): boolean {
	if (validator.startsWith('"') || validator.startsWith("W/")) return validator === etagOf(version);
	const date = Date.parse(validator);
	return !Number.isNaN(date) && date === Date.parse(lastModifiedOf(version));
}
