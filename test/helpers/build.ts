// The compiled server and CLI (`tsc -p tsconfig.build.json`, what `npm run build` compiles) for
// tests that run them the way production does: the CLI tests, and the memory tests that measure a
// process without the TypeScript loader. Built when dist is missing or older than src/ or cli/.
// Test files run several at a time, each in its own process: the build holds a lock folder, and a file
// that finds the lock waits and then checks again, so no test ever runs a half-written dist/.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./root.ts";

const root = REPO_ROOT;
export const COMPILED_MAIN = "dist/src/main.js";
const MARKER = path.join(root, "dist/.built");
const LOCK = path.join(root, "dist/.build-lock");
/** A lock older than this was left by a process that died mid-build. */
const STALE_LOCK_MS = 5 * 60_000;

function newest(dir: string): number {
	let latest = 0;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
	}
	return latest;
}

/** The marker is written after a whole build, so a build cut short counts as stale. */
function fresh(): boolean {
	const built = fs.statSync(MARKER, { throwIfNoEntry: false })?.mtimeMs ?? 0;
	return built >= Math.max(newest(path.join(root, "src")), newest(path.join(root, "cli")));
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function acquire(): void {
	fs.mkdirSync(path.dirname(LOCK), { recursive: true });
	for (;;) {
		try {
			fs.mkdirSync(LOCK);
			return;
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
			const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
			if (age > STALE_LOCK_MS) fs.rmSync(LOCK, { recursive: true, force: true });
			else sleep(200);
		}
	}
}

/** Compiles src/ and cli/ into dist/ unless that is current; safe to call from parallel test files. */
export function ensureBuilt(): string {
	if (fresh()) return COMPILED_MAIN;
	acquire();
	try {
		if (!fresh()) {
			execFileSync(
				process.execPath,
				[path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
				{ cwd: root, stdio: "inherit" },
			);
			fs.writeFileSync(MARKER, new Date().toISOString());
		}
	} finally {
		fs.rmSync(LOCK, { recursive: true, force: true });
	}
	return COMPILED_MAIN;
}
