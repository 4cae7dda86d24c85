// Range requests on the owner's file downloads (RFC 9110 §14), over a real socket on loopback:
// curl (a client we did not write) fetching a range and resuming a cut-off download, fetch for the
// edge cases, the same through the S3 backend; and a share's one-time downloads, which answer
// `Accept-Ranges: none` and the whole body, their token spent (docs/api.md "Range requests").
// The blob store is the real one, wrapped to record what each request read from it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Transform } from "node:stream";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { type App, buildApp } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import type { BlobStore } from "../../src/lib/blob-store.ts";
import { openBlobStore } from "../../src/lib/blob-store-config.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { testEnv } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { startS3, type TestS3 } from "../helpers/s3.ts";
import { createLink, RECORDS, resolveLink, uploadFile } from "../shares/helpers.ts";

const run = promisify(execFile);
const sha = (b: Uint8Array) => crypto.createHash("sha256").update(b).digest("hex");
const SIZE = 1024 * 1024 + 123;

/** One `get` from the blob store: the range asked for and the bytes that came out. */
interface Read {
	range: { start: number; end: number } | undefined;
	bytes: number;
}

function recording(store: BlobStore, reads: Read[]): BlobStore {
	return {
		...store,
		async get(key, range) {
			const source = await store.get(key, range);
			const read: Read = { range: range && { start: range.start, end: range.end }, bytes: 0 };
			reads.push(read);
			const counter = new Transform({
				transform(chunk: Buffer, _enc, done) {
					read.bytes += chunk.length;
					done(null, chunk);
				},
			});
			source.once("error", (err) => counter.destroy(err));
			return source.pipe(counter);
		},
	};
}

interface Served {
	app: App;
	base: string;
	reads: Read[];
	owner: TestAccount;
	close(): Promise<void>;
}

/** The app listening on 127.0.0.1 with an ephemeral port, its blob store recorded. */
async function serve(overrides: Partial<Config>, clock?: ManualClock): Promise<Served> {
	const env = testEnv(overrides);
	const reads: Read[] = [];
	const app = await buildApp(env.config, { blobs: recording(openBlobStore(env.config), reads), clock });
	await app.listen({ host: "127.0.0.1", port: 0 });
	const { port } = app.server.address() as AddressInfo;
	return {
		app,
		base: `http://127.0.0.1:${port}`,
		reads,
		owner: await buildAccount(app),
		async close() {
			await app.close();
			await env.dispose();
		},
	};
}

interface OwnedFile {
	id: string;
	bytes: Buffer;
	url: string;
}

async function fileToken(s: Served): Promise<string> {
	const res = await s.app.inject({ method: "POST", url: "/api/files/token", headers: s.owner.headers });
	assert.equal(res.statusCode, 200, res.body);
	return (res.json() as { token: string }).token;
}

async function ownedFile(s: Served, bytes: Buffer, name = "scan.bin"): Promise<OwnedFile> {
	const rec = await uploadFile(s.app, s.owner, { key: "scan" }, { bytes, name });
	assert.equal(rec.file.sha256, sha(bytes));
	return { id: rec.id, bytes, url: `${s.base}/api/files/${rec.id}?token=${await fileToken(s)}` };
}

/** GET (or HEAD) over the socket, with what the blob store read for it. */
async function get(s: Served, url: string, headers: Record<string, string> = {}, method = "GET") {
	const before = s.reads.length;
	const res = await fetch(url, { method, headers });
	const body = Buffer.from(await res.arrayBuffer());
	return { res, body, reads: s.reads.slice(before) };
}

function curl(...args: string[]) {
	return run("curl", ["--silent", "--show-error", "--fail", ...args]);
}

let dir: string;
before(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-range-"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** curl against the owner's route: a range, and a resumed download. */
function curlTests(backend: string, served: () => Served, file: () => OwnedFile) {
	test(`curl -r 0-99 gets the first 100 bytes as a 206, and only they are read (${backend})`, async () => {
		const s = served();
		const { bytes, url } = file();
		const out = path.join(dir, `${backend}-first.bin`);
		const before = s.reads.length;
		const { stdout } = await curl("-r", "0-99", "-o", out, "-w", "%{http_code}", url);
		assert.equal(stdout, "206");
		assert.deepEqual(fs.readFileSync(out), bytes.subarray(0, 100));
		assert.deepEqual(s.reads.slice(before), [{ range: { start: 0, end: 99 }, bytes: 100 }]);
	});

	test(`curl -C - resumes a download cut off part-way: only the rest is sent and the file is whole (${backend})`, async () => {
		const s = served();
		const { bytes, url } = file();
		const whole = path.join(dir, `${backend}-whole.bin`);
		const partial = path.join(dir, `${backend}-partial.bin`);
		fs.writeFileSync(whole, bytes);
		const cut = 300_001;
		fs.writeFileSync(partial, bytes.subarray(0, cut));
		const before = s.reads.length;
		const { stdout } = await curl("-C", "-", "-o", partial, "-w", "%{http_code} %{size_download}", url);
		assert.equal(stdout, `206 ${bytes.length - cut}`);
		await run("cmp", [whole, partial]); // rejects when the files differ
		assert.deepEqual(s.reads.slice(before), [
			{ range: { start: cut, end: bytes.length - 1 }, bytes: bytes.length - cut },
		]);
	});
}

describe("owner downloads on the folder store", () => {
	const clock = new ManualClock();
	// 250 ms into a second: Last-Modified (whole seconds) must still name it exactly.
	const t0 = Math.floor(Date.now() / 1000) * 1000 + 250;
	let s: Served;
	let file: OwnedFile;
	let etag: string;
	let lastModified: string;

	before(async () => {
		clock.set(t0);
		s = await serve({}, clock);
		file = await ownedFile(s, crypto.randomBytes(SIZE));
		etag = `"${sha(file.bytes)}"`;
		lastModified = new Date(t0).toUTCString();
	});
	after(() => s?.close());

	curlTests(
		"folder",
		() => s,
		() => file,
	);

	test("the whole file carries Accept-Ranges, the strong ETag of its bytes and Last-Modified", async () => {
		const { res, body, reads } = await get(s, file.url);
		assert.equal(res.status, 200);
		assert.equal(res.headers.get("accept-ranges"), "bytes");
		assert.equal(res.headers.get("etag"), etag);
		assert.equal(res.headers.get("last-modified"), lastModified);
		assert.equal(res.headers.get("content-range"), null);
		assert.equal(res.headers.get("content-length"), String(SIZE));
		assert.equal(sha(body), sha(file.bytes));
		assert.deepEqual(reads, [{ range: undefined, bytes: SIZE }]);
	});

	type Expect = { status: 206; first: number; last: number } | { status: 200 } | { status: 416 };
	const rows: [name: string, headers: () => Record<string, string>, expect: Expect][] = [
		["the first 100 bytes", () => ({ range: "bytes=0-99" }), { status: 206, first: 0, last: 99 }],
		["a middle range", () => ({ range: "bytes=1000-1999" }), { status: 206, first: 1000, last: 1999 }],
		["one byte", () => ({ range: "bytes=0-0" }), { status: 206, first: 0, last: 0 }],
		[
			"the last byte",
			() => ({ range: `bytes=${SIZE - 1}-` }),
			{ status: 206, first: SIZE - 1, last: SIZE - 1 },
		],
		[
			"a suffix: the last 500 bytes",
			() => ({ range: "bytes=-500" }),
			{ status: 206, first: SIZE - 500, last: SIZE - 1 },
		],
		[
			"open-ended: from an offset to the end",
			() => ({ range: `bytes=${SIZE - 70_000}-` }),
			{ status: 206, first: SIZE - 70_000, last: SIZE - 1 },
		],
		[
			"a last position past the end is cut to the end",
			() => ({ range: `bytes=${SIZE - 10}-${SIZE + 5000}` }),
			{ status: 206, first: SIZE - 10, last: SIZE - 1 },
		],
		[
			"a suffix longer than the file is the whole file as a range",
			() => ({ range: `bytes=-${SIZE + 1}` }),
			{ status: 206, first: 0, last: SIZE - 1 },
		],
		["the unit in capitals", () => ({ range: "Bytes=5-9" }), { status: 206, first: 5, last: 9 }],
		["a range starting at the end: 416", () => ({ range: `bytes=${SIZE}-` }), { status: 416 }],
		["a range far past the end: 416", () => ({ range: `bytes=${SIZE * 10}-${SIZE * 11}` }), { status: 416 }],
		["a suffix of zero bytes: 416", () => ({ range: "bytes=-0" }), { status: 416 }],
		["a last position before the first: 416", () => ({ range: "bytes=9-5" }), { status: 416 }],
		["two ranges: ignored, the whole file", () => ({ range: "bytes=0-9,20-29" }), { status: 200 }],
		["overlapping ranges: ignored", () => ({ range: "bytes=0-99,50-149" }), { status: 200 }],
		[
			"two unsatisfiable ranges: ignored, not 416",
			() => ({ range: `bytes=${SIZE}-,${SIZE + 1}-` }),
			{ status: 200 },
		],
		["another unit: ignored", () => ({ range: "items=0-9" }), { status: 200 }],
		["no unit: ignored", () => ({ range: "0-99" }), { status: 200 }],
		["not numbers: ignored", () => ({ range: "bytes=abc-def" }), { status: 200 }],
		["no range-spec: ignored", () => ({ range: "bytes=" }), { status: 200 }],
		[
			"If-Range with the ETag: the range",
			() => ({ range: "bytes=10-19", "if-range": etag }),
			{ status: 206, first: 10, last: 19 },
		],
		[
			"If-Range with the Last-Modified date: the range",
			() => ({ range: "bytes=10-19", "if-range": lastModified }),
			{ status: 206, first: 10, last: 19 },
		],
		[
			"If-Range with another ETag: the whole file",
			() => ({ range: "bytes=10-19", "if-range": `"${"0".repeat(64)}"` }),
			{ status: 200 },
		],
		[
			"If-Range with our ETag marked weak: the whole file",
			() => ({ range: "bytes=10-19", "if-range": `W/${etag}` }),
			{ status: 200 },
		],
		[
			"If-Range with a date a second earlier: the whole file",
			() => ({ range: "bytes=10-19", "if-range": new Date(t0 - 1000).toUTCString() }),
			{ status: 200 },
		],
		[
			"If-Range that is neither: the whole file",
			() => ({ range: "bytes=10-19", "if-range": "yesterday" }),
			{ status: 200 },
		],
		[
			"If-Range that does not hold wins over an unsatisfiable range: 200, not 416",
			() => ({ range: `bytes=${SIZE}-`, "if-range": `"${"0".repeat(64)}"` }),
			{ status: 200 },
		],
		["If-Range without Range: the whole file", () => ({ "if-range": etag }), { status: 200 }],
	];

	for (const [name, headers, expect] of rows) {
		test(`Range: ${name}`, async () => {
			const { res, body, reads } = await get(s, file.url, headers());
			assert.equal(res.status, expect.status, body.toString("utf8").slice(0, 300));
			if (expect.status === 416) {
				assert.equal(res.headers.get("content-range"), `bytes */${SIZE}`);
				assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
				const problem = JSON.parse(body.toString("utf8"));
				assert.equal(problem.code, "range_not_satisfiable");
				assert.equal(problem.status, 416);
				assert.deepEqual(reads, [], "nothing is read for a 416");
				return;
			}
			assert.equal(res.headers.get("accept-ranges"), "bytes");
			assert.equal(res.headers.get("etag"), etag);
			if (expect.status === 206) {
				const { first, last } = expect;
				assert.equal(res.headers.get("content-range"), `bytes ${first}-${last}/${SIZE}`);
				assert.equal(res.headers.get("content-length"), String(last - first + 1));
				assert.ok(body.equals(file.bytes.subarray(first, last + 1)), "the bytes of the range");
				assert.deepEqual(reads, [{ range: { start: first, end: last }, bytes: last - first + 1 }]);
			} else {
				assert.equal(res.headers.get("content-range"), null);
				assert.equal(res.headers.get("content-length"), String(SIZE));
				assert.equal(sha(body), sha(file.bytes));
				assert.deepEqual(reads, [{ range: undefined, bytes: SIZE }]);
			}
		});
	}

	test("HEAD answers the whole file's headers, reads nothing, and ignores Range", async () => {
		for (const headers of [{}, { range: "bytes=0-99" }] as Record<string, string>[]) {
			const { res, body, reads } = await get(s, file.url, headers, "HEAD");
			assert.equal(res.status, 200);
			assert.equal(res.headers.get("content-length"), String(SIZE));
			assert.equal(res.headers.get("content-range"), null);
			assert.equal(res.headers.get("accept-ranges"), "bytes");
			assert.equal(res.headers.get("etag"), etag);
			assert.equal(res.headers.get("last-modified"), lastModified);
			assert.equal(body.length, 0);
			assert.deepEqual(reads, [], "HEAD opens no blob");
		}
		const after = await get(s, file.url, { range: "bytes=0-9" });
		assert.equal(after.res.status, 206, "the token still works after HEAD");
	});

	test("a Range without a token is 401 and reads nothing", async () => {
		const { res, body, reads } = await get(s, `${s.base}/api/files/${file.id}`, { range: "bytes=0-9" });
		assert.equal(res.status, 401);
		assert.equal(JSON.parse(body.toString("utf8")).code, "file_download_invalid");
		assert.deepEqual(reads, []);
	});

	test("bytes gone from the store: a ranged GET is a plain 404 problem, none of the file's headers", async () => {
		const gone = await ownedFile(s, crypto.randomBytes(1000), "gone.bin");
		const row = await s.app.store.db
			.selectFrom("records")
			.select("file_key")
			.where("id", "=", gone.id)
			.executeTakeFirstOrThrow();
		await s.app.blobs.delete(row.file_key as string);
		const { res, body } = await get(s, gone.url, { range: "bytes=0-99" });
		assert.equal(res.status, 404);
		assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
		assert.equal(JSON.parse(body.toString("utf8")).code, "not_found");
		for (const name of ["content-range", "etag", "last-modified", "accept-ranges", "content-disposition"])
			assert.equal(res.headers.get(name), null, name);
	});

	test("an empty file: a first-last range is 416 bytes */0, a suffix gets the empty file", async () => {
		const empty = await ownedFile(s, Buffer.alloc(0), "empty.bin");
		const ranged = await get(s, empty.url, { range: "bytes=0-" });
		assert.equal(ranged.res.status, 416);
		assert.equal(ranged.res.headers.get("content-range"), "bytes */0");
		const suffix = await get(s, empty.url, { range: "bytes=-5" });
		assert.equal(suffix.res.status, 200);
		assert.equal(suffix.res.headers.get("content-length"), "0");
		assert.equal(suffix.body.length, 0);
	});

	test("new bytes under the same record: If-Range with the old ETag or date gets the new file whole", async () => {
		const old = await ownedFile(s, crypto.randomBytes(4096), "replaced.bin");
		const first = await get(s, old.url, { range: "bytes=0-99" });
		const oldTag = first.res.headers.get("etag") ?? "";
		const oldDate = first.res.headers.get("last-modified") ?? "";
		assert.equal(first.res.status, 206);

		clock.advance(5_000);
		const next = crypto.randomBytes(5000);
		const f = new FormData();
		f.append("file", new Blob([new Uint8Array(next)]), "replaced.bin");
		const patch = await s.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${old.id}`,
			headers: s.owner.headers,
			payload: f,
		});
		assert.equal(patch.statusCode, 200, patch.body);

		for (const ifRange of [oldTag, oldDate]) {
			const { res, body } = await get(s, old.url, { range: "bytes=100-", "if-range": ifRange });
			assert.equal(res.status, 200, `If-Range: ${ifRange}`);
			assert.equal(res.headers.get("etag"), `"${sha(next)}"`);
			assert.equal(res.headers.get("last-modified"), new Date(clock.now()).toUTCString());
			assert.ok(body.equals(next), "the new bytes, whole");
		}
	});

	test("renaming keeps the ETag (its range is still served) and moves Last-Modified (the old date is not)", async () => {
		const f = await ownedFile(s, crypto.randomBytes(2048), "named.bin");
		const oldDate = (await get(s, f.url, {}, "HEAD")).res.headers.get("last-modified") ?? "";
		clock.advance(3_000);
		const rename = await s.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${f.id}`,
			headers: s.owner.headers,
			payload: { name: "Renamed" },
		});
		assert.equal(rename.statusCode, 200, rename.body);
		const byTag = await get(s, f.url, { range: "bytes=0-9", "if-range": `"${sha(f.bytes)}"` });
		assert.equal(byTag.res.status, 206);
		assert.ok(byTag.body.equals(f.bytes.subarray(0, 10)));
		const byDate = await get(s, f.url, { range: "bytes=0-9", "if-range": oldDate });
		assert.equal(byDate.res.status, 200);
		assert.equal(byDate.body.length, f.bytes.length);
	});

	describe("share downloads: Accept-Ranges none, Range ignored, token spent", () => {
		async function resolved() {
			const link = await createLink(s.app, s.owner, { records: [file.id] });
			const res = await resolveLink(s.app, link.slug);
			assert.equal(res.statusCode, 200, res.body);
			const body = res.json() as { records: { id: string; downloadToken?: string }[]; archiveToken?: string };
			const download = body.records.find((r) => r.id === file.id)?.downloadToken ?? "";
			return {
				link,
				fileUrl: `${s.base}/api/public/links/${link.slug}/files/${file.id}?dl=${download}`,
				archiveUrl: `${s.base}/api/public/links/${link.slug}/archive?dl=${body.archiveToken ?? ""}`,
			};
		}

		test("a file with Range and a holding If-Range: 200, the whole file; then the token is spent", async () => {
			const { fileUrl } = await resolved();
			const { res, body, reads } = await get(s, fileUrl, { range: "bytes=0-99", "if-range": etag });
			assert.equal(res.status, 200);
			assert.equal(res.headers.get("accept-ranges"), "none");
			assert.equal(res.headers.get("content-range"), null);
			assert.equal(res.headers.get("content-length"), String(SIZE));
			assert.equal(sha(body), sha(file.bytes));
			assert.deepEqual(reads, [{ range: undefined, bytes: SIZE }], "the whole blob, not a range");
			const again = await get(s, fileUrl, { range: "bytes=100-" });
			assert.equal(again.res.status, 401);
			assert.equal(JSON.parse(again.body.toString("utf8")).code, "file_download_invalid");
		});

		test("curl -C - cannot resume a share download: it refuses the whole body and leaves the partial file; the token is spent", async () => {
			const { fileUrl } = await resolved();
			const partial = path.join(dir, "share-partial.bin");
			fs.writeFileSync(partial, file.bytes.subarray(0, 1000));
			// curl exit 33 (CURLE_RANGE_ERROR): asked to resume, got a 200 with the whole body.
			await assert.rejects(
				curl("-C", "-", "-o", partial, fileUrl),
				(err: { code?: number }) => err.code === 33,
			);
			assert.deepEqual(fs.readFileSync(partial), file.bytes.subarray(0, 1000));
			const again = await get(s, fileUrl);
			assert.equal(again.res.status, 401, "the resume attempt spent the token");
		});

		test("the archive with Range: 200, the whole zip; then the token is spent", async () => {
			const { archiveUrl } = await resolved();
			const { res, body } = await get(s, archiveUrl, { range: "bytes=0-99" });
			assert.equal(res.status, 200);
			assert.equal(res.headers.get("accept-ranges"), "none");
			assert.equal(res.headers.get("content-range"), null);
			assert.equal(res.headers.get("content-length"), String(body.length));
			assert.ok(body.length > SIZE, "every byte of the file is in the archive");
			const zip = path.join(dir, "share.zip");
			fs.writeFileSync(zip, body);
			await run("unzip", ["-tq", zip]); // rejects on a truncated archive
			const again = await get(s, archiveUrl, { range: "bytes=100-" });
			assert.equal(again.res.status, 401);
		});

		test("the owner's archive answers Accept-Ranges none and ignores Range", async () => {
			const { link } = await resolved();
			const res = await s.app.inject({
				method: "GET",
				url: `/api/links/${link.id}/archive`,
				headers: { ...s.owner.headers, range: "bytes=0-99" },
			});
			assert.equal(res.statusCode, 200, res.body);
			assert.equal(res.headers["accept-ranges"], "none");
			assert.equal(res.headers["content-range"], undefined);
			assert.ok(res.rawPayload.length > SIZE);
		});
	});
});

describe("owner downloads on S3", () => {
	let s3: TestS3;
	let s: Served;
	let file: OwnedFile;
	before(async () => {
		s3 = await startS3();
		s = await serve(s3.config(await s3.bucket(), "files/"));
		file = await ownedFile(s, crypto.randomBytes(SIZE));
	});
	after(async () => {
		await s?.close();
		await s3?.close();
	});

	curlTests(
		"S3",
		() => s,
		() => file,
	);

	test("a suffix range is a ranged GetObject: 206 with only those bytes read (S3)", async () => {
		const { res, body, reads } = await get(s, file.url, { range: "bytes=-1000" });
		assert.equal(res.status, 206);
		assert.equal(res.headers.get("content-range"), `bytes ${SIZE - 1000}-${SIZE - 1}/${SIZE}`);
		assert.equal(res.headers.get("etag"), `"${sha(file.bytes)}"`);
		assert.ok(body.equals(file.bytes.subarray(SIZE - 1000)));
		assert.deepEqual(reads, [{ range: { start: SIZE - 1000, end: SIZE - 1 }, bytes: 1000 }]);
	});
});
