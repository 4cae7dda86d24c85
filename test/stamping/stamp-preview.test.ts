// `POST /api/stamp-preview` as a client uses it: a file record uploaded through the collections
// API, then previewed stamped. Checks the attachment (type, name, body), that the stamp is in it
// (pdftotext for PDF, pixels for images), that the vault original is unchanged, and every refusal.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { previewName, STAMP_TEXT_MAX } from "../../src/features/stamping/service.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { compareRows, grayPixels, handWrittenPdf, makeImage, makePdf, pageTexts } from "./fixtures.ts";

const RECORDS = "/api/collections/records/records";
const PREVIEW = "/api/stamp-preview";

interface FileRecord {
	id: string;
	version: number;
	file: { name: string; type: string; size: number; sha256: string };
}

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const files: Record<string, { id: string; bytes: Buffer; record: FileRecord }> = {};

// Each request from its own loopback address, so the `heavy` limit (20 a minute) is met only
// where a test means to meet it.
let addressCounter = 0;
const nextAddress = () => {
	addressCounter++;
	return `127.0.${Math.floor(addressCounter / 250) + 10}.${(addressCounter % 250) + 1}`;
};

async function upload(who: TestAccount, bytes: Buffer, name: string): Promise<FileRecord> {
	const form = new FormData();
	form.append("key", "doc");
	form.append("file", new Blob([new Uint8Array(bytes)]), name);
	const res = await t.app.inject({ method: "POST", url: RECORDS, headers: who.headers, payload: form });
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as FileRecord;
}

function preview(body: unknown, opts: { headers?: Record<string, string>; remoteAddress?: string } = {}) {
	return t.app.inject({
		method: "POST",
		url: PREVIEW,
		headers: { "content-type": "application/json", ...(opts.headers ?? a.headers) },
		payload: typeof body === "string" ? body : JSON.stringify(body),
		remoteAddress: opts.remoteAddress ?? nextAddress(),
	});
}

function assertProblem(
	res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
	status: number,
	code: string,
) {
	assert.equal(res.statusCode, status, JSON.stringify(res.json()));
	assert.match(String(res.headers["content-type"]), /^application\/problem\+json/);
	assert.equal((res.json() as { code: string }).code, code);
}

before(async () => {
	t = await makeApp();
	a = await buildAccount(t.app);
	b = await buildAccount(t.app);
	const add = async (key: string, bytes: Buffer, name: string, who = a) => {
		const record = await upload(who, bytes, name);
		files[key] = { id: record.id, bytes, record };
	};
	await add("pdf", await makePdf([{}, { rotate: 90 }, {}]), "lease.pdf");
	await add("jpeg", await makeImage("jpeg", 800, 600), "photo.jpeg");
	await add("png", await makeImage("png", 400, 300), "Überweisung März.png");
	await add("webp", await makeImage("webp", 500, 400), "id card.webp");
	await add("misnamed", await makeImage("jpeg", 300, 200), "scan.png");
	await add("bare", await makePdf([{}]), "contract");
	await add("text", Buffer.from("just some notes\n"), "notes.txt");
	await add("gif", Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"), "dot.gif");
	await add("damaged", (await makePdf([{}, {}])).subarray(0, 1500), "broken.pdf");
	await add("encrypted", handWrittenPdf(true), "locked.pdf");
	await add("others", await makePdf([{}]), "theirs.pdf", b);
});
after(() => t.close());

const id = (key: string) => files[key]?.id as string;

describe("a stamped copy", () => {
	test("of a PDF: every page carries `<text> #preview`, as an attachment `<name>-preview.pdf`", async () => {
		const res = await preview({ record: id("pdf"), text: "  For the landlord only  " });
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.headers["content-type"], "application/pdf");
		assert.equal(
			res.headers["content-disposition"],
			`attachment; filename="lease-preview.pdf"; filename*=UTF-8''lease-preview.pdf`,
		);
		assert.equal(res.headers["cache-control"], "private, no-store");
		assert.equal(Number(res.headers["content-length"]), res.rawPayload.length);
		const doc = await PDFDocument.load(res.rawPayload);
		assert.equal(doc.getPageCount(), 3);
		const texts = pageTexts(res.rawPayload);
		assert.equal(texts.length, 3);
		for (const text of texts) assert.ok(text.includes("For the landlord only #preview"), text);
	});

	for (const [key, format, name] of [
		["jpeg", "jpeg", "photo-preview.jpeg"],
		["png", "png", "Überweisung März-preview.png"],
		["webp", "webp", "id card-preview.webp"],
	] as const) {
		test(`of a ${format} image: the band is in the pixels, the format and size kept (${name})`, async () => {
			const res = await preview({ record: id(key), text: "Copy for Dana" });
			assert.equal(res.statusCode, 200, res.body);
			assert.equal(res.headers["content-type"], `image/${format}`);
			const disposition = String(res.headers["content-disposition"]);
			assert.ok(disposition.startsWith("attachment; "), disposition);
			assert.ok(
				disposition.endsWith(`filename*=UTF-8''${encodeURIComponent(name)}`),
				`RFC 6266 filename* carries ${name}: ${disposition}`,
			);
			const original = await grayPixels(files[key]?.bytes as Buffer);
			const stamped = await grayPixels(res.rawPayload);
			assert.equal((await sharp(res.rawPayload).metadata()).format, format);
			assert.deepEqual([stamped.width, stamped.height], [original.width, original.height]);
			const band = Math.max(16, Math.round(Math.min(original.width, original.height) * 0.05));
			const h = original.height;
			assert.ok(compareRows(original, stamped, h - band, h).meanDiff > 40, "the band is stamped");
			assert.ok(compareRows(original, stamped, 0, h - band - 2).meanDiff < 4, "the rest is the original");
		});
	}

	test("a non-ASCII name has an ASCII fallback and the exact name in filename*", async () => {
		const res = await preview({ record: id("png"), text: "x" });
		assert.equal(
			res.headers["content-disposition"],
			`attachment; filename="_berweisung M_rz-preview.png"; filename*=UTF-8''%C3%9Cberweisung%20M%C3%A4rz-preview.png`,
		);
	});

	test("the extension follows the bytes: scan.png holding a JPEG is scan-preview.jpg; no extension gets one", async () => {
		const misnamed = await preview({ record: id("misnamed"), text: "x" });
		assert.equal(misnamed.headers["content-type"], "image/jpeg");
		assert.match(String(misnamed.headers["content-disposition"]), /filename="scan-preview\.jpg"/);
		const bare = await preview({ record: id("bare"), text: "x" });
		assert.match(String(bare.headers["content-disposition"]), /filename="contract-preview\.pdf"/);
	});

	test("preview names: the extension kept when it fits the type, else the type's own", () => {
		const cases: [string, string, string][] = [
			["lease.pdf", "application/pdf", "lease-preview.pdf"],
			["Photo.JPG", "image/jpeg", "Photo-preview.JPG"],
			["scan.png", "image/jpeg", "scan-preview.jpg"],
			["report.final.pdf", "application/pdf", "report.final-preview.pdf"],
			["notes.v2", "application/pdf", "notes.v2-preview.pdf"],
			["contract", "application/pdf", "contract-preview.pdf"],
			["image.webp", "image/webp", "image-preview.webp"],
		];
		for (const [name, type, expected] of cases) assert.equal(previewName(name, type), expected, name);
	});

	test(`text of exactly ${STAMP_TEXT_MAX} characters (code points, emoji included) is accepted`, async () => {
		for (const text of [
			"x".repeat(STAMP_TEXT_MAX),
			"😀".repeat(STAMP_TEXT_MAX),
			` ${"y".repeat(STAMP_TEXT_MAX)} `,
		]) {
			const res = await preview({ record: id("bare"), text });
			assert.equal(res.statusCode, 200, `${text.length} UTF-16 units: ${res.body.slice(0, 200)}`);
		}
	});

	test("the vault original is unchanged: same bytes, same sha256, same version", async () => {
		for (const key of ["pdf", "jpeg"]) {
			const res = await preview({ record: id(key), text: "Do not change me" });
			assert.equal(res.statusCode, 200);
			const token = (
				await t.app.inject({ method: "POST", url: "/api/files/token", headers: a.headers })
			).json().token as string;
			const served = await t.app.inject({ url: `/api/files/${id(key)}?token=${token}` });
			assert.ok(served.rawPayload.equals(files[key]?.bytes as Buffer), "the vault serves the original bytes");
			assert.equal(
				crypto.createHash("sha256").update(served.rawPayload).digest("hex"),
				files[key]?.record.file.sha256,
			);
			const record = (await t.app.inject({ url: `${RECORDS}/${id(key)}`, headers: a.headers })).json();
			assert.equal(record.version, files[key]?.record.version);
			assert.equal(record.file.sha256, files[key]?.record.file.sha256);
			assert.ok(!served.rawPayload.equals(res.rawPayload), "the preview is a different file");
		}
	});
});

describe("with a share (`link`)", () => {
	const LINKS = "/api/collections/links/records";
	const share = async (who: TestAccount, body: Record<string, unknown>) => {
		const res = await t.app.inject({ method: "POST", url: LINKS, headers: who.headers, payload: body });
		assert.equal(res.statusCode, 200, res.body);
		return (res.json() as { id: string }).id;
	};
	let stamped: string;
	let viaSection: string;
	let unstamped: string;
	let theirs: string;
	before(async () => {
		stamped = await share(a, {
			label: "Flat",
			records: [id("pdf"), id("jpeg")],
			stamp: "Rental application, 5 Main St",
		});
		const section = await t.app.inject({
			method: "POST",
			url: "/api/collections/sections/records",
			headers: a.headers,
			payload: { key: "papers", name: "Papers" },
		});
		assert.equal(section.statusCode, 200, section.body);
		const moved = await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${id("bare")}`,
			headers: a.headers,
			payload: { section: section.json().id },
		});
		assert.equal(moved.statusCode, 200, moved.body);
		viaSection = await share(a, { sections: [section.json().id], stamp: "Through a section" });
		unstamped = await share(a, { records: [id("pdf")] });
		theirs = await share(b, { records: [id("others")], stamp: "Not yours" });
	});

	test("the share's stamp is used, with #preview, and `text` is ignored even when it would be refused", async () => {
		for (const text of [undefined, "", "two\nlines", "ignored text"]) {
			const res = await preview({ record: id("pdf"), link: stamped, text });
			assert.equal(res.statusCode, 200, res.body);
			assert.match(String(res.headers["content-disposition"]), /filename="lease-preview\.pdf"/);
			const pages = pageTexts(res.rawPayload);
			assert.equal(pages.length, 3, "every page of lease.pdf is in the preview");
			for (const page of pages) {
				assert.ok(page.includes("Rental application, 5 Main St #preview"), page);
				assert.ok(!page.includes("ignored text"));
			}
		}
		const image = await preview({ record: id("jpeg"), link: stamped });
		assert.equal(image.statusCode, 200, image.body);
		assert.equal(image.headers["content-type"], "image/jpeg");
	});

	test("a record granted through a section is previewed with that share's stamp", async () => {
		const res = await preview({ record: id("bare"), link: viaSection });
		assert.equal(res.statusCode, 200, res.body);
		const pages = pageTexts(res.rawPayload);
		assert.equal(pages.length, 1);
		assert.ok((pages[0] ?? "").includes("Through a section #preview"));
	});

	test("another workspace's share, or an unknown one: 404 link_not_found", async () => {
		assertProblem(await preview({ record: id("pdf"), link: theirs }), 404, "link_not_found");
		assertProblem(await preview({ record: id("pdf"), link: "nosuchlink000000000" }), 404, "link_not_found");
		// The share is b's own, but the record is a's: no such file record for b.
		assertProblem(
			await preview({ record: id("pdf"), link: theirs }, { headers: b.headers }),
			404,
			"record_not_found",
		);
	});

	test("a share that does not grant the record: 404 record_not_found", async () => {
		assertProblem(await preview({ record: id("png"), link: stamped }), 404, "record_not_found");
	});

	test("a share without a stamp has no line to preview: 400 watermark_text_invalid", async () => {
		assertProblem(
			await preview({ record: id("pdf"), link: unstamped, text: "ignored" }),
			400,
			"watermark_text_invalid",
		);
	});
});

describe("refusals", () => {
	const long = "z".repeat(STAMP_TEXT_MAX + 1);
	const rows: [string, () => unknown, number, string, Record<string, string>?][] = [
		["no text and no link", () => ({ record: id("pdf") }), 400, "watermark_text_invalid"],
		["empty text", () => ({ record: id("pdf"), text: "" }), 400, "watermark_text_invalid"],
		["blank text", () => ({ record: id("pdf"), text: " \t  " }), 400, "watermark_text_invalid"],
		[
			`${STAMP_TEXT_MAX + 1} characters`,
			() => ({ record: id("pdf"), text: long }),
			400,
			"watermark_text_invalid",
		],
		["two lines", () => ({ record: id("pdf"), text: "first\nsecond" }), 400, "watermark_text_invalid"],
		[
			"a carriage return",
			() => ({ record: id("pdf"), text: "first\rsecond" }),
			400,
			"watermark_text_invalid",
		],
		[
			"a line separator",
			() => ({ record: id("pdf"), text: "first\u2028second" }),
			400,
			"watermark_text_invalid",
		],
		["a control character", () => ({ record: id("pdf"), text: "bell\u0007" }), 400, "watermark_text_invalid"],
		["text that is not a string", () => ({ record: id("pdf"), text: 5 }), 400, "validation_failed"],
		["an unknown member", () => ({ record: id("pdf"), text: "x", stamp: "y" }), 400, "validation_failed"],
		["no record", () => ({ text: "x" }), 400, "validation_failed"],
		["malformed JSON", () => '{"record": ', 400, "invalid_json"],
		["an unknown record", () => ({ record: "nosuchrecord0000000", text: "x" }), 404, "record_not_found"],
		["another workspace's file", () => ({ record: id("others"), text: "x" }), 404, "record_not_found"],
		["a text file", () => ({ record: id("text"), text: "x" }), 415, "file_not_watermarkable"],
		["a GIF", () => ({ record: id("gif"), text: "x" }), 415, "file_not_watermarkable"],
		["a damaged PDF", () => ({ record: id("damaged"), text: "x" }), 415, "file_not_watermarkable"],
		["an encrypted PDF", () => ({ record: id("encrypted"), text: "x" }), 415, "file_not_watermarkable"],
		["no credentials", () => ({ record: id("pdf"), text: "x" }), 401, "not_authenticated", {}],
		[
			"a Basic Authorization header",
			() => ({ record: id("pdf"), text: "x" }),
			401,
			"not_authenticated",
			{ authorization: "Basic YTpi" },
		],
		[
			"a stale session token",
			() => ({ record: id("pdf"), text: "x" }),
			401,
			"not_authenticated",
			{ authorization: "Bearer not-a-session" },
		],
	];
	for (const [name, body, status, code, headers] of rows) {
		test(`${name}: ${status} ${code}`, async () => {
			assertProblem(await preview(body(), headers ? { headers } : {}), status, code);
		});
	}

	test("a value record: 404 record_not_found (only file records are stamped)", async () => {
		const res = await t.app.inject({
			method: "POST",
			url: RECORDS,
			headers: a.headers,
			payload: { key: "iban", value: "DE00 0000" },
		});
		assert.equal(res.statusCode, 200, res.body);
		assertProblem(await preview({ record: res.json().id, text: "x" }), 404, "record_not_found");
	});

	test("a file record whose bytes are gone: 404 record_not_found", async () => {
		const record = await upload(a, await makePdf([{}]), "gone.pdf");
		const row = await t.app.store.db
			.selectFrom("records")
			.select("file_key")
			.where("id", "=", record.id)
			.executeTakeFirstOrThrow();
		await t.app.blobs.delete(row.file_key as string);
		assertProblem(await preview({ record: record.id, text: "x" }), 404, "record_not_found");
	});

	test("an API key never opens the vault: 403 api_key_scope_missing naming record:read", async () => {
		const key = buildApiKey(t.app, a);
		const res = await preview({ record: id("pdf"), text: "x" }, { headers: key.headers });
		assertProblem(res, 403, "api_key_scope_missing");
		assert.equal(res.json().scope, "record:read");
	});

	test("the heavy limit: the 21st call in a minute from one address is 429 with Retry-After", async () => {
		const remoteAddress = "127.0.200.1";
		for (let i = 0; i < 20; i++) {
			const res = await preview({ record: id("pdf"), text: "" }, { remoteAddress });
			assert.equal(res.statusCode, 400, `call ${i + 1} is answered`);
		}
		const res = await preview({ record: id("pdf"), text: "x" }, { remoteAddress });
		assertProblem(res, 429, "rate_limited");
		assert.ok(Number(res.headers["retry-after"]) > 0);
		assert.equal(
			(await preview({ record: id("bare"), text: "x" })).statusCode,
			200,
			"another address is served",
		);
	});
});
