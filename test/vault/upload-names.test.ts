// How an upload's file name is read from its part's Content-Disposition: `filename`, or only
// `filename*` (RFC 5987/6266, RFC 8187 encoding, as some clients send non-ASCII names), always a
// file record under the decoded name; a part the multipart parser would drop unread is refused
// with a 400 instead of leaving a record without its file.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { multipartBoundary, PartCounter } from "../../src/lib/part-count.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";

const RECORDS = "/api/collections/records/records";
const BOUNDARY = "----uploadNamesBoundary";

let t: TestApp;
let a: TestAccount;
before(async () => {
	t = await makeApp();
	a = await buildAccount(t.app);
});
after(() => t.close());

/** A multipart body written by hand, so the part headers are exactly the ones under test. */
function body(key: string, fileHeaders: string, bytes = Buffer.from("%PDF-1.4 résumé")): Buffer {
	return Buffer.concat([
		Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="key"\r\n\r\n${key}\r\n`),
		Buffer.from(`--${BOUNDARY}\r\n${fileHeaders}\r\n\r\n`),
		bytes,
		Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
	]);
}

function upload(payload: Buffer) {
	return t.app.inject({
		method: "POST",
		url: RECORDS,
		headers: { ...a.headers, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
		payload,
	});
}

async function stored(): Promise<{ records: number; blobs: number }> {
	const list = await t.app.inject({ method: "GET", url: `${RECORDS}?skipTotal=false`, headers: a.headers });
	let blobs = 0;
	for await (const _ of t.app.blobs.list()) blobs += 1;
	return { records: list.json().totalItems, blobs };
}

describe("a file named only by filename*", () => {
	test("is stored as a file under the decoded UTF-8 name", async () => {
		const res = await upload(
			body(
				"cv",
				`Content-Disposition: form-data; name="file"; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.pdf\r\nContent-Type: application/pdf`,
			),
		);
		assert.equal(res.statusCode, 200, res.body);
		const record = res.json();
		assert.equal(record.type, "file");
		assert.equal(record.value, null);
		assert.equal(record.name, "naïve résumé.pdf");
		assert.deepEqual(
			{ name: record.file.name, type: record.file.type, size: record.file.size },
			{ name: "naïve résumé.pdf", type: "application/pdf", size: Buffer.byteLength("%PDF-1.4 résumé") },
		);
	});

	test("without a part Content-Type, with a language tag and a lower-case charset", async () => {
		const res = await upload(
			body("cv-fr", `Content-Disposition: form-data; name="file"; filename*=utf-8'fr'C%C3%A9cile.pdf`),
		);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().file.name, "Cécile.pdf");
	});

	test("in ISO-8859-1", async () => {
		const res = await upload(
			body("cv-latin", `Content-Disposition: form-data; name="file"; filename*=ISO-8859-1''na%EFve.pdf`),
		);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().file.name, "naïve.pdf");
	});

	test("a part with both names is stored under filename (the parser reads the plain one)", async () => {
		const res = await upload(
			body(
				"cv-both",
				`Content-Disposition: form-data; name="file"; filename="naive.pdf"; filename*=UTF-8''na%C3%AFve.pdf`,
			),
		);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().file.name, "naive.pdf");
	});

	test("an encoded NUL or path in the name is dropped, not stored", async () => {
		const res = await upload(
			body("cv-nul", `Content-Disposition: form-data; name="file"; filename*=UTF-8''..%2F..%2Fa%00b.pdf`),
		);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().file.name, "ab.pdf");
	});
});

describe("a part the multipart parser would drop is refused, and nothing is stored", () => {
	const dropped: [string, string][] = [
		[
			"a line break encoded in filename*",
			`Content-Disposition: form-data; name="file"; filename*=UTF-8''a%0Ab.pdf`,
		],
		[
			"a carriage return encoded in filename*",
			`Content-Disposition: form-data; name="file"; filename*=UTF-8''a%0Db.pdf`,
		],
		["a disposition other than form-data", `Content-Disposition: attachment; name="file"; filename="a.pdf"`],
		["no Content-Disposition at all", "Content-Type: application/pdf"],
	];
	for (const [name, headers] of dropped) {
		test(name, async () => {
			const before = await stored();
			const res = await upload(body(`dropped-${before.records}`, headers));
			assert.equal(res.statusCode, 400, res.body);
			assert.equal(res.json().code, "bad_request");
			assert.match(res.json().detail, /Malformed multipart body/);
			assert.deepEqual(await stored(), before);
		});
	}
});

describe("the part count beside the parser", () => {
	test("is the same however the body is cut into chunks", () => {
		const payload = body("k", `Content-Disposition: form-data; name="file"; filename="a.pdf"`);
		for (let cut = 0; cut <= payload.length; cut++) {
			for (const step of [1, 7, payload.length]) {
				const counter = new PartCounter(BOUNDARY);
				counter.push(payload.subarray(0, cut));
				for (let at = cut; at < payload.length; at += step) counter.push(payload.subarray(at, at + step));
				assert.equal(counter.parts, 2, `cut at ${cut}, then chunks of ${step}`);
			}
		}
	});

	test("reads the boundary quoted or not", () => {
		assert.equal(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`), BOUNDARY);
		assert.equal(multipartBoundary('multipart/form-data; boundary="a b:c"; charset=utf-8'), "a b:c");
		assert.equal(multipartBoundary("multipart/form-data"), undefined);
	});
});
