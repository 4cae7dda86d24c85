// Runs once, not per database: the file store on disk and S3, with no database.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { after, describe, test } from "node:test";
import {
	BlobNotFoundError,
	type BlobStore,
	BlobTooLargeError,
	createFsBlobStore,
	sweepPartials,
} from "../../src/lib/blob-store.ts";
import { createS3BlobStore } from "../../src/lib/blob-store-s3.ts";
import { startS3, type TestS3 } from "../helpers/s3.ts";

function tmpRoot() {
	return fs.mkdtempSync(path.join(os.tmpdir(), "svc-blobs-"));
}

function files(dir: string): string[] {
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((e) => e.isFile())
		.map((e) => e.name);
}

function chunks(count: number, size: number): Readable {
	let sent = 0;
	return new Readable({
		read() {
			this.push(sent++ < count ? Buffer.alloc(size, 97) : null);
		},
	});
}

interface Backend {
	store: BlobStore;
	/** Every complete blob and partial upload the backend holds, by any name. */
	leftovers(): Promise<string[]>;
}

// One contract, both backends: what the app relies on must hold on the folder and on S3 alike.
function contract(name: string, open: () => Promise<Backend>) {
	describe(`${name}: the blob store contract`, () => {
		test("stores a stream and reads it back with size and sha256, whole and as a byte range", async () => {
			const { store } = await open();
			const info = await store.put(Readable.from([Buffer.from("hello "), Buffer.from("world")]));
			assert.equal(info.size, 11);
			assert.equal(info.sha256, crypto.createHash("sha256").update("hello world").digest("hex"));
			assert.equal(await text(await store.get(info.key)), "hello world");
			assert.equal(await text(await store.get(info.key, { start: 6, end: 10 })), "world");
			assert.equal(await store.size(info.key), 11);
			const keys = [];
			for await (const b of store.list()) keys.push(b.key);
			assert.deepEqual(keys, [info.key]);
			await store.delete(info.key);
			await assert.rejects(store.get(info.key), BlobNotFoundError);
			assert.equal(await store.size(info.key), undefined);
			await store.delete(info.key); // deleting again is no error
		});

		test("a stream over the cap is refused with BlobTooLargeError and leaves nothing behind", async () => {
			const backend = await open();
			await assert.rejects(
				backend.store.put(chunks(100, 64 * 1024), { maxBytes: 1024 * 1024 }),
				BlobTooLargeError,
			);
			assert.deepEqual(await backend.leftovers(), []);
		});

		test("exactly the cap is accepted", async () => {
			const { store } = await open();
			const info = await store.put(chunks(16, 1024), { maxBytes: 16 * 1024 });
			assert.equal(info.size, 16 * 1024);
		});

		test("a source that fails mid-stream leaves nothing behind", async () => {
			const backend = await open();
			let n = 0;
			const failing = new Readable({
				read() {
					if (n++ < 3) this.push(Buffer.alloc(1024));
					else this.destroy(new Error("client went away"));
				},
			});
			await assert.rejects(backend.store.put(failing), /client went away/);
			assert.deepEqual(await backend.leftovers(), []);
		});

		test("keys outside the store's alphabet are never asked for", async () => {
			const { store } = await open();
			await assert.rejects(store.get("../../etc/passwd"), BlobNotFoundError);
			assert.equal(await store.size("../x"), undefined);
		});

		test("list yields every blob with its modification time, across pages", async () => {
			const { store } = await open();
			const before = Date.now() - 2000; // S3 keeps seconds
			const put = await Promise.all(
				Array.from({ length: 5 }, (_, i) => store.put(Readable.from([Buffer.from(`b${i}`)]))),
			);
			const seen = new Map<string, number>();
			for await (const b of store.list()) seen.set(b.key, b.modified);
			assert.deepEqual([...seen.keys()].sort(), put.map((p) => p.key).sort());
			for (const modified of seen.values()) assert.ok(modified >= before && modified <= Date.now() + 1000);
		});
	});
}

contract("the folder", async () => {
	const root = tmpRoot();
	return { store: createFsBlobStore(root), leftovers: async () => files(root) };
});

let s3: TestS3 | undefined;
after(() => s3?.close());

function s3Options(bucket: string, prefix = "") {
	const c = (s3 as TestS3).config(bucket, prefix);
	return {
		bucket,
		prefix,
		endpoint: c.s3Endpoint as string,
		region: "us-east-1",
		forcePathStyle: true,
		accessKeyId: "S3RVER",
		secretAccessKey: "S3RVER",
		partSize: c.s3PartSize as number,
	};
}

/** A fresh bucket on an S3 server of its own (s3rver on loopback), multipart parts of 5 MiB. */
async function s3Backend(opts: { prefix?: string } = {}): Promise<Backend & { bucket: string }> {
	s3 ??= await startS3();
	const absent = createS3BlobStore(s3Options(`svc-absent-${Date.now()}`));
	await assert.rejects(absent.ready(), /bucket "svc-absent-\d+" does not exist/);
	const bucket = await s3.bucket();
	const store = createS3BlobStore(s3Options(bucket, opts.prefix));
	await store.ready();
	const where = path.join(s3.dir, bucket);
	return {
		bucket,
		store,
		// Complete objects as s3rver keeps them. (Parts of an aborted multipart upload stay on its
		// disk: s3rver has no abort; real S3 drops them, and the sweep aborts what a crash left.)
		leftovers: async () => files(where).filter((f) => f.endsWith("._S3rver_object")),
	};
}

contract("S3 (s3rver)", () => s3Backend());

describe("S3 blob store: what only object storage has", () => {
	test("a 20 MiB stream goes up in parts and comes back whole, the same digest", async () => {
		const { store } = await s3Backend();
		const expected = crypto
			.createHash("sha256")
			.update(Buffer.alloc(20 * 1024 * 1024, 97))
			.digest("hex");
		const info = await store.put(chunks(20 * 16, 64 * 1024));
		assert.equal(info.size, 20 * 1024 * 1024);
		assert.equal(info.sha256, expected);
		const back = crypto.createHash("sha256");
		for await (const c of await store.get(info.key)) back.update(c as Buffer);
		assert.equal(back.digest("hex"), expected);
	});

	test("refused after two parts went up: the multipart upload never becomes an object", async () => {
		const backend = await s3Backend();
		await assert.rejects(
			backend.store.put(chunks(20 * 16, 64 * 1024), { maxBytes: 12 * 1024 * 1024 }),
			BlobTooLargeError,
		);
		const keys = [];
		for await (const b of backend.store.list()) keys.push(b.key);
		assert.deepEqual(keys, []);
		assert.deepEqual(await backend.leftovers(), []);
	});

	test("a prefix keeps the store to its own keys; other objects in the bucket are not listed", async () => {
		const backend = await s3Backend({ prefix: "node-a/" });
		const info = await backend.store.put(Readable.from([Buffer.from("mine")]));
		const foreign = await fetch(`${s3?.endpoint}/${backend.bucket}/other/${"f".repeat(32)}`, {
			method: "PUT",
			body: "not mine",
		});
		assert.equal(foreign.status, 200);
		const keys = [];
		for await (const b of backend.store.list()) keys.push(b.key);
		assert.deepEqual(keys, [info.key]);
		const raw = await fetch(`${s3?.endpoint}/${backend.bucket}/node-a/${info.key}`);
		assert.equal(await raw.text(), "mine", "stored under the prefix");
	});

	test("an unreachable endpoint stops the start with what is wrong", async () => {
		const store = createS3BlobStore({
			bucket: "svc-blobs",
			prefix: "",
			endpoint: "http://127.0.0.1:9", // discard: nothing listens
			region: "us-east-1",
			forcePathStyle: true,
			accessKeyId: "x",
			secretAccessKey: "y",
			partSize: 5 * 1024 * 1024,
		});
		await assert.rejects(store.ready(), /blob store: bucket "svc-blobs" cannot be reached/);
	});
});

describe("the folder: what only the folder has", () => {
	test("sweepPartials removes partial uploads older than the threshold", async () => {
		const root = tmpRoot();
		createFsBlobStore(root);
		const stale = path.join(root, "tmp", "abc.1.part");
		fs.writeFileSync(stale, "x");
		const past = new Date(Date.now() - 2 * 3600_000);
		fs.utimesSync(stale, past, past);
		fs.writeFileSync(path.join(root, "tmp", "fresh.1.part"), "y");
		assert.equal(await sweepPartials(root, 3600_000), 1);
		assert.deepEqual(files(root), ["fresh.1.part"]);
	});
});
