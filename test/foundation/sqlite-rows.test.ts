// SQLite rows are read as arrays and mapped to objects by the statement cache (src/db/index.ts):
// the objects must be what better-sqlite3 itself would build. Same column names twice (the later
// wins), a column aliased `__proto__` (an own property, never the prototype), no rows, writes with
// RETURNING, writes without, and streamed rows. SQLite only: PostgreSQL rows come from pg.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { openStore, type Store } from "../../src/db/index.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";

if (dialect === "sqlite") {
	describe("SQLite rows mapped from arrays", () => {
		let env: TestEnv;
		let store: Store;
		before(async () => {
			env = testEnv();
			store = await openStore(env.config);
			await sql`create table t (id integer primary key, name text, note text)`.execute(store.db);
		});
		after(async () => {
			await store.destroy();
			await env.dispose();
		});

		test("columns by name, in order, with their values and types", async () => {
			await sql`insert into t (id, name, note) values (1, 'a', null), (2, 'b', 'x')`.execute(store.db);
			const rows = await store.db
				.selectFrom("t" as never)
				.selectAll()
				.orderBy("id" as never)
				.execute();
			assert.deepEqual(rows, [
				{ id: 1, name: "a", note: null },
				{ id: 2, name: "b", note: "x" },
			]);
			assert.deepEqual(Object.keys(rows[0] as object), ["id", "name", "note"]);
			assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
		});

		test("the same name twice: the later column wins, as in better-sqlite3", async () => {
			const { rows } = await sql<{ v: number }>`select 1 as v, 2 as v`.execute(store.db);
			assert.deepEqual(rows, [{ v: 2 }]);
		});

		test("a column named __proto__ is an own property, not the prototype", async () => {
			const { rows } = await sql<Record<string, unknown>>`select 'p' as "__proto__", 1 as one`.execute(
				store.db,
			);
			const row = rows[0] as Record<string, unknown>;
			assert.equal(Object.getPrototypeOf(row), Object.prototype);
			assert.equal(Object.hasOwn(row, "__proto__"), true);
			assert.equal(row.one, 1);
		});

		test("no rows; a write with RETURNING; a write without", async () => {
			assert.deepEqual((await sql`select * from t where id = 99`.execute(store.db)).rows, []);
			const returned = await sql<{
				id: number;
				name: string;
			}>`insert into t (id, name) values (3, 'c') returning id, name`.execute(store.db);
			assert.deepEqual(returned.rows, [{ id: 3, name: "c" }]);
			const updated = await sql`update t set note = 'y' where id = 3`.execute(store.db);
			assert.deepEqual(updated.rows, []);
			assert.equal(updated.numAffectedRows, 1n);
		});

		test("streamed rows are objects too", async () => {
			const seen: unknown[] = [];
			for await (const row of store.db
				.selectFrom("t" as never)
				.select(["id" as never])
				.orderBy("id" as never)
				.stream()) {
				seen.push(row);
			}
			assert.deepEqual(seen, [{ id: 1 }, { id: 2 }, { id: 3 }]);
		});
	});
}
