#!/usr/bin/env node
// Runs the suite on SQLite, then again on PostgreSQL when TEST_PG_URL is set (CI sets it).
// Usage: node scripts/test.mjs [--only sqlite|postgres] [test files...]
//
// No skips (docs/testing.md): a full run without TEST_PG_URL, or any skipped or todo test or suite
// (Node reports a failing `todo` as passed and exits 0), fails the run and is listed at the end.
// ALLOW_SKIPS=1 lists them and passes; `--only sqlite` is a run that asked for one pass only.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
let only;
const onlyAt = args.indexOf("--only");
if (onlyAt >= 0) {
	only = args[onlyAt + 1];
	args.splice(onlyAt, 2);
}
if (only !== undefined && only !== "sqlite" && only !== "postgres") {
	console.error(`--only takes sqlite or postgres, not ${only}`);
	process.exit(2);
}
const allowSkips = process.env.ALLOW_SKIPS === "1";
// Files at a time. The suite waits more than it computes (browsers, spawned servers and CLIs,
// timers): a SQLite pass used about 0.8 of two cores at two files at a time, so four keep both
// busy. TEST_CONCURRENCY overrides it.
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, os.availableParallelism() * 2);

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
/** Everything that did not run: `{ run, what, why }`. */
const skipped = [];
if (only !== "postgres") runs.push({ name: "sqlite", env: { TEST_DATABASE_URL: "" } });
if (only !== "sqlite") {
	if (process.env.TEST_PG_URL)
		runs.push({ name: "postgres", env: { TEST_DATABASE_URL: process.env.TEST_PG_URL } });
	else if (only === "postgres") {
		console.error("TEST_PG_URL is not set");
		process.exit(2);
	} else {
		skipped.push({
			run: "postgres",
			what: "the whole PostgreSQL pass",
			why: "TEST_PG_URL is not set (postgres://user:password@host:5432/db), or run --only sqlite",
		});
	}
}

// The terminal keeps its usual reporter; a TAP copy goes to a file, where skips are counted. Node's
// own summary (`# skipped N`) counts skipped tests but not skipped suites, so each `# SKIP` line is.
const tapDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-tap-"));
const SKIP_LINE = /^\s*ok \d+ - (.*?) # SKIP\b ?(.*)$/;
/** A `todo` test or suite, passing or failing: Node counts neither as a failure. */
const TODO_LINE = /^\s*(not ok|ok) \d+ - (.*?) # TODO\b ?(.*)$/;
/** TAP escapes `#` and `\` in names and reasons. */
const untap = (text) => text.replace(/\\([#\\])/g, "$1");

/**
 * The failures in a TAP file with their own error and stack. Left out: subtests cancelled because
 * their parent failed (a failed hook's error sits on the parent's block) and parents failed only
 * because a subtest did (the subtest is listed).
 */
function tapFailures(lines) {
	const out = [];
	for (let i = 0; i < lines.length; i++) {
		const m = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i]);
		if (!m) continue;
		const block = [];
		if (lines[i + 1]?.trim() === "---") {
			for (let j = i + 2; j < lines.length && lines[j].trim() !== "..."; j++) block.push(lines[j]);
		}
		const yaml = block.join("\n");
		if (/failureType: '(cancelledByParent|subtestsFailed)'/.test(yaml)) continue;
		const detail = block
			.filter((l) => !/^\s*(duration_ms|type):/.test(l))
			.slice(0, 40)
			.map((l) => l.trim());
		out.push({ what: untap(m[2]), detail });
	}
	return out;
}

/**
 * Each top-level test's or suite's wall time from a TAP file (Node 20's TAP names no file; a file's
 * top-level `describe` names it well enough). The slowest are printed so a slow CI names its cause.
 */
function topLevelDurations(lines) {
	const out = [];
	for (let i = 0; i < lines.length; i++) {
		const m = /^(?:not )?ok \d+ - (.*)$/.exec(lines[i]);
		if (!m) continue;
		for (let j = i + 1; j < lines.length && lines[j].startsWith("  "); j++) {
			const d = /^\s+duration_ms: ([\d.]+)/.exec(lines[j]);
			if (d) {
				out.push({ name: untap(m[1]), ms: Number(d[1]) });
				break;
			}
		}
	}
	return out.sort((a, b) => b.ms - a.ms);
}

/** Every failure of every run, printed again at the end so a log's tail explains the run. */
const failures = [];
/** Every file's wall and CPU time per run (scripts/test-usage.mjs), written to TEST_USAGE_FILE if set. */
const usage = {};
const usageHook = new URL("./test-usage.mjs", import.meta.url).href;
let failed = false;
for (const run of runs) {
	const usageDir = fs.mkdtempSync(path.join(tapDir, `${run.name}-usage-`));
	const passStarted = Date.now();
	console.log(`\n# ---- suite on ${run.name} (${files.length} files, ${concurrency} at a time) ----`);
	const tap = path.join(tapDir, `${run.name}.tap`);
	const result = spawnSync(
		process.execPath,
		[
			"--import",
			"tsx",
			"--test",
			`--test-concurrency=${concurrency}`,
			"--test-timeout=600000",
			`--test-reporter=${process.stdout.isTTY ? "spec" : "tap"}`,
			"--test-reporter-destination=stdout",
			"--test-reporter=tap",
			`--test-reporter-destination=${tap}`,
			...files,
		],
		{
			stdio: "inherit",
			env: {
				...process.env,
				...run.env,
				LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
				NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${usageHook}`.trim(),
				SVC_TEST_USAGE_DIR: usageDir,
			},
		},
	);
	const passSeconds = (Date.now() - passStarted) / 1000;
	if (result.status !== 0) {
		failed = true;
		console.error(`# suite on ${run.name} failed`);
	}
	const lines = fs.existsSync(tap) ? fs.readFileSync(tap, "utf8").split("\n") : [];
	for (const line of lines) {
		const m = SKIP_LINE.exec(line);
		if (m) skipped.push({ run: run.name, what: untap(m[1]), why: untap(m[2]) || "(no reason given)" });
		const todo = TODO_LINE.exec(line);
		if (todo) {
			const why = `todo${todo[1] === "not ok" ? ", failing" : ""}: ${untap(todo[3]) || "(no reason given)"}`;
			skipped.push({ run: run.name, what: untap(todo[2]), why });
		}
	}
	failures.push(...tapFailures(lines).map((f) => ({ run: run.name, ...f })));
	const durations = topLevelDurations(lines);
	const total = durations.reduce((sum, d) => sum + d.ms, 0);
	console.log(
		`\n# ${run.name}: ${durations.length} top-level suites, ${(total / 1000).toFixed(0)} s in all; slowest:`,
	);
	for (const d of durations.slice(0, 12))
		console.log(`#   ${(d.ms / 1000).toFixed(1).padStart(7)} s  ${d.name}`);
	const measured = fs
		.readdirSync(usageDir)
		.map((f) => JSON.parse(fs.readFileSync(path.join(usageDir, f), "utf8")))
		.sort((a, b) => b.wall - a.wall);
	usage[run.name] = { seconds: passSeconds, files: measured };
	const sum = (key) => measured.reduce((s, f) => s + f[key], 0).toFixed(0);
	console.log(
		`\n# ${run.name}: ${passSeconds.toFixed(0)} s elapsed; ${measured.length} files, ${sum("wall")} s of file time, ` +
			`CPU ${sum("cpu")} s in the test processes and ${sum("children")} s in their children; slowest files ` +
			"(wall, CPU of the file's process + of its children):",
	);
	for (const f of measured.slice(0, 15)) {
		const figures = `${f.wall.toFixed(1).padStart(7)} s  ${f.cpu.toFixed(1).padStart(6)} + ${f.children.toFixed(1).padStart(6)} s`;
		console.log(`#   ${figures}  ${f.file}`);
	}
}
if (process.env.TEST_USAGE_FILE)
	fs.writeFileSync(process.env.TEST_USAGE_FILE, JSON.stringify(usage, null, "\t"));
fs.rmSync(tapDir, { recursive: true, force: true });

if (failures.length > 0) {
	console.log(`\n# failures in total: ${failures.length} (subtests cancelled by a failed parent left out)`);
	for (const f of failures) {
		console.log(`#   [${f.run}] ${f.what}`);
		for (const line of f.detail) console.log(`#       ${line}`);
	}
}

console.log(`\n# skipped in total: ${skipped.length}`);
for (const s of skipped) console.log(`#   [${s.run}] ${s.what}: ${s.why}`);
if (skipped.length > 0) {
	if (allowSkips) console.log("# ALLOW_SKIPS=1: skips do not fail this run");
	else {
		failed = true;
		console.error("# a skip or todo fails the run (docs/testing.md); ALLOW_SKIPS=1 lists them and passes");
	}
}
process.exit(failed ? 1 : 0);
