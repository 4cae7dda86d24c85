// Stamps every page of a PDF: a light band along the bottom edge of the visible page with the line
// in Helvetica, drawn into the page's own content stream (not an annotation a reader can select
// and delete). The band follows the page's rotation and crop box, so it sits at the bottom and
// reads upright however the page is displayed. Encrypted and unreadable PDFs are refused.
import { degrees, grayscale, PDFDocument, type PDFFont, type PDFPage, StandardFonts } from "pdf-lib";
import { NotWatermarkableError } from "./errors.ts";
import { inCharset } from "./line.ts";
import { PDF_LIMITS, type PdfLimits } from "./pdf-scan.ts";

export async function stampPdf(
	input: Uint8Array,
	line: string,
	limits: PdfLimits = PDF_LIMITS,
): Promise<Uint8Array> {
	let doc: PDFDocument;
	let pages: PDFPage[];
	try {
		// updateMetadata: false keeps the document's own producer and dates. Encryption is checked
		// below (pdf-lib's own EncryptedPDFError fails instanceof: it is compiled to ES5).
		doc = await PDFDocument.load(input, { updateMetadata: false, ignoreEncryption: true });
		// Again after parsing, for what the byte scan (pdf-scan.ts) cannot see in compressed object
		// streams: the declared page count and the objects, before the page tree is walked.
		overLimits(doc, limits);
		pages = doc.getPages();
		// A tree may name one page object many times; each entry is a page to stamp.
		if (pages.length > limits.maxPages) {
			throw new NotWatermarkableError(
				`the PDF has more than ${limits.maxPages} pages (${pages.length}); larger PDFs are not stamped`,
			);
		}
	} catch (err) {
		if (err instanceof NotWatermarkableError) throw err;
		throw new NotWatermarkableError("the PDF cannot be read");
	}
	// Even an owner-password-only PDF is refused: pdf-lib cannot decrypt, so drawing into it would
	// leave a broken file.
	if (doc.isEncrypted) throw new NotWatermarkableError("the PDF is encrypted");
	if (pages.length === 0) throw new NotWatermarkableError("the PDF has no pages");
	try {
		const font = await doc.embedFont(StandardFonts.Helvetica);
		const text = inCharset(line, new Set(font.getCharacterSet()));
		for (const page of pages) stampPage(page, font, text);
		return await doc.save();
	} catch (err) {
		if (err instanceof NotWatermarkableError) throw err;
		throw new NotWatermarkableError("the PDF's page tree is damaged");
	}
}

function overLimits(doc: PDFDocument, { maxPages, maxObjects }: PdfLimits): void {
	let count = 0;
	try {
		count = doc.catalog.Pages().Count().asNumber();
	} catch {
		// No usable /Count: the walk of the tree counts, and the time budget bounds it.
	}
	if (count > maxPages) {
		throw new NotWatermarkableError(
			`the PDF has more than ${maxPages} pages (${count}); larger PDFs are not stamped`,
		);
	}
	const objects = doc.context.largestObjectNumber;
	if (objects > maxObjects) {
		throw new NotWatermarkableError(
			`the PDF has more than ${maxObjects} objects (${objects}); larger PDFs are not stamped`,
		);
	}
}

function stampPage(page: PDFPage, font: PDFFont, text: string): void {
	const box = page.getCropBox();
	const rotation = quarterTurns(page.getRotation().angle) * 90;
	const upright = rotation % 180 === 0;
	// The page as the reader sees it: W wide, H high.
	const W = upright ? box.width : box.height;
	const H = upright ? box.height : box.width;
	if (!(W > 0 && H > 0)) throw new NotWatermarkableError("a page has an empty crop box");

	// About 9 pt on A4 or Letter, scaled with the page; lines longer than the page shrink the font.
	const preferred = Math.min(24, Math.max(6, W * 0.015));
	const margin = preferred;
	const size = Math.min(preferred, (W - 2 * margin) / font.widthOfTextAtSize(text, 1));
	const band = Math.min(H, preferred * 2.2);

	// Maps a point of the reader's frame (u right, v up, from the visible bottom-left corner) to the
	// page's user space. Drawing with rotate = the page's rotation turns the local axes alike.
	const at = (u: number, v: number) => {
		switch (rotation) {
			case 90:
				return { x: box.x + box.width - v, y: box.y + u };
			case 180:
				return { x: box.x + box.width - u, y: box.y + box.height - v };
			case 270:
				return { x: box.x + v, y: box.y + box.height - u };
			default:
				return { x: box.x + u, y: box.y + v };
		}
	};
	const rotate = degrees(rotation);
	page.drawRectangle({ ...at(0, 0), width: W, height: band, rotate, color: grayscale(1), opacity: 0.8 });
	const width = font.widthOfTextAtSize(text, size);
	// Helvetica's capitals rise about 0.72 em: centre them in the band.
	page.drawText(text, {
		...at((W - width) / 2, (band - size * 0.72) / 2),
		size,
		font,
		rotate,
		color: grayscale(0.1),
	});
}

/** A /Rotate value as quarter turns clockwise, 0 to 3 (the spec allows multiples of 90, any sign). */
function quarterTurns(angle: number): number {
	const turns = Math.round(angle / 90) % 4;
	return turns < 0 ? turns + 4 : turns;
}
