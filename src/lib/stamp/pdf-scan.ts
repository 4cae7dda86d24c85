// A cheap look at a PDF's raw bytes before anything parses it: how many page objects and how many
// objects it declares. A crafted file with a page tree of 100,000 entries is only 600 KB but keeps
// a PDF parser busy for minutes; counting tokens in the bytes takes milliseconds, chunk by chunk as
// the file is read, and stops the read as soon as a limit is passed. Knows nothing of the app.
//
// What is counted: `/Type /Page` dictionaries, the entries of `/Kids` arrays (a page tree may name
// one page object 100,000 times: each entry is a page to parse and stamp), ` obj` keywords
// (indirect objects), and the largest `/Size` of a trailer or cross-reference stream (objects it
// declares, including those packed in compressed object streams). The pages are the larger of the
// page dictionaries and the tree's leaf entries (Kids entries less the inner `/Pages` nodes). Pages inside compressed object streams are not seen
// here: the worker checks the parsed page count again before walking the tree (pdf.ts), and the
// job's time budget bounds the rest.
import { NotWatermarkableError } from "./errors.ts";

export interface PdfLimits {
	/** Most pages a stamped PDF may have. */
	maxPages: number;
	/** Most objects a stamped PDF may have or declare. */
	maxObjects: number;
}

/** No real document needs more: a 2,000-page PDF has some 10,000 to 100,000 objects. */
export const PDF_LIMITS: PdfLimits = { maxPages: 2000, maxObjects: 200_000 };

// Each pattern ends on a byte that cannot continue the token, so a match is whole.
const PAGE = /\/Type\s{0,16}\/Page[^A-Za-z0-9_]/g;
const PAGES = /\/Type\s{0,16}\/Pages[^A-Za-z0-9_]/g;
const KIDS = /\/Kids\s{0,16}\[/g;
const OBJ = /\sobj[^A-Za-z0-9_]/g;
const SIZE = /\/Size\s{1,16}(\d{1,12})[^0-9]/g;
/** Longer than any match above: bytes kept from one chunk to the next. */
const CARRY = 64;

export class PdfCounter {
	/** `/Type /Page` dictionaries. */
	leaves = 0;
	/** `/Type /Pages` dictionaries (inner nodes of the page tree). */
	nodes = 0;
	/** Entries of all `/Kids` arrays: each is one `R` of a reference. */
	kids = 0;
	objects = 0;
	declared = 0;
	private tail = "";
	private inKids = false;

	constructor(private readonly limits: PdfLimits) {}

	/** Counts the tokens of the next chunk; throws NotWatermarkableError past a limit. */
	push(chunk: Uint8Array): void {
		const text = this.tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1");
		// A match is counted in the chunk where it ends: one ending inside the carried tail was
		// counted with the chunk before.
		const fresh = this.tail.length;
		this.leaves += count(PAGE, text, fresh);
		this.nodes += count(PAGES, text, fresh);
		this.objects += count(OBJ, text, fresh);
		this.countKids(text, fresh);
		SIZE.lastIndex = 0;
		for (let m = SIZE.exec(text); m; m = SIZE.exec(text)) {
			this.declared = Math.max(this.declared, Number(m[1]));
		}
		this.tail = text.slice(-CARRY);
		this.check();
	}

	/** Pages as far as read: page dictionaries, or the page tree's leaf entries when more. */
	get pages(): number {
		return Math.max(this.leaves, this.kids - Math.max(0, this.nodes - 1));
	}

	/**
	 * Counts the entries of `/Kids` arrays in the new part of `text` (from `fresh`). Inside an array
	 * there are only references (`3 0 R`), so each `R` is one entry, and an array may span chunks.
	 */
	private countKids(text: string, fresh: number): void {
		let at = fresh;
		let searchFrom = 0;
		while (at < text.length) {
			if (this.inKids) {
				const close = text.indexOf("]", at);
				const end = close < 0 ? text.length : close;
				for (let i = text.indexOf("R", at); i >= 0 && i < end; i = text.indexOf("R", i + 1)) this.kids++;
				if (close < 0) return;
				this.inKids = false;
				at = close + 1;
				searchFrom = at;
				continue;
			}
			KIDS.lastIndex = searchFrom;
			let m = KIDS.exec(text);
			// An array opened in the carried tail was followed there already.
			while (m && m.index + m[0].length <= fresh) m = KIDS.exec(text);
			if (!m) return;
			this.inKids = true;
			at = m.index + m[0].length;
		}
	}

	private check(): void {
		const { maxPages, maxObjects } = this.limits;
		const pages = this.pages;
		if (pages > maxPages) {
			throw new NotWatermarkableError(
				`the PDF has more than ${maxPages} pages (${pages} or more); larger PDFs are not stamped`,
			);
		}
		const objects = Math.max(this.objects, this.declared);
		if (objects > maxObjects) {
			throw new NotWatermarkableError(
				`the PDF has more than ${maxObjects} objects (${objects} or more); larger PDFs are not stamped`,
			);
		}
	}
}

function count(re: RegExp, text: string, fresh: number): number {
	re.lastIndex = 0;
	let n = 0;
	for (let m = re.exec(text); m; m = re.exec(text)) {
		if (m.index + m[0].length > fresh) n++;
	}
	return n;
}
