#!/usr/bin/env node
// Runs the suite on SQLite and on PostgreSQL (when TEST_PG_URL is set; CI sets it).
// Usage: node scripts/test.mjs [--only sqlite|postgres] [--save-timings] [test files...]
//
// The sources are compiled first (tsconfig.test.json: tsc without its type check, which `npm run
// typecheck` does, into dist/; the console into dist/web/console) and every file runs compiled on
// plain Node: loading the server through tsx's hooks cost each test process about four seconds of
// CPU more. TEST_FROM_SOURCE=1 runs the .ts files through tsx instead, with no build.
//
// Every file on every database runs in a job, one Node process (scripts/test-batch.mjs, each file
// in a suite of its own), and the jobs of both databases share one pool: the slowest first
// (test/timings.json, from an earlier run), so the run never ends with one long browser file alone
// on the machine, and neither pass waits for the other's last file. A file that takes long, or
// drives Chromium, is a job alone; small files go several to a job, which loads the server once
// for them all (about two core-seconds a process). A file whose header says `// Runs once, not per database: <why>` runs in the
// first pass only (what it tests does not depend on the database: the console's look, a parser).
//
// No skips (docs/testing.md): a full run without TEST_PG_URL, or any skipped or todo test or suite
// (Node reports a failing `todo` as passed and exits 0), fails the run and is listed at the end.
// ALLOW_SKIPS=1 lists them and passes; `--only sqlite` is a run that asked for one pass only.
import { spawn, spawnSync } from "node:child_process";
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
const saveAt = args.indexOf("--save-timings");
const saveTimings = saveAt >= 0;
if (saveTimings) args.splice(saveAt, 1);
const allowSkips = process.env.ALLOW_SKIPS === "1";
// Processes at a time. The suite waits more than it computes (browsers, spawned servers and CLIs,
// timers), so twice the cores keeps them busy (docs/testing.md, "Where the time goes").
// TEST_CONCURRENCY overrides it.
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, os.availableParallelism() * 2);
// Browser files run in at most half the slots at a time: four Chromiums on two cores once took one
// file past its ten minutes. The next job is the slowest that may start.
const browserSlots = Math.max(1, Math.floor(concurrency / 2));
/** The limit on one file (its suite in scripts/test-batch.mjs), which its tests inherit. */
const TIMEOUT_MS = 600_000;
const TIMINGS = "test/timings.json";
const fromSource = process.env.TEST_FROM_SOURCE === "1";

function findTests(dir) {
	const out = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...findTests(full));
		else if (entry.name.endsWith(".test.ts")) out.push(full);
	}
	return out.sort();
}

/** A file that drives Chromium (directly or through a shared suite). */
const BROWSER = /helpers\/browser\.ts|playwright-core/;
/** Whether `file`, or a module it imports from its own folder (a shared suite), drives Chromium. */
function drivesBrowser(file) {
	const text = fs.readFileSync(file, "utf8");
	if (BROWSER.test(text)) return true;
	return [...text.matchAll(/from "\.\/([^"]+\.ts)"/g)].some((m) => {
		const local = path.join(path.dirname(file), m[1]);
		return fs.existsSync(local) && BROWSER.test(fs.readFileSync(local, "utf8"));
	});
}
/**
 * The reason a file's header gives after `// <label>: `, or undefined without that line. A line
 * without a reason stops the run.
 */
function headerReason(file, label) {
	const m = new RegExp(`^// ${label}: (.*)$`, "m").exec(fs.readFileSync(file, "utf8"));
	if (!m) return undefined;
	if (m[1].trim().length < 10) {
		console.error(`${file}: "${label}:" must say why`);
		process.exit(2);
	}
	return m[1].trim();
}
/** Why a file runs in one pass only, or undefined when it runs in every pass. */
const runsOnce = (file) => headerReason(file, "Runs once, not per database");
/**
 * Why a file must have a process to itself (it asserts on the whole process: the modules it
 * loaded, its peak memory), or undefined.
 */
const runsAlone = (file) => headerReason(file, "Runs alone in its process");

const files = (args.length > 0 ? args : findTests("test")).map((f) => path.normalize(f));
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

/** `{ file: { sqlite: s, postgres: s } }`: each job's wall time in an earlier run, to order the jobs. */
const timings = fs.existsSync(TIMINGS) ? JSON.parse(fs.readFileSync(TIMINGS, "utf8")) : {};
function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)] : 30;
}
const typical = Object.fromEntries(
	runs.map((run) => [
		run.name,
		median(Object.values(timings).flatMap((t) => (t[run.name] === undefined ? [] : [t[run.name]]))),
	]),
);

/**
 * Files expected to take less than SMALL seconds (test/timings.json, measured in a whole run on a
 * loaded two-core machine, where files take about twice as long as alone) share a job, up to BATCH
 * seconds of them: enough to spread the load cost, small enough that the run's tail stays fine.
 * Files that drive Chromium share a job with each other only, and their Chromium with it
 * (test/helpers/browser.ts), which costs another seven core-seconds to start.
 * TEST_BATCH=1 gives every file a job of its own.
 */
const SMALL = { plain: 60, browser: 120 };
const BATCH = { plain: Number(process.env.TEST_BATCH_SECONDS) || 180, browser: 240 };
const batching = process.env.TEST_BATCH !== "1";

const once = [];
/** Per pass, the files to run: `{ file, run, expected, browser, alone }`. */
const units = [];
for (const file of files) {
	const why = runsOnce(file);
	if (why) once.push({ file, why });
	const browser = drivesBrowser(file);
	const alone = runsAlone(file) !== undefined;
	for (const run of why ? runs.slice(0, 1) : runs) {
		units.push({ file, run, expected: timings[file]?.[run.name] ?? typical[run.name], browser, alone });
	}
}
units.sort((a, b) => b.expected - a.expected);
/** `{ files, run, expected, browser }`: one process each. */
const jobs = [];
const open = new Map();
for (const unit of units) {
	const kind = unit.browser ? "browser" : "plain";
	if (!batching || unit.alone || unit.expected >= SMALL[kind]) {
		jobs.push({ files: [unit.file], run: unit.run, expected: unit.expected, browser: unit.browser });
		continue;
	}
	const key = `${unit.run.name} ${kind}`;
	let batch = open.get(key);
	if (!batch || batch.expected + unit.expected > BATCH[kind]) {
		batch = { files: [], run: unit.run, expected: 0, browser: unit.browser };
		open.set(key, batch);
		jobs.push(batch);
	}
	batch.files.push(unit.file);
	batch.expected += unit.expected;
}
jobs.sort((a, b) => b.expected - a.expected);

const tapDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-tap-"));
const usageDir = fs.mkdtempSync(path.join(tapDir, "usage-"));
const usageHook = new URL("./test-usage.mjs", import.meta.url).href;
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
 * The TAP stream of a job cut into its files: each file is a top-level suite named after it
 * (scripts/test-batch.mjs). Per file: its lines, its time (the suite's duration_ms, in seconds) and
 * its counts, leaves only (a result whose block says `type: 'suite'` is a suite).
 */
function tapFiles(lines, files) {
	const out = new Map(
		files.map((f) => [f, { lines: [], seconds: undefined, counts: { tests: 0, pass: 0, fail: 0 } }]),
	);
	let current;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		const start = /^# Subtest: (.*)$/.exec(line);
		if (start && out.has(untap(start[1]))) {
			current = out.get(untap(start[1]));
			continue;
		}
		const end = /^(not ok|ok) \d+ - (.*)$/.exec(line);
		if (end && out.has(untap(end[2]))) {
			const file = out.get(untap(end[2]));
			file.lines.push(line);
			for (let j = i + 1; j < lines.length && /^ {2}/.test(lines[j]); j++) {
				file.lines.push(lines[j]);
				const d = /^ {2}duration_ms: ([\d.]+)/.exec(lines[j]);
				if (d) file.seconds = Number(d[1]) / 1000;
			}
			current = undefined;
			continue;
		}
		if (current) current.lines.push(line);
	}
	for (const file of out.values()) {
		const fl = file.lines;
		for (let i = 0; i < fl.length; i++) {
			const m = /^\s*(not ok|ok) \d+ - (.*)$/.exec(fl[i]);
			if (!m || /^(not ok|ok) /.test(fl[i])) continue;
			let suite = false;
			if (fl[i + 1]?.trim() === "---") {
				for (let j = i + 2; j < fl.length && fl[j].trim() !== "..."; j++) {
					if (/^\s*type: 'suite'/.test(fl[j])) suite = true;
				}
			}
			if (suite) continue;
			file.counts.tests++;
			if (m[1] === "ok" && !/ # (SKIP|TODO)\b/.test(m[2])) file.counts.pass++;
			else if (m[1] === "not ok" && !/ # TODO\b/.test(m[2])) file.counts.fail++;
		}
	}
	return out;
}

const started = Date.now();
if (!fromSource) {
	const build = (what, argv) => {
		const t0 = Date.now();
		const result = spawnSync(process.execPath, argv, { stdio: "inherit" });
		if (result.status !== 0) {
			console.error(`# ${what} failed`);
			process.exit(1);
		}
		console.log(`# ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	};
	build("compiled src, cli, scripts and test into dist/", [
		"node_modules/typescript/bin/tsc",
		"-p",
		"tsconfig.test.json",
	]);
	build("built the console into dist/web/console", ["scripts/build-web.mjs"]);
	// Tests import the examples' plain JavaScript (examples/present-service) by a path relative to
	// themselves, which from dist/test/ is dist/examples.
	fs.rmSync("dist/examples", { recursive: true, force: true });
	fs.symlinkSync("../examples", "dist/examples");
	// dist/src and dist/cli are what `tsc -p tsconfig.build.json` writes: the CLI tests need not
	// compile them again (test/helpers/build.ts).
	fs.writeFileSync("dist/.built", new Date().toISOString());
}
/** What a job runs: the compiled copies of its test files, or the files themselves through tsx. */
const entry = (files) =>
	fromSource
		? ["--import", "tsx", "scripts/test-batch.mjs", ...files]
		: ["--enable-source-maps", "scripts/test-batch.mjs", "--dist", ...files];
const clock = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s`;
/** Every failure of every run, printed again at the end so a log's tail explains the run. */
const failures = [];
const done = [];
let failed = false;

console.log(
	`# ---- ${files.length} files on ${runs.map((r) => r.name).join(" and ")}: ${units.length} runs of a file ` +
		`in ${jobs.length} processes, ` +
		`${concurrency} at a time (${browserSlots} with a browser), slowest first ----`,
);
if (once.length > 0 && runs.length > 1)
	console.log(`# ${once.length} files run once, on ${runs[0].name} (their headers say why)`);

/**
 * A job that has not exited this long after its files' limits (a handle left open keeps a process
 * alive after its last test) is stopped and fails.
 */
const graceMs = 120_000;

function runJob(job, index) {
	const tap = path.join(tapDir, `${index}.tap`);
	const jobStarted = Date.now();
	const name = `${job.run.name} ${job.files.join(" ")}`;
	return new Promise((resolve) => {
		const child = spawn(
			process.execPath,
			["--test-reporter=tap", `--test-reporter-destination=${tap}`, ...entry(job.files)],
			{
				stdio: ["ignore", "pipe", "pipe"],
				env: {
					...process.env,
					...job.run.env,
					LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
					NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${usageHook}`.trim(),
					SVC_TEST_USAGE_DIR: usageDir,
					SVC_TEST_JOB: name,
				},
			},
		);
		let overdue = false;
		const watchdog = setTimeout(
			() => {
				overdue = true;
				child.kill("SIGKILL");
			},
			TIMEOUT_MS * job.files.length + graceMs,
		);
		// What the files printed outside their tests (stdout, stderr, a crash): shown when the job fails.
		let output = "";
		const keep = (d) => {
			output = (output + d.toString()).slice(-20_000);
		};
		child.stdout.on("data", keep);
		child.stderr.on("data", keep);
		child.on("close", (code, signal) => {
			clearTimeout(watchdog);
			const lines = fs.existsSync(tap) ? fs.readFileSync(tap, "utf8").split("\n") : [];
			const printed = output.trim().split("\n").slice(-40);
			const wall = (Date.now() - jobStarted) / 1000;
			const perFile = tapFiles(lines, job.files);
			const jobFailed = code !== 0;
			let blamed = false;
			for (const file of job.files) {
				const { lines: own, seconds, counts } = perFile.get(file);
				const ownFailures = tapFailures(own).map((f) => ({ run: job.run.name, file, ...f }));
				// The file's suite failed by itself (an import error, a failed hook, the contract check of
				// test/helpers/app.ts): what the job printed goes with it.
				for (const f of ownFailures) {
					if (f.what === file) f.detail = [...f.detail, ...printed];
				}
				// A file that never finished: the job ended first (a crash, the watchdog).
				if (seconds === undefined) {
					ownFailures.push({
						run: job.run.name,
						file,
						what: overdue
							? `the file did not end (${job.files.length * (TIMEOUT_MS / 1000)} s and more)`
							: `the file never finished: its process ended with ${code ?? signal}`,
						detail: printed,
					});
				}
				const ok = ownFailures.length === 0;
				if (!ok) {
					failed = true;
					blamed = true;
					failures.push(...ownFailures);
				}
				for (const line of own) {
					const m = SKIP_LINE.exec(line);
					if (m)
						skipped.push({ run: job.run.name, what: untap(m[1]), why: untap(m[2]) || "(no reason given)" });
					const todo = TODO_LINE.exec(line);
					if (todo) {
						const why = `todo${todo[1] === "not ok" ? ", failing" : ""}: ${untap(todo[3]) || "(no reason given)"}`;
						skipped.push({ run: job.run.name, what: untap(todo[2]), why });
					}
				}
				// A file alone is timed by its process (loading included); in a batch, by its suite.
				const time = job.files.length === 1 ? wall : (seconds ?? 0);
				done.push({ file, run: job.run, job: name, batch: job.files.length, wall: time, counts, ok });
				console.log(
					`# ${clock()} [${String(done.length).padStart(3)}/${units.length}] ${ok ? "ok    " : "FAILED"} ` +
						`${time.toFixed(1).padStart(6)} s  ${job.run.name.padEnd(8)} ${file} (${counts.tests} tests)` +
						(job.files.length > 1 ? ` [${job.files.length} in one process]` : ""),
				);
				for (const f of ownFailures) {
					console.log(`#     not ok: ${f.what}`);
					for (const line of f.detail) console.log(`#       ${line}`);
				}
			}
			// The process failed and no file says why (an error after the last file, an exit code set
			// at exit): the job as a whole.
			if (jobFailed && !blamed) {
				failed = true;
				const what = `the process of ${job.files.join(", ")} (exit ${code ?? signal})`;
				failures.push({ run: job.run.name, file: job.files[0], what, detail: printed });
				console.log(`#     not ok: ${what}`);
				for (const line of printed) console.log(`#       ${line}`);
			}
			resolve();
		});
	});
}

let running = 0;
let browsers = 0;
let jobsDone = 0;
await new Promise((allDone) => {
	const schedule = () => {
		while (running < concurrency) {
			const at = jobs.findIndex((j) => !j.started && (!j.browser || browsers < browserSlots));
			if (at < 0) break;
			const job = jobs[at];
			job.started = true;
			running++;
			if (job.browser) browsers++;
			const finish = () => {
				running--;
				jobsDone++;
				if (job.browser) browsers--;
				if (jobsDone === jobs.length) allDone();
				else schedule();
			};
			runJob(job, at).then(finish, (error) => {
				// The runner's own fault (a TAP file it could not read): the job counts as failed.
				failed = true;
				for (const file of job.files) {
					failures.push({ run: job.run.name, file, what: "the runner", detail: [String(error)] });
					done.push({ file, run: job.run, job: "", batch: job.files.length, wall: 0, counts: {}, ok: false });
				}
				finish();
			});
		}
	};
	if (jobs.length === 0) allDone();
	else schedule();
});
const elapsed = (Date.now() - started) / 1000;

// Each file's CPU time (scripts/test-usage.mjs), by job.
const usage = new Map();
for (const f of fs.readdirSync(usageDir)) {
	const record = JSON.parse(fs.readFileSync(path.join(usageDir, f), "utf8"));
	usage.set(record.job, record);
}
const sum = (list, pick) => list.reduce((s, x) => s + (pick(x) ?? 0), 0);
const fixed = (n) => n.toFixed(0);
console.log(`\n# ${fixed(elapsed)} s elapsed, ${concurrency} processes at a time`);
for (const run of runs) {
	const mine = done.filter((j) => j.run === run);
	const cpu = [...new Set(mine.map((j) => j.job))].map((job) => usage.get(job)).filter(Boolean);
	const processes = new Set(mine.map((j) => j.job)).size;
	console.log(
		`# ${run.name}: ${mine.length} files in ${processes} processes, ${sum(mine, (j) => j.counts.tests)} tests ` +
			`(${sum(mine, (j) => j.counts.pass)} passed, ${sum(mine, (j) => j.counts.fail)} failed), ` +
			`${fixed(sum(mine, (j) => j.wall))} s of file time; CPU ${fixed(sum(cpu, (u) => u.cpu))} s in the ` +
			`test processes and ${fixed(sum(cpu, (u) => u.children))} s in their children`,
	);
}
console.log("# slowest files (wall; CPU of the file's process + of its children: Chromium, servers, CLIs):");
for (const j of [...done].sort((a, b) => b.wall - a.wall).slice(0, 15)) {
	const u = j.batch === 1 ? usage.get(j.job) : undefined;
	const cpu = u
		? `${u.cpu.toFixed(1).padStart(6)} + ${u.children.toFixed(1).padStart(6)} s`
		: j.batch > 1
			? `  (one of ${String(j.batch).padStart(2)} files)`
			: "       (no figure)";
	console.log(`#   ${j.wall.toFixed(1).padStart(6)} s  ${cpu}  ${j.run.name.padEnd(8)} ${j.file}`);
}

if (process.env.TEST_USAGE_FILE) {
	const records = done.map((j) => ({
		run: j.run.name,
		file: j.file,
		wall: j.wall,
		tests: j.counts.tests ?? 0,
		batch: j.batch,
		job: j.job,
	}));
	fs.writeFileSync(
		process.env.TEST_USAGE_FILE,
		JSON.stringify({ elapsed, concurrency, files: records, processes: [...usage.values()] }, null, "\t"),
	);
}
if (saveTimings) {
	for (const j of done) {
		timings[j.file] ??= {};
		timings[j.file][j.run.name] = Math.round(j.wall);
	}
	for (const file of Object.keys(timings)) if (!fs.existsSync(file)) delete timings[file];
	const sorted = Object.fromEntries(Object.entries(timings).sort(([a], [b]) => a.localeCompare(b)));
	fs.writeFileSync(TIMINGS, `${JSON.stringify(sorted, null, "\t")}\n`);
	console.log(`# wrote ${TIMINGS}`);
}
fs.rmSync(tapDir, { recursive: true, force: true });

if (failures.length > 0) {
	console.log(`\n# failures in total: ${failures.length} (subtests cancelled by a failed parent left out)`);
	for (const f of failures) {
		console.log(`#   [${f.run}] ${f.file}: ${f.what}`);
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
if (failed) console.error("# the suite failed");
process.exit(failed ? 1 : 0);
