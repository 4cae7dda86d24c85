// SQLite's WAL is copied back into the database by a thread of its own (src/db/checkpoints.ts), not
// by the event loop's connection at a commit; the event loop's own checkpoint stays as a backstop,
// and comes back whole when the thread stops or fails.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { BACKSTOP_PAGES, CHECKPOINT_MS, checkpointInBackground } from "../../src/db/checkpoints.ts";
import { openStore } from "../../src/db/index.ts";

const dirs: string[] = [];
after(() => {
	for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-checkpoints-"));
	dirs.push(dir);
	return dir;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const walPages = (file: string) => (fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) / 4096;

/** Polls `check` every 20 ms for up to `ms`; true once it holds. */
async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) return false;
		await pause(20);
	}
	return true;
}

describe("SQLite checkpoints off the event loop", () => {
	test("a thread copies the WAL into the database while the app writes, and the WAL restarts", async () => {
		const dataDir = tempDir();
		const file = path.join(dataDir, "svc.sqlite");
		const store = await openStore({
			databaseUrl: "",
			databaseSchema: "",
			dataDir,
			sqliteSynchronous: "NORMAL",
		});
		try {
			await sql`create table filler (b blob)`.execute(store.db);
			let largest = 0;
			// Five bursts of about 1,000 pages each: 5,000 pages, well under the backstop, so any copy
			// is the thread's. Between bursts the thread catches up and the next write starts the
			// WAL over, so it never holds much more than one burst.
			for (let burst = 0; burst < 5; burst++) {
				for (let i = 0; i < 500; i++)
					await sql`insert into filler values (randomblob(4000))`.execute(store.db);
				largest = Math.max(largest, walPages(file));
				const copied = store.checkpoints?.().frames ?? 0;
				assert.ok(
					await eventually(() => (store.checkpoints?.().frames ?? 0) > copied),
					`the thread copied nothing after burst ${burst + 1}`,
				);
				await pause(3 * CHECKPOINT_MS); // and the rest of the burst, at its next looks
			}
			const stats = store.checkpoints?.();
			assert.equal(stats?.running, true);
			assert.ok((stats?.frames ?? 0) >= 4000, `copied ${stats?.frames} frames of about 5,000 written`);
			assert.ok(largest < 2500, `the WAL reached ${largest} pages: it did not start over`);
		} finally {
			await store.destroy();
		}
	});

	test("while the thread runs, the event loop's connection checkpoints only past the backstop", async () => {
		const file = path.join(tempDir(), "db.sqlite");
		const conn = new SQLite(file);
		conn.pragma("journal_mode = WAL");
		const checkpoints = checkpointInBackground(conn, file, "NORMAL");
		assert.equal(conn.pragma("wal_autocheckpoint", { simple: true }), BACKSTOP_PAGES);
		await checkpoints.stop();
		assert.equal(conn.pragma("wal_autocheckpoint", { simple: true }), 1000);
		assert.equal(checkpoints.stats().running, false);
		conn.close();
	});

	test("a thread that cannot open the database hands checkpoints back to the connection, and says so", async () => {
		const dir = tempDir();
		const file = path.join(dir, "db.sqlite");
		const conn = new SQLite(file);
		conn.pragma("journal_mode = WAL");
		const warnings: string[] = [];
		// The thread opens a file that is not there (it never creates one): it fails at once.
		const checkpoints = checkpointInBackground(conn, path.join(dir, "missing.sqlite"), "NORMAL", {
			warn: (_details, message) => warnings.push(message),
		});
		try {
			assert.ok(
				await eventually(() => !checkpoints.stats().running),
				"the failed thread still counts as running",
			);
			assert.equal(conn.pragma("wal_autocheckpoint", { simple: true }), 1000);
			assert.deepEqual(warnings, ["SQLite checkpoints back on the event loop: the checkpoint thread failed"]);
		} finally {
			await checkpoints.stop();
			conn.close();
		}
	});
});
