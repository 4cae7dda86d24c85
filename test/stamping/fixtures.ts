// Real files for the stamping tests, built in the test: PDFs with pdf-lib (several pages, rotated
// pages, a crop box), a hand-written encrypted PDF, images with sharp; and the outside readers that
// check a stamp: poppler's pdftotext (package poppler-utils) and sharp's raw pixels.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { concatTransformationMatrix, degrees, PDFDocument, StandardFonts } from "pdf-lib";
import sharp from "sharp";

/** A PDF with one page per entry: its /Rotate, and optionally a crop box inside the media box. */
export async function makePdf(
	pages: {
		rotate?: number;
		size?: [number, number];
		crop?: [number, number, number, number];
		/** End the content with a scale by 0.5 left in force (no q/Q), as some producers do. */
		strayScale?: boolean;
	}[],
): Promise<Buffer> {
	const doc = await PDFDocument.create();
	const font = await doc.embedFont(StandardFonts.TimesRoman);
	pages.forEach((spec, i) => {
		const page = doc.addPage(spec.size ?? [595, 842]);
		for (let j = 0; j < 30; j++) {
			page.drawText(`Page ${i + 1} body line ${j}`, {
				x: 60,
				y: page.getHeight() - 60 - j * 20,
				size: 11,
				font,
			});
		}
		if (spec.strayScale) page.pushOperators(concatTransformationMatrix(0.5, 0, 0, 0.5, 0, 0));
		if (spec.rotate) page.setRotation(degrees(spec.rotate));
		if (spec.crop) page.setCropBox(...spec.crop);
	});
	return Buffer.from(await doc.save());
}

/**
 * A minimal one-page PDF written by hand, with an /Encrypt dictionary (RC4 40-bit, the standard
 * handler) in its trailer when `encrypted`; without it, the same file is an ordinary PDF.
 */
export function handWrittenPdf(encrypted: boolean): Buffer {
	const objects = [
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Resources << >> >>",
	];
	if (encrypted) {
		const o = "a".repeat(64);
		const u = "b".repeat(64);
		objects.push(`<< /Filter /Standard /V 1 /R 2 /O <${o}> /U <${u}> /P -44 >>`);
	}
	let body = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
	const offsets: number[] = [];
	objects.forEach((obj, i) => {
		offsets.push(Buffer.byteLength(body, "latin1"));
		body += `${i + 1} 0 obj\n${obj}\nendobj\n`;
	});
	const xref = Buffer.byteLength(body, "latin1");
	body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const off of offsets) body += `${String(off).padStart(10, "0")} 00000 n \n`;
	const id = "0123456789abcdef0123456789abcdef";
	body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypted ? " /Encrypt 4 0 R" : ""} /ID [<${id}> <${id}>] >>\n`;
	body += `startxref\n${xref}\n%%EOF\n`;
	return Buffer.from(body, "latin1");
}

/**
 * The crafted PDF of the hardening issue: one page object named `n` times by a flat page tree
 * (`/Kids [3 0 R 3 0 R …]`), about 600 KB for 100,000 entries. Parsers walk every entry; pdf-lib
 * would stamp the one page 100,000 times.
 */
export function hostilePdf(n: number): Buffer {
	const objects = [
		"<< /Type /Catalog /Pages 2 0 R >>",
		`<< /Type /Pages /Count ${n} /Kids [${"3 0 R ".repeat(n)}] >>`,
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
	];
	let body = "%PDF-1.4\n";
	const offsets: number[] = [];
	objects.forEach((obj, i) => {
		offsets.push(body.length);
		body += `${i + 1} 0 obj\n${obj}\nendobj\n`;
	});
	const xref = body.length;
	body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const off of offsets) body += `${String(off).padStart(10, "0")} 00000 n \n`;
	body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(body, "latin1");
}

/**
 * A PDF of `n` blank pages in one flat page tree, written by hand: cheap to build (100,000 pages
 * are 6.5 MB), minutes to parse and stamp.
 */
export function manyPagesPdf(n: number): Buffer {
	const parts = ["%PDF-1.4\n"];
	let at = parts[0]?.length ?? 0;
	const offsets: number[] = [];
	const add = (obj: string) => {
		offsets.push(at);
		parts.push(obj);
		at += obj.length;
	};
	add("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n");
	const kids = Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(" ");
	add(`2 0 obj\n<< /Type /Pages /Count ${n} /Kids [${kids}] >>\nendobj\n`);
	for (let i = 0; i < n; i++) {
		add(`${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\n`);
	}
	parts.push(`xref\n0 ${n + 3}\n0000000000 65535 f \n`);
	for (const offset of offsets) parts.push(`${String(offset).padStart(10, "0")} 00000 n \n`);
	parts.push(`trailer\n<< /Size ${n + 3} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`);
	return Buffer.from(parts.join(""), "latin1");
}

/** A photo-like image: a gradient with noise, so JPEG and WebP behave as with real pictures. */
export async function makeImage(
	format: "jpeg" | "png" | "webp",
	width: number,
	height: number,
	options: { orientation?: number } = {},
): Promise<Buffer> {
	const noise = await sharp({
		create: {
			width,
			height,
			channels: 3,
			background: "#000",
			noise: { type: "gaussian", mean: 110, sigma: 25 },
		},
	})
		.png()
		.toBuffer();
	const img = sharp(noise);
	if (options.orientation) img.withMetadata({ orientation: options.orientation });
	if (format === "jpeg") img.jpeg({ quality: 90 });
	else if (format === "png") img.png();
	else img.webp({ quality: 90 });
	return img.toBuffer();
}

export interface Gray {
	width: number;
	height: number;
	/** One byte per pixel, rows top to bottom. */
	data: Buffer;
}

/** Greyscale pixels as the reader sees them (EXIF orientation applied). */
export async function grayPixels(image: Buffer): Promise<Gray> {
	const { data, info } = await sharp(image).rotate().greyscale().raw().toBuffer({ resolveWithObject: true });
	if (info.channels !== 1) throw new Error(`expected one channel, got ${info.channels}`);
	return { width: info.width, height: info.height, data };
}

/** Mean absolute difference and the share of dark pixels (< 80) in rows [top, bottom). */
export function compareRows(a: Gray, b: Gray, top: number, bottom: number) {
	let diff = 0;
	let darkB = 0;
	let n = 0;
	for (let y = top; y < bottom; y++) {
		for (let x = 0; x < a.width; x++) {
			const i = y * a.width + x;
			diff += Math.abs((a.data[i] as number) - (b.data[i] as number));
			if ((b.data[i] as number) < 80) darkB++;
			n++;
		}
	}
	return { meanDiff: diff / n, darkShare: darkB / n };
}

// ---- PDF text, read by poppler (an independent reader) ----

function pdftotext(pdf: Buffer, args: string[]): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-stamp-"));
	try {
		const file = path.join(dir, "in.pdf");
		fs.writeFileSync(file, pdf);
		return execFileSync("pdftotext", [...args, file, "-"], { encoding: "utf8" });
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") {
			throw new Error("pdftotext is missing: install Debian's poppler-utils (.ci/run does)");
		}
		throw err;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** The text of each page, in order. */
export function pageTexts(pdf: Buffer): string[] {
	const pages = pdftotext(pdf, ["-enc", "UTF-8"]).split("\f");
	pages.pop(); // pdftotext ends every page with a form feed
	return pages;
}

export interface Word {
	text: string;
	xMin: number;
	yMin: number;
	xMax: number;
	yMax: number;
}

/**
 * The words of each page with their boxes, top-left origin, in the visible page as displayed
 * (crop box and rotation applied).
 */
export function pageWords(pdf: Buffer): Word[][] {
	const html = pdftotext(pdf, ["-bbox", "-cropbox", "-enc", "UTF-8"]);
	return html
		.split("<page ")
		.slice(1)
		.map((page) =>
			[
				...page.matchAll(
					/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
				),
			].map((m) => ({
				xMin: Number(m[1]),
				yMin: Number(m[2]),
				xMax: Number(m[3]),
				yMax: Number(m[4]),
				text: (m[5] as string).replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">"),
			})),
		);
}
