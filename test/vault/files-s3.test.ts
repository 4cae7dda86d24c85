// The app with its files on S3-compatible storage (BLOB_STORE=s3, s3rver on loopback): uploads,
// the owner's download, a share's one-time file token and archive, deletion, the upload cap and
// the orphan sweep behave as on the folder. Stamping reads from the same store.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { sweepBlobs } from "../../src/features/vault/files/sweeper.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { startS3, type TestS3 } from "../helpers/s3.ts";
import { createLink, publicGet, RECORDS, resolveLink, uploadFile } from "../shares/helpers.ts";

let s3: TestS3;
let t: TestApp;
let a: TestAccount;
let bucket: string;

before(async () => {
	s3 = await startS3();
	bucket = await s3.bucket();
	t = await makeApp({ ...s3.config(bucket, "files/"), maxFileSize: 12 * 1024 * 1024 });
	a = await buildAccount(t.app);
});
after(async () => {
	await t?.close();
	await s3?.close();
});

const sha = (b: Buffer | Uint8Array) => crypto.createHash("sha256").update(b).digest("hex");

async function objectKeys(): Promise<string[]> {
	const keys: string[] = [];
	for await (const b of t.app.blobs.list()) keys.push(b.key);
	return keys.sort();
}

async function fileKey(recordId: string): Promise<string> {
	const row = await t.app.store.db
		.selectFrom("records")
		.select("file_key")
		.where("id", "=", recordId)
		.executeTakeFirstOrThrow();
	return row.file_key as string;
}

describe("files on S3", () => {
	test("an upload lands in the bucket under the prefix; the owner downloads it with a file token", async () => {
		const bytes = crypto.randomBytes(7 * 1024 * 1024 + 3); // more than one part
		const rec = await uploadFile(t.app, a, { key: "scan" }, { bytes, name: "scan.bin" });
		assert.equal(rec.file.size, bytes.length);
		assert.equal(rec.file.sha256, sha(bytes));
		const key = await fileKey(rec.id);
		const raw = await fetch(`${s3.endpoint}/${bucket}/files/${key}`);
		assert.equal(
			sha(Buffer.from(await raw.arrayBuffer())),
			sha(bytes),
			"the object itself, under the prefix",
		);

		const token = (await t.app.inject({ method: "POST", url: "/api/files/token", headers: a.headers })).json()
			.token;
		const res = await t.app.inject({ method: "GET", url: `/api/files/${rec.id}?token=${token}` });
		assert.equal(res.statusCode, 200);
		assert.equal(sha(res.rawPayload), sha(bytes));
	});

	test("through a share: the download token serves the file once, the archive unzips", async () => {
		const one = Buffer.from("first file\n");
		const two = crypto.randomBytes(100_000);
		const f1 = await uploadFile(t.app, a, { key: "one" }, { bytes: one, name: "one.txt" });
		const f2 = await uploadFile(t.app, a, { key: "two" }, { bytes: two, name: "two.bin" });
		const link = await createLink(t.app, a, { records: [f1.id, f2.id] });
		const body = (await resolveLink(t.app, link.slug)).json();
		const url = `/api/public/links/${link.slug}/files/${f1.id}?dl=${body.records[0].downloadToken}`;
		const first = await publicGet(t.app, url);
		assert.equal(first.statusCode, 200);
		assert.deepEqual(first.rawPayload, one);
		assert.equal((await publicGet(t.app, url)).statusCode, 401, "spent");

		const zip = await publicGet(t.app, `/api/public/links/${link.slug}/archive?dl=${body.archiveToken}`);
		assert.equal(zip.statusCode, 200, zip.body);
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-s3-zip-"));
		fs.writeFileSync(path.join(dir, "a.zip"), zip.rawPayload);
		execFileSync("unzip", ["-q", path.join(dir, "a.zip"), "-d", path.join(dir, "out")]);
		assert.deepEqual(fs.readFileSync(path.join(dir, "out", "one.txt")), one);
		assert.equal(sha(fs.readFileSync(path.join(dir, "out", "two.bin"))), sha(two));
	});

	test("over the cap: 413, no record and no object", async () => {
		const before = await objectKeys();
		const f = new FormData();
		f.append("key", "big");
		f.append("file", new Blob([new Uint8Array(13 * 1024 * 1024)]), "big.bin");
		const res = await t.app.inject({ method: "POST", url: RECORDS, headers: a.headers, payload: f });
		assert.equal(res.statusCode, 413, res.body);
		assert.equal(res.json().code, "file_too_large");
		assert.deepEqual(await objectKeys(), before);
		const rows = await t.app.store.db.selectFrom("records").select("id").where("key", "=", "big").execute();
		assert.deepEqual(rows, []);
	});

	test("deleting the record deletes the object; the sweep removes an orphan once it is an hour old", async () => {
		const rec = await uploadFile(t.app, a, { key: "gone" }, { bytes: Buffer.from("bye"), name: "b.txt" });
		const key = await fileKey(rec.id);
		assert.ok((await objectKeys()).includes(key));
		const del = await t.app.inject({ method: "DELETE", url: `${RECORDS}/${rec.id}`, headers: a.headers });
		assert.equal(del.statusCode, 204);
		assert.ok(!(await objectKeys()).includes(key));

		const orphan = await t.app.blobs.put(Readable.from([Buffer.from("no row")]));
		assert.equal((await sweepBlobs(t.app.store.db, t.app.blobs)).orphans, 0, "young: may get its row");
		const later = await sweepBlobs(t.app.store.db, t.app.blobs, Date.now() + 2 * 60 * 60 * 1000);
		assert.equal(later.orphans, 1);
		const left = await objectKeys();
		assert.ok(!left.includes(orphan.key));
		assert.equal(left.length, 3, "the files of the tests above stay");
	});

	test("a node whose bucket does not exist does not start, and says why", async () => {
		await assert.rejects(
			makeApp(s3.config("svc-no-such-bucket")),
			/bucket "svc-no-such-bucket" does not exist/,
		);
	});
});
