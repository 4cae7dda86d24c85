// Group commit (src/db/direct.ts): the direct writes asked for in one event-loop round run in one
// `BEGIN IMMEDIATE … COMMIT`, each in its own savepoint. Checked on a real store: the writes of one
// round see each other in order; one that throws rolls back alone; one that ends the transaction
// takes the whole group with it, which only happens when they share it; a write asked for while a
// Kysely transaction holds the connection waits for that commit. SQLite only.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { sql } from "kysely";
import { type SqliteDirect, sqliteDirect } from "../../src/db/direct.ts";
import { openStore, type Store } from "../../src/db/index.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";

if (dialect === "sqlite") {
	describe("SQLite group commit", () => {
		let env: TestEnv;
		let store: Store;
		let direct: SqliteDirect;
		before(async () => {
			env = testEnv();
			store = await openStore(env.config);
			direct = sqliteDirect(store.db) as SqliteDirect;
			assert.ok(direct, "the app's SQLite handle has a direct face");
		});
		after(async () => {
			await store.destroy();
			await env.dispose();
		});
		beforeEach(async () => {
			await sql`drop table if exists g`.execute(store.db);
			await sql`create table g (id integer primary key, note text not null)`.execute(store.db);
		});

		const insert = (note: string) => () => {
			direct.all("insert into g (note) values (?)", [note]);
			return direct.all<{ n: number }>("select count(*) as n from g", [])[0]?.n;
		};
		const notes = async () =>
			(await sql<{ note: string }>`select note from g order by id`.execute(store.db)).rows.map((r) => r.note);

		test("the writes of one round run in order, each seeing the ones before it", async () => {
			const counts = await Promise.all([
				direct.write(insert("a")),
				direct.write(insert("b")),
				direct.write(insert("c")),
			]);
			assert.deepEqual(counts, [1, 2, 3]);
			assert.deepEqual(await notes(), ["a", "b", "c"]);
		});

		test("a write that throws rolls back alone; the others of its round commit", async () => {
			const outcomes = await Promise.allSettled([
				direct.write(insert("a")),
				direct.write(() => {
					insert("b")();
					throw new Error("refused");
				}),
				direct.write(insert("c")),
			]);
			assert.deepEqual(
				outcomes.map((o) => o.status),
				["fulfilled", "rejected", "fulfilled"],
			);
			assert.equal((outcomes[1] as PromiseRejectedResult).reason.message, "refused");
			assert.deepEqual(outcomes[2], { status: "fulfilled", value: 2 }, "c never saw b");
			assert.deepEqual(await notes(), ["a", "c"]);
		});

		test("a write that ends the transaction takes its whole round with it: they shared one", async () => {
			const outcomes = await Promise.allSettled([
				direct.write(insert("a")),
				direct.write(insert("b")),
				direct.write(() => {
					direct.all("rollback", []);
					throw new Error("transaction ended");
				}),
				direct.write(insert("d")),
			]);
			for (const outcome of outcomes) {
				assert.equal(outcome.status, "rejected", "no write of the round was committed");
				assert.equal((outcome as PromiseRejectedResult).reason.message, "transaction ended");
			}
			assert.deepEqual(await notes(), []);
			// The next round starts afresh.
			assert.equal(await direct.write(insert("e")), 1);
		});

		test("writes of different rounds commit apart", async () => {
			await direct.write(insert("a"));
			const failed = direct.write(() => {
				direct.all("rollback", []);
				throw new Error("transaction ended");
			});
			await assert.rejects(failed, /transaction ended/);
			assert.deepEqual(await notes(), ["a"]);
		});

		test("a write asked for while a Kysely transaction holds the connection waits for its commit", async () => {
			const order: string[] = [];
			let pending: Promise<number | undefined> | undefined;
			await store.db.transaction().execute(async (trx) => {
				await sql`insert into g (note) values ('kysely')`.execute(trx);
				pending = direct.write(insert("direct")).then((n) => {
					order.push("written");
					return n;
				});
				await new Promise((r) => setTimeout(r, 30));
				order.push("committing");
			});
			assert.equal(await pending, 2);
			assert.deepEqual(order, ["committing", "written"]);
			assert.deepEqual(await notes(), ["kysely", "direct"]);
		});
	});
}
