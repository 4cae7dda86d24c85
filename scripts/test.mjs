#!/usr/bin/env node
// Runs the suite on SQLite, then again on PostgreSQL when TEST_PG_URL is set (CI sets it).
// Usage: node scripts/test.mjs [--only sqlite|postgres] [test files...]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
let only;
const onlyAt = args.indexOf("--only");
if (onlyAt >= 0) {
	only = args[onlyAt + 1];
	args.splice(onlyAt, 2);
}

function findTests(dir) {
	const out = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...findTests(full));
		else if (entry.name.endsWith(".test.ts")) out.push(full);
	}
	return out.sort();
}

const files = args.length > 0 ? args : findTests("test");
const runs = [];
if (only !== "postgres") runs.push({ name: "sqlite", env: { TEST_DATABASE_URL: "" } });
if (only !== "sqlite") {
	if (process.env.TEST_PG_URL)
		runs.push({ name: "postgres", env: { TEST_DATABASE_URL: process.env.TEST_PG_URL } });
	else if (only === "postgres") {
		console.error("TEST_PG_URL is not set");
		process.exit(2);
	} else console.log("# TEST_PG_URL not set: PostgreSQL run skipped");
}

let failed = false;
for (const run of runs) {
	console.log(`\n# ---- suite on ${run.name} (${files.length} files) ----`);
	const result = spawnSync(
		process.execPath,
		["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=300000", ...files],
		{ stdio: "inherit", env: { ...process.env, ...run.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" } },
	);
	if (result.status !== 0) {
		failed = true;
		console.error(`# suite on ${run.name} failed`);
	}
}
process.exit(failed ? 1 : 0);
