// SQLite transactions take the write lock with their first statement (`BEGIN IMMEDIATE`, src/db/index.ts).
// Deferred, a transaction that had read and then wrote while another process held the lock (`svc
// admin` on the same file, a backup, a test's probe) failed at once with SQLITE_BUSY, a 500:
// SQLite's busy timeout covers only a transaction that holds no lock yet. The other process here
// is a real one, with its own better-sqlite3 connection. SQLite only.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { openStore, type Store } from "../../src/db/index.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";

/** Another process tries to take the write lock without waiting: `locked` or `busy`. */
function otherWriter(file: string): string {
	const script = `
		const SQLite = require("better-sqlite3");
		const db = new SQLite(process.argv[1], { timeout: 0 });
		try { db.exec("BEGIN IMMEDIATE"); db.exec("ROLLBACK"); process.stdout.write("locked"); }
		catch (err) { process.stdout.write(err.code === "SQLITE_BUSY" ? "busy" : String(err)); }`;
	return execFileSync(process.execPath, ["-e", script, file], { encoding: "utf8" });
}

/** Another process holds the write lock for `ms`; resolves once it holds it. */
function holdLock(file: string, ms: number): Promise<{ done: Promise<void> }> {
	const script = `
		const SQLite = require("better-sqlite3");
		const db = new SQLite(process.argv[1]);
		db.exec("BEGIN IMMEDIATE"); db.prepare("insert into t (note) values ('other')").run();
		process.stdout.write("held\\n");
		setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));`;
	const child = spawn(process.execPath, ["-e", script, file, String(ms)], {
		stdio: ["ignore", "pipe", "inherit"],
	});
	const done = new Promise<void>((resolve) => child.on("exit", () => resolve()));
	return new Promise((resolve, reject) => {
		child.stdout.once("data", () => resolve({ done }));
		child.once("error", reject);
	});
}

if (dialect === "sqlite") {
	describe("SQLite transactions and another process's writes", () => {
		let env: TestEnv;
		let store: Store;
		let file: string;
		before(async () => {
			env = testEnv();
			store = await openStore(env.config);
			file = path.join(env.config.dataDir, "svc.sqlite");
			await sql`create table t (id integer primary key, note text)`.execute(store.db);
		});
		after(async () => {
			await store.destroy();
			await env.dispose();
		});

		test("a transaction holds the write lock from its first statement, a read", async () => {
			const seen = await store.db.transaction().execute(async (trx) => {
				await sql`select count(*) from t`.execute(trx);
				const other = otherWriter(file);
				await sql`insert into t (note) values ('ours')`.execute(trx);
				return other;
			});
			assert.equal(seen, "busy", "another process could write in the middle of our transaction");
			assert.equal(otherWriter(file), "locked", "and can once it has committed");
		});

		test("a transaction waits for another process's write lock instead of failing", async () => {
			const other = await holdLock(file, 300);
			const started = Date.now();
			await store.db.transaction().execute(async (trx) => {
				await sql`select count(*) from t`.execute(trx);
				await sql`insert into t (note) values ('after')`.execute(trx);
			});
			const waited = Date.now() - started;
			await other.done;
			assert.ok(waited >= 200, `waited ${waited} ms for the other writer`);
			const { rows } = await sql<{ note: string }>`select note from t order by id`.execute(store.db);
			assert.deepEqual(
				rows.map((r) => r.note),
				["ours", "other", "after"],
			);
		});
	});
}
