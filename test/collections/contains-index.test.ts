// `~` answers the same through its search index as without it: the FTS5 trigram table (SQLite) and
// the pg_trgm indexes (PostgreSQL) only narrow, the exact test decides. A few hundred records of
// awkward text are searched with awkward values, and every answer is compared with a plain reading
// of every record in JS: contains, with A-Z and a-z alike and every other character only itself.
// Then what keeps the index honest: triggers, VACUUM, and on PostgreSQL the extension's life.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import pg from "pg";
import { buildApp, collections } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import type { Database } from "../../src/db/schema.ts";
import { type FilterNode, parseFilter } from "../../src/features/collections/filter.ts";
import { filterToSql } from "../../src/features/collections/filter-sql.ts";
import type { QueryField } from "../../src/features/collections/registry.ts";
import { recordsCollection } from "../../src/features/vault/records/collection.ts";
import { newRecordRow } from "../../src/features/vault/records/rows.ts";
import { dialect, makeApp, PG_URL, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";

// Text with wildcards, quotes, backslashes, letters SQLite and PostgreSQL might fold differently
// (ß, Ä, İ, ı, Σ/σ/ς), combining marks, astral characters, CJK and white space.
const FRAGMENTS = [
	"Alpha Bank",
	"beta_card",
	"100%",
	"50% off",
	"a_b",
	"a%b",
	"C:\\path\\to",
	"back\\\\slash",
	"it's",
	'say "hi"',
	"Straße",
	"STRASSE",
	"Ärger",
	"ärger",
	"ÄRGER",
	"İstanbul",
	"istanbul",
	"ıi",
	"Σίσυφος",
	"ΣΊΣΥΦΟΣ",
	"😀 smile",
	"x😀y",
	"naïve",
	"nai\u0308ve",
	"日本語テキスト",
	"tab\there",
	"line\nbreak",
	"   spaced   ",
	"MiXeD CaSe",
	"mixed case",
	"abcabc",
	"ABC",
	"xyz123",
	"12345",
	"1",
];
const KEYS = ["iban", "tax-id", "a_b", "email", "x1", "abc", "passport", "bank_2"];

const VALUES = [
	"%",
	"_",
	"\\",
	"'",
	'"',
	"%_",
	"a%b",
	"a_b",
	"0%",
	"\\p",
	"C:\\",
	"\\\\",
	"it's",
	'"hi"',
	"a",
	"A",
	"z",
	"1",
	"ä",
	"Ä",
	"ß",
	"ı",
	"I",
	"i",
	"😀",
	"Σ",
	"σ",
	"日",
	" ",
	"ab",
	"AB",
	"12",
	"x😀",
	"😀y",
	"_2",
	"abc",
	"ABC",
	"bank",
	"BANK",
	"straße",
	"STRASSE",
	"ärger",
	"ÄRGER",
	"RGER",
	"İstanbul",
	"ISTANBUL",
	"x😀y",
	"😀 s",
	"123",
	"2345",
	"tab\t",
	"\nbr",
	"   ",
	"ΣΊΣ",
	"σίσ",
	"日本語",
	"naïve",
	"i\u0308v",
	"alpha bank",
	"_card",
	"tax-",
	"%_x",
	"no such text",
	"",
];

const FIELDS = ["key", "name", "value", "file.name"] as const;
type FieldName = (typeof FIELDS)[number];

interface Row {
	id: string;
	workspace: string;
	key: string;
	name: string;
	value: string | null;
	alias: string | null;
	file_name: string | null;
}

const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const contains = (text: string | null, value: string) => asciiLower(text ?? "").includes(asciiLower(value));

/** What a field reads, as collection.ts declares it: an alias reads its target's value. */
function read(row: Row, field: FieldName, byId: Map<string, Row>): string | null {
	switch (field) {
		case "key":
			return row.key;
		case "name":
			return row.name;
		case "value":
			return row.alias === null ? row.value : (byId.get(row.alias)?.value ?? null);
		case "file.name":
			return row.file_name;
	}
}

/** The filter for one field, op and value; the value written with the filter language's escapes. */
function filterOf(field: FieldName, op: "~" | "!~", value: string): string {
	const escaped = value.replace(
		/[\\"\n\t]/g,
		(c) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t" })[c] ?? c,
	);
	return `${field} ${op} "${escaped}"`;
}

/** The query fields without their search index: `~` as a plain scan. */
const plainFields: Record<string, QueryField> = Object.fromEntries(
	Object.entries(recordsCollection.query).map(([name, { search: _, ...f }]) => [name, f]),
);

/** For each filter, the ids of every record (all workspaces) it matches, under these planner settings. */
async function idsWhere(db: Kysely<Database>, wheres: Expression<SqlBool>[], settings: string[]) {
	return db.transaction().execute(async (trx) => {
		for (const s of settings) await sql.raw(`set local ${s}`).execute(trx);
		const out: string[][] = [];
		for (const where of wheres) {
			const rows = await trx.selectFrom("records").select("records.id").where(where).execute();
			out.push(rows.map((r) => r.id).sort());
		}
		return out;
	});
}

describe("~ through the search index answers as a plain scan does", () => {
	let t: TestApp;
	let a: TestAccount;
	let rows: Row[] = [];
	let byId = new Map<string, Row>();

	before(async () => {
		t = await makeApp();
		a = await buildAccount(t.app);
		const other = await buildAccount(t.app);
		const db = t.app.store.db;
		const now = t.app.clock.now();
		const made: { id: string; kind: string; alias: string | null }[] = [];
		for (let i = 0; i < 320; i++) {
			const workspace = i % 11 === 5 ? other.workspaceId : a.workspaceId;
			const frag = (k: number) => FRAGMENTS[k % FRAGMENTS.length] as string;
			const file = i % 13 === 7;
			// Every 17th record an alias of an earlier value record of the workspace.
			const targets = made.filter((m) => m.kind === "value" && m.alias === null);
			const target = i % 17 === 3 ? targets[(i * 5) % Math.max(targets.length, 1)] : undefined;
			const row = newRecordRow(
				{
					workspace,
					key: KEYS[i % KEYS.length] as string,
					name: `${frag(i)} ${frag(i * 7 + 3)}`,
					kind: file ? "file" : "value",
					value: file
						? null
						: target
							? ""
							: i === 100
								? `${"filler ".repeat(700)}${frag(i)}`
								: frag(i * 5 + 1),
					alias: !file && target ? target.id : null,
					file_name: file ? `${frag(i * 3 + 2)}.pdf` : null,
				},
				now + i,
			);
			await db.insertInto("records").values(row).execute();
			if (workspace === a.workspaceId) made.push({ id: row.id, kind: row.kind, alias: row.alias });
		}
		// Changes through the API run the index's update and delete triggers.
		const patch = async (id: string, payload: Record<string, unknown>) => {
			const res = await t.app.inject({
				method: "PATCH",
				url: `/api/collections/records/records/${id}`,
				headers: a.headers,
				payload,
			});
			assert.equal(res.statusCode, 200, res.body);
		};
		const plain = made.filter((m) => m.kind === "value" && m.alias === null);
		await patch((plain[0] as { id: string }).id, { name: "Renamed Straße 😀 quux", value: "fresh %value_" });
		await patch((plain[1] as { id: string }).id, { key: "renamed-key" });
		await patch((plain[2] as { id: string }).id, { alias: (plain[3] as { id: string }).id });
		const gone = await t.app.inject({
			method: "DELETE",
			url: `/api/collections/records/records/${(plain[4] as { id: string }).id}`,
			headers: a.headers,
		});
		assert.equal(gone.statusCode, 204, gone.body);

		rows = (await db
			.selectFrom("records")
			.select(["id", "workspace", "key", "name", "value", "alias", "file_name"])
			.execute()) as Row[];
		byId = new Map(rows.map((r) => [r.id, r]));
	});
	after(() => t.close());

	const expected = (field: FieldName, op: "~" | "!~", value: string, only?: string) =>
		rows
			.filter((r) => only === undefined || r.workspace === only)
			.filter((r) => contains(read(r, field, byId), value) === (op === "~"))
			.map((r) => r.id)
			.sort();

	// Through the index where the planner may take it, and with it impossible: PostgreSQL's GIN
	// indexes serve bitmap scans only; SQLite is told to use FTS5 by the SQL itself.
	const indexed = dialect === "postgres" ? ["enable_seqscan = off"] : [];
	const unindexed = dialect === "postgres" ? ["enable_bitmapscan = off"] : [];

	for (const value of VALUES) {
		test(`value ${JSON.stringify(value)}`, async () => {
			const d = t.app.store.dialect;
			const cases = FIELDS.flatMap((field) =>
				(["~", "!~"] as const).map((op) => {
					const filter = filterOf(field, op, value);
					return { field, op, filter, ast: parseFilter(filter) as FilterNode };
				}),
			);
			const viaIndex = await idsWhere(
				t.app.store.db,
				cases.map((c) => filterToSql(c.ast, recordsCollection.query, d)),
				indexed,
			);
			const viaScan = await idsWhere(
				t.app.store.db,
				cases.map((c) => filterToSql(c.ast, plainFields, d)),
				unindexed,
			);
			for (const [i, { field, op, filter }] of cases.entries()) {
				const want = expected(field, op, value);
				assert.deepEqual(viaIndex[i], want, `${filter} with the index`);
				assert.deepEqual(viaScan[i], want, `${filter} without the index`);

				const url = `/api/collections/records/records?sort=id&perPage=1000&filter=${encodeURIComponent(filter)}`;
				const res = await t.app.inject({ method: "GET", url, headers: a.headers });
				assert.equal(res.statusCode, 200, `${filter}: ${res.body}`);
				const page = res.json() as { totalItems: number; items: { id: string }[] };
				const mine = expected(field, op, value, a.workspaceId);
				assert.deepEqual(page.items.map((item) => item.id).sort(), mine, `${filter} through the API`);
				assert.equal(page.totalItems, mine.length, `${filter}: totalItems`);
			}
		});
	}

	test("the index matches three characters, not three UTF-16 units", async () => {
		// "x😀" is three UTF-16 units but two characters: no trigram to look up, still found.
		const url = `/api/collections/records/records?perPage=1000&filter=${encodeURIComponent('name ~ "x😀"')}`;
		const res = await t.app.inject({ method: "GET", url, headers: a.headers });
		assert.equal(res.statusCode, 200, res.body);
		assert.ok((res.json() as { totalItems: number }).totalItems > 0);
	});
});

describe("~ ignores the case of A-Z only, on both databases", () => {
	let t: TestApp;
	let b: TestAccount;
	before(async () => {
		t = await makeApp();
		b = await buildAccount(t.app);
		for (const name of ["Ärger", "ärger", "ÄRGER", "Alpha Bank", "Straße", "ΣΊΣΥΦΟΣ", "İstanbul"]) {
			const res = await t.app.inject({
				method: "POST",
				url: "/api/collections/records/records",
				headers: b.headers,
				payload: { key: "k", name },
			});
			assert.equal(res.statusCode, 200, res.body);
		}
	});
	after(() => t.close());

	const names = async (filter: string) => {
		const url = `/api/collections/records/records?filter=${encodeURIComponent(filter)}`;
		const res = await t.app.inject({ method: "GET", url, headers: b.headers });
		assert.equal(res.statusCode, 200, res.body);
		return (res.json() as { items: { name: string }[] }).items.map((i) => i.name).sort();
	};
	const table: [string, string[]][] = [
		["ÄRGER", ["ÄRGER", "Ärger"]],
		["rger", ["ÄRGER", "Ärger", "ärger"]],
		["alpha BANK", ["Alpha Bank"]],
		["STRASSE", []],
		["σίσυφος", []],
		["istanbul", []],
		["İSTANBUL", ["İstanbul"]],
	];
	for (const [value, found] of table) {
		test(`name ~ ${JSON.stringify(value)}`, async () => {
			assert.deepEqual(await names(`name ~ "${value}"`), found);
		});
	}
});

describe("~ and !~ on every text field of every collection", () => {
	let t: TestApp;
	let a: TestAccount;
	before(async () => {
		t = await makeApp();
		a = await buildAccount(t.app);
	});
	after(() => t.close());

	for (const { module } of collections) {
		if (!module.access.list) continue;
		const text = Object.entries(module.query).filter(([, f]) => f.type === "text" && f.filter !== false);
		if (text.length === 0) continue;
		test(module.name, async () => {
			for (const [name] of text) {
				const filter = `${name} ~ "a%_\\\\'x" || ${name} !~ "AbC" || ${name} ~ "a"`;
				const url = `/api/collections/${module.name}/records?filter=${encodeURIComponent(filter)}`;
				const res = await t.app.inject({ method: "GET", url, headers: a.headers });
				assert.equal(res.statusCode, 200, `${module.name}.${name}: ${res.body}`);
			}
		});
	}
});

if (dialect === "sqlite") {
	describe("SQLite: the FTS5 table stays in step with the records", () => {
		let t: TestApp;
		let a: TestAccount;
		const integrity = (db: Kysely<Database>) =>
			sql`insert into records_search(records_search, rank) values ('integrity-check', 1)`.execute(db);
		const names = async (filter: string) => {
			const url = `/api/collections/records/records?perPage=1000&filter=${encodeURIComponent(filter)}`;
			const res = await t.app.inject({ method: "GET", url, headers: a.headers });
			assert.equal(res.statusCode, 200, res.body);
			return (res.json() as { items: { name: string }[] }).items.map((i) => i.name).sort();
		};
		before(async () => {
			t = await makeApp();
			a = await buildAccount(t.app);
		});
		after(() => t.close());

		test("through creates, renames, deletes, a deleted workspace and VACUUM", async () => {
			const create = async (account: TestAccount, body: Record<string, unknown>) => {
				const res = await t.app.inject({
					method: "POST",
					url: "/api/collections/records/records",
					headers: account.headers,
					payload: body,
				});
				assert.equal(res.statusCode, 200, res.body);
				return (res.json() as { id: string }).id;
			};
			const one = await create(a, { key: "iban", name: "Old Name", value: "DE89 3704" });
			await create(a, { key: "iban", name: "Other Name", value: "DE00 0000" });
			const other = await buildAccount(t.app);
			for (let i = 0; i < 5; i++) await create(other, { key: "iban", name: `Old Name ${i}` });

			await t.app.inject({
				method: "PATCH",
				url: `/api/collections/records/records/${one}`,
				headers: a.headers,
				payload: { name: "New Name" },
			});
			assert.deepEqual(await names('name ~ "old name"'), []);
			assert.deepEqual(await names('name ~ "new name"'), ["New Name"]);
			// A change the index does not hold (visibility) leaves it alone.
			await t.app.inject({
				method: "PATCH",
				url: `/api/collections/records/records/${one}`,
				headers: a.headers,
				payload: { hidden: true },
			});
			await integrity(t.app.store.db);

			// Deleting a workspace removes its records by cascade, which runs the delete trigger.
			await t.app.store.db.deleteFrom("workspaces").where("id", "=", other.workspaceId).execute();
			await integrity(t.app.store.db);

			await sql`vacuum`.execute(t.app.store.db);
			await integrity(t.app.store.db);
			assert.deepEqual(await names('name ~ "NAME"'), ["New Name", "Other Name"]);
			assert.deepEqual(await names('value ~ "3704"'), ["New Name"]);
		});

		test("the count of a key-and-visibility list with `name ~` reads the index alone", async () => {
			const base = recordsCollection
				.select(t.app.store.db, { workspaceId: a.workspaceId, scopes: ["hidden:read"] } as never)
				.where(
					filterToSql(
						parseFilter("key = 'iban' && hidden = false && name ~ '1'") as never,
						recordsCollection.query,
						"sqlite",
					),
				)
				.clearSelect()
				.select(sql<number>`count(*)`.as("n"))
				.compile();
			const plan = await t.app.store.db.executeQuery({ ...base, sql: `explain query plan ${base.sql}` });
			const detail = (plan.rows as { detail: string }[]).map((r) => r.detail).join("\n");
			assert.match(detail, /COVERING INDEX records_workspace_key_hidden_updated_name/);
		});
	});
}

if (dialect === "postgres") {
	describe("PostgreSQL: pg_trgm", () => {
		let t: TestApp;
		before(async () => {
			t = await makeApp();
		});
		after(() => t.close());

		test("the indexes are built in the app's schema, the extension lives in public", async () => {
			const { rows } = await sql<{ indexname: string }>`
				select indexname from pg_indexes where schemaname = current_schema() and indexname like '%_trgm'
				order by indexname`.execute(t.app.store.db);
			assert.deepEqual(
				rows.map((r) => r.indexname),
				["records_file_name_trgm", "records_key_trgm", "records_name_trgm", "records_value_trgm"],
			);
			const ext = await sql<{ schema: string }>`
				select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
				where e.extname = 'pg_trgm'`.execute(t.app.store.db);
			assert.equal(ext.rows[0]?.schema, "public");
		});

		test("a three-character `~` on name is answered from its trigram index", async () => {
			const where = filterToSql(parseFilter('name ~ "abc"') as never, recordsCollection.query, "postgres");
			const query = t.app.store.db.selectFrom("records").select("id").where(where).compile();
			const plan = await t.app.store.db.transaction().execute(async (trx) => {
				await sql`set local enable_seqscan = off`.execute(trx);
				return trx.executeQuery({ ...query, sql: `explain ${query.sql}` });
			});
			const text = (plan.rows as Record<string, string>[]).map((r) => r["QUERY PLAN"]).join("\n");
			assert.match(text, /records_name_trgm/);
		});
	});

	describe("PostgreSQL: the extension in a database of its own", () => {
		const suffix = crypto.randomBytes(5).toString("hex");
		const database = `svc_trgm_${suffix}`;
		const role = `svc_noext_${suffix}`;
		const url = (user?: string) => {
			const u = new URL(PG_URL);
			u.pathname = `/${database}`;
			if (user) {
				u.username = user;
				u.password = "pw";
			}
			return u.toString();
		};
		const admin = async <T>(connection: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
			const c = new pg.Client({ connectionString: connection });
			await c.connect();
			try {
				return await fn(c);
			} finally {
				await c.end();
			}
		};
		/** An app on the private database; its warnings are collected. */
		const start = async (databaseUrl: string, databaseSchema: string) => {
			const warnings: string[] = [];
			const logStream = new Writable({
				write(chunk, _enc, done) {
					const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
					if (line.level >= 40) warnings.push(line.msg);
					done();
				},
			});
			const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-"));
			const config = loadConfig({ LOG_LEVEL: "warn" }, { dataDir, databaseUrl, databaseSchema });
			const app = await buildApp(config, { logStream });
			return { app, warnings };
		};
		const trgmIndexes = async (db: Kysely<Database>) =>
			Number(
				(
					await sql<{ n: string }>`
						select count(*) as n from pg_indexes where schemaname = current_schema() and indexname like '%_trgm'`.execute(
						db,
					)
				).rows[0]?.n,
			);
		const extension = (c: pg.Client) =>
			c.query("select 1 from pg_extension where extname = 'pg_trgm'").then((r) => r.rowCount === 1);

		before(async () => {
			await admin(PG_URL, async (c) => {
				await c.query(`create database ${database}`);
				await c.query(`create role ${role} login password 'pw'`);
			});
			// The role owns a schema of its name ("$user" leads the default search path) and nothing more.
			await admin(url(), (c) => c.query(`create schema ${role} authorization ${role}`));
		});
		after(async () => {
			await admin(PG_URL, async (c) => {
				await c.query(`drop database if exists ${database} with (force)`);
				await c.query(`drop role if exists ${role}`);
			});
		});

		test("a role that may not create it: the server starts, warns once, and `~` still answers", async () => {
			const { app, warnings } = await start(url(role), "");
			try {
				assert.equal(warnings.filter((w) => w.includes("pg_trgm")).length, 1, warnings.join("\n"));
				assert.equal(await trgmIndexes(app.store.db), 0);
				const a = await buildAccount(app);
				for (const name of ["Alpha Bank", "beta", "BANKING"]) {
					const res = await app.inject({
						method: "POST",
						url: "/api/collections/records/records",
						headers: a.headers,
						payload: { key: "k", name },
					});
					assert.equal(res.statusCode, 200, res.body);
				}
				const res = await app.inject({
					method: "GET",
					url: `/api/collections/records/records?sort=name&filter=${encodeURIComponent('name ~ "bank"')}`,
					headers: a.headers,
				});
				assert.deepEqual(
					(res.json() as { items: { name: string }[] }).items.map((i) => i.name),
					["Alpha Bank", "BANKING"],
				);
			} finally {
				await app.close();
			}
			assert.equal(await admin(url(), extension), false);
		});

		test("created by another client at the same moment: tolerated, and the indexes are built", async () => {
			const other = new pg.Client({ connectionString: url() });
			await other.connect();
			let started: Awaited<ReturnType<typeof start>> | undefined;
			try {
				await other.query("begin");
				await other.query("create extension pg_trgm with schema public");
				const starting = start(url(), "t_race");
				// The app's own creation waits on ours (the catalog's unique index) before we commit.
				const deadline = Date.now() + 10_000;
				for (;;) {
					const waiting = await admin(url(), (c) =>
						c.query(
							"select 1 from pg_stat_activity where datname = current_database() and query ilike 'create extension%' and wait_event_type = 'Lock'",
						),
					);
					if (waiting.rowCount) break;
					assert.ok(Date.now() < deadline, "the app never tried to create the extension");
					await new Promise((r) => setTimeout(r, 50));
				}
				await other.query("commit");
				started = await starting;
				assert.deepEqual(started.warnings, []);
				assert.equal(await trgmIndexes(started.app.store.db), 4);
			} finally {
				await other.end();
				await started?.app.close();
			}
		});

		test("dropping an app's schema leaves the extension for the others", async () => {
			await admin(url(), async (c) => {
				assert.equal(await extension(c), true);
				await c.query("drop schema t_race cascade");
				assert.equal(await extension(c), true);
			});
		});
	});
}
