import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { describe, test } from "node:test";
import {
	BlobNotFoundError,
	BlobTooLargeError,
	createFsBlobStore,
	sweepPartials,
} from "../../src/lib/blob-store.ts";

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

describe("file system blob store", () => {
	test("stores a stream and reads it back with size and sha256", async () => {
		const root = tmpRoot();
		const store = createFsBlobStore(root);
		const info = await store.put(Readable.from([Buffer.from("hello "), Buffer.from("world")]));
		assert.equal(info.size, 11);
		assert.equal(info.sha256, crypto.createHash("sha256").update("hello world").digest("hex"));
		assert.equal(await text(await store.get(info.key)), "hello world");
		assert.equal(await store.size(info.key), 11);
		const keys = [];
		for await (const b of store.list()) keys.push(b.key);
		assert.deepEqual(keys, [info.key]);
		await store.delete(info.key);
		await assert.rejects(store.get(info.key), BlobNotFoundError);
	});

	test("a stream over the cap is refused and leaves nothing behind, not even a partial file", async () => {
		const root = tmpRoot();
		const store = createFsBlobStore(root);
		await assert.rejects(store.put(chunks(100, 64 * 1024), { maxBytes: 1024 * 1024 }), BlobTooLargeError);
		assert.deepEqual(files(root), []);
	});

	test("exactly the cap is accepted", async () => {
		const store = createFsBlobStore(tmpRoot());
		const info = await store.put(chunks(16, 1024), { maxBytes: 16 * 1024 });
		assert.equal(info.size, 16 * 1024);
	});

	test("a source that fails mid-stream leaves nothing behind", async () => {
		const root = tmpRoot();
		const store = createFsBlobStore(root);
		let n = 0;
		const failing = new Readable({
			read() {
				if (n++ < 3) this.push(Buffer.alloc(1024));
				else this.destroy(new Error("client went away"));
			},
		});
		await assert.rejects(store.put(failing), /client went away/);
		assert.deepEqual(files(root), []);
	});

	test("keys outside the store's alphabet never reach the file system", async () => {
		const store = createFsBlobStore(tmpRoot());
		await assert.rejects(store.get("../../etc/passwd"), BlobNotFoundError);
		assert.equal(await store.size("../x"), undefined);
	});

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
