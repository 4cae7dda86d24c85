// Stamping real files through the worker pool: the line is on every page of a PDF (read back by
// poppler's pdftotext, upright at the bottom of rotated and cropped pages) and in the pixels of
// JPEG, PNG and WebP images (the bottom band differs from the original, the rest does not);
// encrypted, damaged and unsupported files are refused with NotWatermarkableError.
// Runs once, not per database: the stamping workers on files, with no database.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { createStamper, NotWatermarkableError, type Stamper } from "../../src/lib/stamp/index.ts";
import { inCharset, oneLine } from "../../src/lib/stamp/line.ts";
import {
	compareRows,
	grayPixels,
	handWrittenPdf,
	makeImage,
	makePdf,
	pageTexts,
	pageWords,
} from "./fixtures.ts";

const LINE = "Sent to Dana Novák for 5 Main St, 2026-11-22";

let stamper: Stamper;
before(() => {
	stamper = createStamper();
});
after(() => stamper.close());

const pdf = (bytes: Buffer, line = LINE) => stamper.stampFile({ bytes, type: "application/pdf", line });

describe("PDF", () => {
	test("the line is on every page of a multi-page PDF, and nothing else changes", async () => {
		const original = await makePdf(Array.from({ length: 5 }, () => ({})));
		const stamped = await pdf(original);
		const texts = pageTexts(stamped);
		assert.equal(texts.length, 5);
		texts.forEach((text, i) => {
			assert.ok(text.includes(LINE), `page ${i + 1} carries the line:\n${text}`);
			assert.ok(text.includes(`Page ${i + 1} body line 0`), `page ${i + 1} keeps its own text`);
		});
		assert.ok(!pageTexts(original).some((t) => t.includes("Sent to")), "the original carries no line");
	});

	for (const rotate of [0, 90, 180, 270, -90, 450]) {
		test(`on a page rotated ${rotate}°, the line reads left to right along the bottom as displayed`, async () => {
			const stamped = await pdf(await makePdf([{ rotate }]));
			const turned = ((((rotate / 90) % 4) + 4) % 4) % 2 === 1;
			const [width, height] = turned ? [842, 595] : [595, 842];
			const words = pageWords(stamped)[0] ?? [];
			const first = words.find((w) => w.text === "Sent");
			const last = words.find((w) => w.text === "2026-11-22");
			assert.ok(first && last, `the stamp's words are found: ${words.map((w) => w.text).join(" ")}`);
			assert.ok(first.xMax - first.xMin > first.yMax - first.yMin, "horizontal, not sideways");
			assert.ok(first.xMin < last.xMin, "left to right, not upside down");
			assert.ok(
				first.yMax > height - 30 && first.yMax <= height,
				`at the bottom (y ${first.yMax} of ${height})`,
			);
			assert.ok(first.xMin >= 0 && last.xMax <= width, "inside the page");
		});
	}

	test("on a cropped page, the line sits at the bottom of the visible area", async () => {
		// Visible: x 100..400, y 200..600 of the media box.
		const stamped = await pdf(
			await makePdf([{ crop: [100, 200, 300, 400] }, { crop: [100, 200, 300, 400], rotate: 90 }]),
		);
		const pages = pageWords(stamped);
		for (const [i, words] of pages.entries()) {
			const height = i === 0 ? 400 : 300;
			const first = words.find((w) => w.text === "Sent");
			assert.ok(first, `page ${i + 1} carries the line`);
			assert.ok(first.yMax > height - 25 && first.yMax <= height, `page ${i + 1}: at the visible bottom`);
		}
	});

	test("content that leaves its transformation in force does not move or shrink the stamp", async () => {
		const stamped = await pdf(await makePdf([{ strayScale: true }]));
		const words = pageWords(stamped)[0] ?? [];
		const first = words.find((w) => w.text === "Sent");
		assert.ok(first, "the stamp is there");
		assert.ok(first.yMax > 842 - 30, `at the bottom of the full page (y ${first.yMax})`);
		assert.ok(first.yMax - first.yMin > 6, "at its own size, not halved");
	});

	test("a line wider than the page shrinks to fit and stays whole", async () => {
		const long = `${"Wide stamp ".repeat(10)}end`;
		const stamped = await pdf(await makePdf([{ size: [200, 300] }]), long);
		const words = pageWords(stamped)[0] ?? [];
		assert.equal(words.filter((w) => w.text === "Wide").length, 10);
		const last = words.find((w) => w.text === "end");
		assert.ok(last && last.xMax <= 200, "the last word is on the page");
	});

	test("characters outside WinAnsi lose their accents where they can, else become ?", async () => {
		const stamped = await pdf(await makePdf([{}]), "Zoë Łukasz Dvořák 山 ﬁne");
		const text = pageTexts(stamped)[0] ?? "";
		assert.ok(text.includes("Zoë Lukasz Dvorák ? fine"), text);
	});

	test("the stamp is page content, not an annotation a reader can delete", async () => {
		const stamped = await PDFDocument.load(await pdf(await makePdf([{}])));
		const annots = stamped.getPage(0).node.Annots();
		assert.ok(!annots || annots.size() === 0, "no annotation added");
	});

	test("an encrypted PDF is refused; the same file without /Encrypt is stamped", async () => {
		await assert.rejects(pdf(handWrittenPdf(true)), (err: Error) => {
			assert.ok(err instanceof NotWatermarkableError);
			assert.match(err.message, /encrypted/);
			return true;
		});
		const plain = await pdf(handWrittenPdf(false));
		assert.ok((pageTexts(plain)[0] ?? "").includes(LINE));
	});

	const damaged: [string, () => Promise<Buffer>][] = [
		["cut in half", async () => (await makePdf([{}, {}])).subarray(0, 2000)],
		["a header and nothing else", async () => Buffer.from("%PDF-1.7\n")],
		["a header then noise", async () => Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(4000, 0x41)])],
	];
	for (const [name, make] of damaged) {
		test(`a damaged PDF (${name}) is refused`, async () => {
			await assert.rejects(pdf(await make()), NotWatermarkableError);
		});
	}
});

describe("images", () => {
	for (const format of ["jpeg", "png", "webp"] as const) {
		test(`${format}: the bottom band is stamped into the pixels, the rest is untouched, the format kept`, async () => {
			const original = await makeImage(format, 640, 480);
			const stamped = await stamper.stampFile({ bytes: original, type: `image/${format}`, line: LINE });
			const meta = await sharp(stamped).metadata();
			assert.equal(meta.format, format);
			assert.deepEqual([meta.width, meta.height], [640, 480]);
			const [a, b] = [await grayPixels(original), await grayPixels(stamped)];
			// Band: 5% of the shorter side = 24 rows at the bottom.
			const band = compareRows(a, b, 480 - 24, 480);
			assert.ok(band.meanDiff > 40, `the band differs (mean ${band.meanDiff.toFixed(1)})`);
			assert.ok(band.darkShare > 0.03, `the band holds dark text (${(band.darkShare * 100).toFixed(1)}%)`);
			const rest = compareRows(a, b, 0, 480 - 26);
			const allowed = format === "png" ? 0 : 4; // lossy formats are re-encoded
			assert.ok(rest.meanDiff <= allowed, `above the band unchanged (mean ${rest.meanDiff.toFixed(2)})`);
		});
	}

	test("the band is sized to the image: 4000×3000 gets a 150-pixel band", async () => {
		const original = await makeImage("jpeg", 4000, 3000);
		const stamped = await stamper.stampFile({ bytes: original, type: "image/jpeg", line: LINE });
		const [a, b] = [await grayPixels(original), await grayPixels(stamped)];
		assert.ok(compareRows(a, b, 3000 - 150, 3000).darkShare > 0.03, "text in the band");
		assert.ok(compareRows(a, b, 3000 - 150, 3000).meanDiff > 40, "the band differs");
		assert.ok(compareRows(a, b, 0, 3000 - 152).meanDiff < 4, "the rest does not");
	});

	test("an image turned by EXIF orientation is stamped along the bottom as displayed", async () => {
		// 300×200 stored, orientation 6: displayed 200 wide and 300 high.
		const original = await makeImage("jpeg", 300, 200, { orientation: 6 });
		const stamped = await stamper.stampFile({ bytes: original, type: "image/jpeg", line: LINE });
		const meta = await sharp(stamped).metadata();
		assert.deepEqual([meta.width, meta.height], [200, 300], "turned upright");
		assert.ok((meta.orientation ?? 1) === 1, "no orientation left to apply twice");
		const [a, b] = [await grayPixels(original), await grayPixels(stamped)];
		assert.ok(compareRows(a, b, 300 - 16, 300).meanDiff > 40, "the band is at the displayed bottom");
		assert.ok(compareRows(a, b, 0, 300 - 18).meanDiff < 4);
	});

	test("markup in the line is drawn, not interpreted", async () => {
		const original = await makeImage("png", 400, 300);
		const stamped = await stamper.stampFile({
			bytes: original,
			type: "image/png",
			line: `<span size="1">&amp;</span> <b>x</b> & "q"`,
		});
		const [a, b] = [await grayPixels(original), await grayPixels(stamped)];
		// Read as markup, the bare `&` would fail and the span would shrink the text to nothing.
		assert.ok(compareRows(a, b, 300 - 16, 300).darkShare > 0.003);
	});

	const refused: [string, string, () => Promise<Buffer>][] = [
		["a truncated JPEG", "image/jpeg", async () => (await makeImage("jpeg", 640, 480)).subarray(0, 6000)],
		["a truncated PNG", "image/png", async () => (await makeImage("png", 640, 480)).subarray(0, 6000)],
		[
			"a PNG signature over noise",
			"image/png",
			async () =>
				Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(500, 7)]),
		],
		["JPEG bytes said to be PNG", "image/png", () => makeImage("jpeg", 640, 480)],
		["an image too small for a legible stamp", "image/png", () => makeImage("png", 20, 20)],
		["a GIF (not a stamped type)", "image/gif", async () => Buffer.from("GIF89a\x01\x00\x01\x00", "latin1")],
		["a text file", "text/plain; charset=utf-8", async () => Buffer.from("hello\n")],
	];
	for (const [name, type, make] of refused) {
		test(`${name} is refused`, async () => {
			await assert.rejects(
				stamper.stampFile({ bytes: await make(), type, line: LINE }),
				NotWatermarkableError,
			);
		});
	}
});

describe("the line", () => {
	test("is one line: control characters and breaks become single spaces, the ends trimmed", () => {
		assert.equal(oneLine("  a\nb\r\n\tc\u2028d  "), "a b c d");
	});

	test("keeps WinAnsi characters and replaces the rest", () => {
		const winAnsi = new Set([..."aoLl éöß€?"].map((c) => c.codePointAt(0) as number));
		assert.equal(inCharset("aé€ő山Łł", winAnsi), "aé€o?Ll");
	});
});

describe("inputs", () => {
	test("a file over the size cap is refused before it is stamped", async () => {
		const small = createStamper({ maxBytes: 1000 });
		try {
			await assert.rejects(
				small.stampFile({ bytes: await makePdf([{}]), type: "application/pdf", line: LINE }),
				(err: Error) => err instanceof NotWatermarkableError && /over 1000 bytes/.test(err.message),
			);
		} finally {
			await small.close();
		}
	});

	test("a stream and a path are read like bytes; the caller's bytes are left intact", async () => {
		const fs = await import("node:fs");
		const os = await import("node:os");
		const path = await import("node:path");
		const original = await makePdf([{}]);
		const copy = Buffer.from(original);
		const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-stamp-")), "in.pdf");
		fs.writeFileSync(file, original);
		try {
			const fromPath = await stamper.stampFile({ path: file, type: "application/pdf", line: LINE });
			const fromStream = await stamper.stampFile({
				stream: fs.createReadStream(file),
				type: "application/pdf",
				line: LINE,
			});
			await stamper.stampFile({ bytes: original, type: "application/pdf", line: LINE });
			for (const out of [fromPath, fromStream]) assert.ok((pageTexts(out)[0] ?? "").includes(LINE));
			assert.ok(original.equals(copy), "the input buffer was not handed away or changed");
		} finally {
			fs.rmSync(path.dirname(file), { recursive: true, force: true });
		}
	});
});
