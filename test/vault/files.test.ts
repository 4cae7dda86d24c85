// File records: multipart uploads streamed to the blob store with the size cap, content types
// sniffed from the bytes, file tokens (bare URLs serve nothing), and blobs that stay consistent
// with rows (refused uploads leave nothing; the sweeper removes what a crash left).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { FILE_TOKEN_TTL_MS } from "../../src/features/vault/files/service.ts";
import { sweepBlobs } from "../../src/features/vault/files/sweeper.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/crypto.ts";
import { sanitizeFilename } from "../../src/lib/sniff.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";

const BASE = "/api/collections/records/records";
const CAP = 64 * 1024;

interface FileRecord {
	id: string;
	name: string;
	type: string;
	value: string | null;
	version: number;
	file: { name: string; type: string; size: number; sha256: string } | null;
}

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const clock = new ManualClock();

function form(
	fields: Record<string, string>,
	file?: { bytes: Buffer; name: string; type?: string },
	fileFirst = false,
) {
	const f = new FormData();
	const addFile = () => {
		if (file)
			f.append(
				"file",
				new Blob([new Uint8Array(file.bytes)], { type: file.type ?? "application/octet-stream" }),
				file.name,
			);
	};
	if (fileFirst) addFile();
	for (const [k, v] of Object.entries(fields)) f.append(k, v);
	if (!fileFirst) addFile();
	return f;
}

async function upload(
	fields: Record<string, string>,
	file?: { bytes: Buffer; name: string; type?: string },
	opts: { method?: "POST" | "PATCH"; id?: string; who?: TestAccount; fileFirst?: boolean } = {},
) {
	return t.app.inject({
		method: opts.method ?? "POST",
		url: opts.id ? `${BASE}/${opts.id}` : BASE,
		headers: (opts.who ?? a).headers,
		payload: form(fields, file, opts.fileFirst),
	});
}

async function blobKeys(): Promise<string[]> {
	const keys: string[] = [];
	for await (const blob of t.app.blobs.list()) keys.push(blob.key);
	return keys.sort();
}

function partials(): string[] {
	return fs.readdirSync(path.join(t.env.config.dataDir, "blobs", "tmp"));
}

async function token(who = a): Promise<string> {
	const res = await t.app.inject({ method: "POST", url: "/api/files/token", headers: who.headers });
	assert.equal(res.statusCode, 200, res.body);
	return (res.json() as { token: string }).token;
}

before(async () => {
	t = await makeApp({ maxFileSize: CAP }, { clock });
	a = await buildAccount(t.app);
	b = await buildAccount(t.app);
});
after(() => t.close());

describe("uploads", () => {
	const png = Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		crypto.randomBytes(200),
	]);
	const samples: [string, Buffer, string][] = [
		["PDF", Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj"), "application/pdf"],
		["PNG", png, "image/png"],
		["JPEG", Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), crypto.randomBytes(64)]), "image/jpeg"],
		["GIF", Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"), "image/gif"],
		[
			"WebP",
			Buffer.concat([Buffer.from("RIFF"), Buffer.from([1, 2, 3, 4]), Buffer.from("WEBPVP8 ")]),
			"image/webp",
		],
		[
			"ZIP",
			Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), crypto.randomBytes(64)]),
			"application/zip",
		],
		["UTF-8 text", Buffer.from("Grüße,\nline two\n"), "text/plain; charset=utf-8"],
		["binary", Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]), "application/octet-stream"],
		["an empty file", Buffer.alloc(0), "application/octet-stream"],
	];
	for (const [name, bytes, type] of samples) {
		test(`the content type is sniffed, never the client's: ${name}`, async () => {
			const res = await upload({ key: "doc" }, { bytes, name: "upload.bin", type: "text/html" });
			assert.equal(res.statusCode, 200, res.body);
			const r = res.json() as FileRecord;
			assert.equal(r.file?.type, type);
			assert.equal(r.file?.size, bytes.length);
			assert.equal(r.file?.sha256, crypto.createHash("sha256").update(bytes).digest("hex"));
			assert.equal(r.value, null);
			assert.equal((r as unknown as { type: string }).type, "file");
		});
	}

	test("the file name is sanitised and becomes the default name", async () => {
		const res = await upload(
			{ key: "passport" },
			{ bytes: Buffer.from("%PDF-x"), name: "..\\..\\etc\\pass\u0001port.pdf" },
		);
		const r = res.json() as FileRecord;
		assert.equal(r.file?.name, "passport.pdf");
		assert.equal(r.name, "passport.pdf");
	});

	test("sanitizeFilename keeps the last segment without control characters or quotes", () => {
		assert.equal(sanitizeFilename('a/b\\"c\u0000d<>:|?*".txt'), "cd.txt");
		assert.equal(sanitizeFilename("..."), "file");
		assert.equal(sanitizeFilename(undefined), "file");
		assert.equal(sanitizeFilename("  spaced   out .pdf "), "spaced out .pdf");
		const long = sanitizeFilename(`${"x".repeat(300)}.pdf`);
		assert.equal(long.length, 200);
		assert.ok(long.endsWith(".pdf"));
	});

	test("fields may come after the file part; booleans and nulls are read from text", async () => {
		const res = await upload(
			{ key: "late", name: "Late", hidden: "true", section: "" },
			{ bytes: Buffer.from("hi"), name: "a.txt" },
			{ fileFirst: true },
		);
		assert.equal(res.statusCode, 200, res.body);
		const r = res.json() as FileRecord & { hidden: boolean; section: null };
		assert.equal(r.name, "Late");
		assert.equal(r.hidden, true);
		assert.equal(r.section, null);
	});

	test("PocketBase's @jsonPayload parts join the fields, typed as JSON", async () => {
		// What the SDK sends for `create({key, hidden: true, section: null, alias: null, file})`.
		const f = new FormData();
		f.append("key", "pb");
		f.append("hidden", "true");
		f.append("@jsonPayload", JSON.stringify({ section: null }));
		f.append("@jsonPayload", JSON.stringify({ alias: null, name: "From the SDK" }));
		f.append("file", new Blob([new Uint8Array(Buffer.from("%PDF-1.4 sdk"))]), "sdk.pdf");
		const res = await t.app.inject({ method: "POST", url: BASE, headers: a.headers, payload: f });
		assert.equal(res.statusCode, 200, res.body);
		const r = res.json() as FileRecord & { hidden: boolean; section: null; alias: null };
		assert.equal(r.name, "From the SDK");
		assert.equal(r.hidden, true);
		assert.equal(r.section, null);
		assert.equal(r.alias, null);
		assert.equal(r.file?.name, "sdk.pdf");
	});

	test("a multipart create without a file part makes a value record", async () => {
		const res = await upload({ key: "note", value: "typed in a form" });
		assert.equal(res.statusCode, 200, res.body);
		assert.equal((res.json() as FileRecord).value, "typed in a form");
	});

	describe("refusals leave no blob, no partial file and no row", () => {
		let baseline: { blobs: string[]; rows: number };
		const rows = async () =>
			Number(
				(
					await t.app.store.db
						.selectFrom("records")
						.select((eb) => eb.fn.countAll<number>().as("n"))
						.executeTakeFirstOrThrow()
				).n,
			);
		const same = async () => {
			assert.deepEqual(await blobKeys(), baseline.blobs);
			assert.deepEqual(partials(), []);
			assert.equal(await rows(), baseline.rows);
		};
		// What every refusal below must leave as it found: taken once, before them (a hook, not a test).
		before(async () => {
			baseline = { blobs: await blobKeys(), rows: await rows() };
		});
		test("a file past MAX_FILE_SIZE: 413 file_too_large", async () => {
			const res = await upload({ key: "big" }, { bytes: crypto.randomBytes(CAP + 1), name: "big.bin" });
			assert.equal(res.statusCode, 413);
			assert.equal(res.json().code, "file_too_large");
			assert.equal(res.json().maxFileSize, CAP);
			await same();
		});
		test("exactly MAX_FILE_SIZE is accepted", async () => {
			const res = await upload({ key: "edge" }, { bytes: crypto.randomBytes(CAP), name: "edge.bin" });
			assert.equal(res.statusCode, 200, res.body);
			assert.equal((res.json() as FileRecord).file?.size, CAP);
			await t.app.inject({
				method: "DELETE",
				url: `${BASE}/${(res.json() as FileRecord).id}`,
				headers: a.headers,
			});
			await same();
		});
		test("a field that fails validation after the file was stored", async () => {
			const res = await upload(
				{ key: "BAD KEY" },
				{ bytes: Buffer.from("x"), name: "a.txt" },
				{ fileFirst: true },
			);
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().field, "body.key");
			await same();
		});
		test("a missing key", async () => {
			const res = await upload({}, { bytes: Buffer.from("x"), name: "a.txt" });
			assert.equal(res.statusCode, 400);
			await same();
		});
		test("a boolean field that is not true or false", async () => {
			const res = await upload(
				{ key: "k", hidden: "maybe" },
				{ bytes: Buffer.from("x"), name: "a.txt" },
				{ fileFirst: true },
			);
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().field, "body.hidden");
			await same();
		});
		for (const [name, payload, field] of [
			["not JSON", "{section:", "body.@jsonPayload"],
			["not an object", "[null]", "body.@jsonPayload"],
			["a member sent twice", '{"key":"again"}', "body.key"],
			["a string for a boolean (JSON is not coerced)", '{"hidden":"true"}', "body.hidden"],
			["__proto__ as a member", '{"__proto__":{"hidden":true}}', "body.__proto__"],
			["a NUL as a JSON escape", String.raw`{"name":"a\u0000b"}`, "body.name"],
		] as const) {
			test(`an @jsonPayload part: ${name}`, async () => {
				const res = await upload(
					{ key: "k", "@jsonPayload": payload },
					{ bytes: Buffer.from("x"), name: "a.txt" },
					{ fileFirst: true },
				);
				assert.equal(res.statusCode, 400, res.body);
				assert.equal(res.json().code, "validation_failed");
				assert.equal(res.json().field, field);
				await same();
			});
		}
		test("a rule of the service (a foreign section) after the file was stored", async () => {
			const section = await t.app.inject({
				method: "POST",
				url: "/api/collections/sections/records",
				headers: b.headers,
				payload: { key: "s", name: "S" },
			});
			const res = await upload(
				{ key: "k", section: section.json().id },
				{ bytes: Buffer.from("x"), name: "a.txt" },
				{ fileFirst: true },
			);
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().field, "body.section");
			await same();
		});
		test("a value for a file record", async () => {
			const res = await upload(
				{ key: "k", value: "v" },
				{ bytes: Buffer.from("x"), name: "a.txt" },
				{ fileFirst: true },
			);
			assert.equal(res.statusCode, 400);
			await same();
		});
		test("two files", async () => {
			const f = form({ key: "k" }, { bytes: Buffer.from("one"), name: "1.txt" });
			f.append("file", new Blob([new Uint8Array(Buffer.from("two"))]), "2.txt");
			const res = await t.app.inject({ method: "POST", url: BASE, headers: a.headers, payload: f });
			assert.equal(res.statusCode, 400);
			await same();
		});
		test("a file under another name", async () => {
			const f = new FormData();
			f.append("key", "k");
			f.append("attachment", new Blob([new Uint8Array(Buffer.from("x"))]), "x.txt");
			const res = await t.app.inject({ method: "POST", url: BASE, headers: a.headers, payload: f });
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().field, "body.attachment");
			await same();
		});
		test("an unknown field", async () => {
			const res = await upload(
				{ key: "k", owner: "x" },
				{ bytes: Buffer.from("x"), name: "a.txt" },
				{ fileFirst: true },
			);
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().field, "body.owner");
			await same();
		});
		test("a multipart body without a boundary", async () => {
			const res = await t.app.inject({
				method: "POST",
				url: BASE,
				headers: { ...a.headers, "content-type": "multipart/form-data" },
				payload: "garbage",
			});
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().code, "bad_request");
			await same();
		});
		test("a truncated multipart body", async () => {
			const res = await t.app.inject({
				method: "POST",
				url: BASE,
				headers: { ...a.headers, "content-type": "multipart/form-data; boundary=XyZ" },
				payload:
					'--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\nsome bytes but no end',
			});
			assert.equal(res.statusCode, 400, res.body);
			await same();
		});
		test("a guest's upload is refused before a byte is stored", async () => {
			const res = await t.app.inject({
				method: "POST",
				url: BASE,
				payload: form({ key: "k" }, { bytes: Buffer.from("x"), name: "a" }),
			});
			assert.equal(res.statusCode, 401);
			await same();
		});
	});

	test("PATCH replaces the bytes, bumps the version and removes the old blob", async () => {
		const first = (
			await upload({ key: "id-card" }, { bytes: Buffer.from("%PDF-old"), name: "old.pdf" })
		).json() as FileRecord;
		const keysBefore = await blobKeys();
		const res = await upload(
			{},
			{ bytes: Buffer.from("GIF89a-new"), name: "new.gif" },
			{ method: "PATCH", id: first.id },
		);
		assert.equal(res.statusCode, 200, res.body);
		const second = res.json() as FileRecord;
		assert.equal(second.version, 2);
		assert.equal(second.file?.type, "image/gif");
		assert.equal(second.name, "new.gif");
		const keysAfter = await blobKeys();
		assert.equal(keysAfter.length, keysBefore.length, "one blob replaced by another");
		assert.notDeepEqual(keysAfter, keysBefore);
	});

	test("PATCH with fields only renames a file record; a value is refused", async () => {
		const r = (
			await upload({ key: "scan" }, { bytes: Buffer.from("x"), name: "x.txt" })
		).json() as FileRecord;
		const renamed = await upload({ name: "Scan" }, undefined, { method: "PATCH", id: r.id });
		assert.equal(renamed.statusCode, 200, renamed.body);
		assert.equal((renamed.json() as FileRecord).file?.name, "x.txt");
		const json = await t.app.inject({
			method: "PATCH",
			url: `${BASE}/${r.id}`,
			headers: a.headers,
			payload: { value: "v" },
		});
		assert.equal(json.statusCode, 400);
	});

	test("deleting a file record removes its blob", async () => {
		const r = (
			await upload({ key: "tmp" }, { bytes: Buffer.from("bye"), name: "bye.txt" })
		).json() as FileRecord;
		const before = await blobKeys();
		assert.equal(
			(await t.app.inject({ method: "DELETE", url: `${BASE}/${r.id}`, headers: a.headers })).statusCode,
			204,
		);
		assert.equal((await blobKeys()).length, before.length - 1);
	});
});

describe("reading files with a token", () => {
	let png: FileRecord;
	let zip: FileRecord;
	let value: { id: string };
	before(async () => {
		const pngBytes = Buffer.concat([
			Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
			Buffer.from("pixels"),
		]);
		png = (await upload({ key: "photo" }, { bytes: pngBytes, name: "Föto.png" })).json() as FileRecord;
		zip = (
			await upload({ key: "archive" }, { bytes: Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2]), name: "a.zip" })
		).json() as FileRecord;
		value = (
			await t.app.inject({ method: "POST", url: BASE, headers: a.headers, payload: { key: "v", value: "x" } })
		).json();
	});

	const get = (id: string, query = "") => t.app.inject({ method: "GET", url: `/api/files/${id}${query}` });

	test("a bare file URL serves nothing", async () => {
		const res = await get(png.id);
		assert.equal(res.statusCode, 401);
		assert.equal(res.json().code, "file_download_invalid");
		assert.doesNotMatch(res.body, /pixels/);
	});

	test("a session's token serves the bytes with the sniffed type", async () => {
		const res = await get(png.id, `?token=${await token()}`);
		assert.equal(res.statusCode, 200);
		assert.equal(res.headers["content-type"], "image/png");
		assert.equal(res.headers["content-length"], String(png.file?.size));
		assert.equal(res.headers["x-content-type-options"], "nosniff");
		assert.equal(res.headers["cache-control"], "private, no-store");
		assert.equal(
			res.headers["content-disposition"],
			`inline; filename="F_to.png"; filename*=UTF-8''F%C3%B6to.png`,
		);
		assert.ok(res.rawPayload.includes(Buffer.from("pixels")));
	});

	test("one token opens several files of the workspace until it expires", async () => {
		const tok = await token();
		assert.equal((await get(png.id, `?token=${tok}`)).statusCode, 200);
		const z = await get(zip.id, `?token=${tok}`);
		assert.equal(z.statusCode, 200);
		assert.match(String(z.headers["content-disposition"]), /^attachment;/);
	});

	test("the token expires after two minutes", async () => {
		const tok = await token();
		clock.advance(FILE_TOKEN_TTL_MS - 1);
		assert.equal((await get(png.id, `?token=${tok}`)).statusCode, 200);
		clock.advance(1);
		const res = await get(png.id, `?token=${tok}`);
		assert.equal(res.statusCode, 401);
		assert.equal(res.json().code, "file_download_invalid");
	});

	test("two minutes as documented, for a file and for the vault export alike", async () => {
		const TWO_MINUTES = 2 * 60 * 1000;
		const minted = await t.app.inject({ method: "POST", url: "/api/files/token", headers: a.headers });
		assert.equal(minted.json().expiresAt, new Date(clock.now() + TWO_MINUTES).toISOString());
		const tok = minted.json().token as string;
		const exported = () => t.app.inject({ method: "GET", url: `/api/vault/export?token=${tok}` });
		clock.advance(TWO_MINUTES - 1);
		assert.equal((await get(png.id, `?token=${tok}`)).statusCode, 200);
		assert.equal((await exported()).statusCode, 200);
		clock.advance(1);
		assert.equal((await get(png.id, `?token=${tok}`)).statusCode, 401);
		const late = await exported();
		assert.equal(late.statusCode, 401, late.body);
		assert.equal(late.json().code, "file_download_invalid");
	});

	test("a wrong token, another workspace's file, a value record, an unknown id", async () => {
		assert.equal((await get(png.id, "?token=wrong")).statusCode, 401);
		const bobs = await token(b);
		assert.equal((await get(png.id, `?token=${bobs}`)).statusCode, 404);
		const mine = await token();
		assert.equal((await get(value.id, `?token=${mine}`)).statusCode, 404);
		assert.equal((await get(newId(), `?token=${mine}`)).statusCode, 404);
	});

	test("a token minted with an API key opens no vault file", async () => {
		const key = buildApiKey(t.app, a);
		const res = await t.app.inject({ method: "POST", url: "/api/files/token", headers: key.headers });
		assert.equal(res.statusCode, 200);
		const read = await get(png.id, `?token=${res.json().token}`);
		assert.equal(read.statusCode, 403);
		assert.equal(read.json().code, "api_key_scope_missing");
		assert.equal(read.json().scope, "record:read");
	});

	test("a token stops working when its account leaves the workspace", async () => {
		const m = await buildAccount(t.app);
		await addMember(t.app, a.workspaceId, m.accountId, "member");
		const res = await t.app.inject({
			method: "POST",
			url: "/api/files/token",
			headers: { ...m.headers, "x-workspace": a.workspaceId },
		});
		const tok = res.json().token as string;
		assert.equal((await get(png.id, `?token=${tok}`)).statusCode, 200);
		await t.app.store.db
			.deleteFrom("members")
			.where("account", "=", m.accountId)
			.where("workspace", "=", a.workspaceId)
			.execute();
		assert.equal((await get(png.id, `?token=${tok}`)).statusCode, 401);
	});

	test("minting needs an account", async () => {
		const res = await t.app.inject({ method: "POST", url: "/api/files/token" });
		assert.equal(res.statusCode, 401);
		assert.equal(res.json().code, "not_authenticated");
	});

	test("only the token's hash is stored", async () => {
		const tok = await token();
		const rows = await t.app.store.db.selectFrom("file_tokens").selectAll().execute();
		assert.ok(!JSON.stringify(rows).includes(tok));
	});
});

describe("the sweeper", () => {
	const root = () => path.join(t.env.config.dataDir, "blobs");

	test("deletes blobs no row points at once they are an hour old, and nothing else", async () => {
		const kept = (
			await upload({ key: "kept" }, { bytes: Buffer.from("keep me"), name: "k.txt" })
		).json() as FileRecord;
		// A crash between writing the blob and inserting its row leaves this.
		const orphan = await t.app.blobs.put(Readable.from([Buffer.from("orphan")]));
		const fresh = await sweepBlobs(t.app.store.db, t.app.blobs);
		assert.equal(fresh.orphans, 0, "a young blob may still be getting its row");
		assert.ok((await blobKeys()).includes(orphan.key));

		const later = await sweepBlobs(t.app.store.db, t.app.blobs, Date.now() + 2 * 60 * 60 * 1000);
		assert.ok(later.orphans >= 1);
		const keys = await blobKeys();
		assert.ok(!keys.includes(orphan.key), "the orphan is gone");
		const row = await t.app.store.db
			.selectFrom("records")
			.select("file_key")
			.where("id", "=", kept.id)
			.executeTakeFirstOrThrow();
		assert.ok(keys.includes(row.file_key as string), "a referenced blob stays");
		const tok = await token();
		const res = await t.app.inject({ method: "GET", url: `/api/files/${kept.id}?token=${tok}` });
		assert.equal(res.body, "keep me");
	});

	test("removes stale partial uploads and expired tokens", async () => {
		fs.writeFileSync(path.join(root(), "tmp", "deadbeefdeadbeefdeadbeef.123.part"), "half");
		await token();
		clock.advance(FILE_TOKEN_TTL_MS + 1);
		const r = await sweepBlobs(t.app.store.db, t.app.blobs, Date.now() + 2 * 60 * 60 * 1000);
		assert.equal(r.partials, 1);
		assert.deepEqual(partials(), []);
		assert.ok(r.tokens >= 1);
	});
});
