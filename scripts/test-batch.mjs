// One test process for one or more test files (scripts/test.mjs starts it as a job): each file is
// imported inside a suite named after it, so its top-level tests, `before`/`after` and `beforeEach`
// hooks belong to that suite alone, and its failures, counts and time stand under its own name in
// the TAP stream. Loading the server costs a test process about two core-seconds before its first
// test (docs/testing.md, "Where the time goes"); small files share that cost here instead of paying
// it each. Their tests run one file after another; their modules are all imported at the start
// (node:test builds every suite as it is declared), so a file does its work in hooks and tests,
// not at its top level, as the suite's files already do.
//
// Usage: node [--import tsx] scripts/test-batch.mjs [--dist] <test/…/x.test.ts>…
// With --dist each file is imported compiled (dist/test/…/x.test.js), under its source name.
import path from "node:path";
import { after, describe } from "node:test";
import { pathToFileURL } from "node:url";

/** The runner's limit on one file, which `node --test-timeout` set when each file had a process. */
const FILE_TIMEOUT_MS = 600_000;
/** What test/helpers/app.ts gathers: answers that differed from the OpenAPI document. */
const MISMATCHES = Symbol.for("svc.test.contractMismatches");

const args = process.argv.slice(2);
const dist = args[0] === "--dist";
const files = dist ? args.slice(1) : args;

// test/helpers/app.ts waits at its top level (it migrates the SQLite template once). Awaited in a
// module several files import, such a wait lets their declarations interleave: node:test would put
// one file's tests and hooks under another's suite. Evaluated here first, it is done before any
// file's suite is declared. A file alone in its process is left to load it itself (mail-off.test.ts
// watches every module its process loads). No other module of the suite waits at its top level.
if (files.length > 1)
	await import(pathToFileURL(path.resolve(dist ? "dist/test/helpers/app.js" : "test/helpers/app.ts")).href);

for (const file of files) {
	const target = dist ? path.join("dist", file.replace(/\.ts$/, ".js")) : file;
	describe(file, { timeout: FILE_TIMEOUT_MS }, async () => {
		await import(pathToFileURL(path.resolve(target)).href);
		// Registered after the file's own hooks, so it runs after its cleanup: the file fails when an
		// answer of an app it built differed from the document (test/helpers/app.ts).
		after(async () => {
			const found = globalThis[MISMATCHES]?.splice(0) ?? [];
			if (found.length === 0) return;
			const { reportMismatches } = await import(
				pathToFileURL(path.resolve(dist ? "dist/test/helpers/app.js" : "test/helpers/app.ts")).href
			);
			throw new Error(reportMismatches(found, file));
		});
	});
}
