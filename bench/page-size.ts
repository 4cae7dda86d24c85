// What one page of a collection list costs by its size (30, 500, 1000 records), in process through
// the full app (routing, validation, the queries, the row mapper, the response schema), with the
// total counted and with `skipTotal=1` as the PocketBase SDK's getFullList asks. On SQLite the
// whole request holds the event loop (better-sqlite3 is synchronous), so its time is also the
// longest stall a page causes other requests.
// `--value-chars 100000` gives every record a value of that length (the largest a value may be): the
// worst case for a page's time and memory.
// Usage: node --import tsx bench/page-size.ts [--records 100000] [--runs 30] [--value-chars N] [--pg postgres://…]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import pg from "pg";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { seedRecords } from "./seed-records.ts";

const { values } = parseArgs({
	options: {
		records: { type: "string", default: "100000" },
		runs: { type: "string", default: "30" },
		"value-chars": { type: "string" },
		pg: { type: "string" },
	},
});
const records = Number(values.records);
const runs = Number(values.runs);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-page-"));
const schema = values.pg ? `bench_page_${process.pid}` : "";
const config = loadConfig(
	{ LOG_LEVEL: "silent" },
	{ dataDir, ...(values.pg ? { databaseUrl: values.pg, databaseSchema: schema } : {}) },
);
const app = await buildApp(config);

const pct = (xs: number[], p: number) => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
const ms = (x: number) => x.toFixed(1);

try {
	const now = Date.now();
	const { accountId, workspaceId } = await createAccount(app.store.db, { email: "bench@example.org" }, now);
	const { token } = await createSession(app.store.db, accountId, now);
	const seeded = await seedRecords(app.store.db, workspaceId, records, now);
	const valueChars = Number(values["value-chars"] ?? 0);
	if (valueChars > 0) {
		await app.store.db
			.updateTable("records")
			.set({ value: "v".repeat(valueChars) })
			.execute();
	}
	// Fresh rows have no planner statistics yet; autovacuum would gather them soon after.
	if (values.pg) await sql`analyze`.execute(app.store.db);
	const headers = { authorization: `Bearer ${token}` };

	console.log(
		`${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} · node ${process.version} · ` +
			`${values.pg ? "PostgreSQL" : "SQLite"} · ${records} records${valueChars ? ` of ${valueChars}-character values` : ""} ` +
			`(seeded in ${seeded} ms) · ${runs} runs each, sequential`,
	);
	console.log("");
	console.log("| perPage | total | mean ms | p50 ms | p99 ms | ms per record | response KiB |");
	console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: |");
	for (const perPage of [30, 500, 1000]) {
		for (const skipTotal of [false, true]) {
			const url = `/api/collections/records/records?perPage=${perPage}&sort=-created${skipTotal ? "&skipTotal=1" : ""}`;
			const spent: number[] = [];
			let bytes = 0;
			for (let i = 0; i < runs + 3; i++) {
				const t0 = performance.now();
				const res = await app.inject({ method: "GET", url, headers });
				const took = performance.now() - t0;
				if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
				if ((res.json() as { items: unknown[] }).items.length !== Math.min(perPage, records)) {
					throw new Error(`${url}: short page`);
				}
				bytes = res.rawPayload.length;
				// The first three warm the statement caches and the serializer.
				if (i >= 3) spent.push(took);
			}
			const mean = spent.reduce((a, b) => a + b, 0) / spent.length;
			console.log(
				`| ${perPage} | ${skipTotal ? "skipped" : "counted"} | ${ms(mean)} | ${ms(pct(spent, 50))} | ${ms(pct(spent, 99))} | ` +
					`${(mean / perPage).toFixed(3)} | ${(bytes / 1024).toFixed(0)} |`,
			);
		}
	}
} finally {
	await app.close();
	fs.rmSync(dataDir, { recursive: true, force: true });
	if (values.pg) {
		const client = new pg.Client({ connectionString: values.pg });
		await client.connect();
		await client.query(`drop schema if exists "${schema}" cascade`);
		await client.end();
	}
}
