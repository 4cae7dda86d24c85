// The young generation stops growing at YOUNG_CAP once the server has started (src/startup-heap.ts):
// resident memory under load stays within what the memory target allows. Each case runs in its own
// process (V8's flags are per process): the same allocation, with the server's cap and without it,
// so the check also shows the load does make V8 grow past the cap when nothing stops it.
// Runs once, not per database: V8's heap under a synthetic load, with no database.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import { REPO_ROOT } from "../helpers/root.ts";

const run = promisify(execFile);
const root = REPO_ROOT;

// Keeps a rolling window of young objects alive across collections (most survive one, as a busy
// server's in-flight requests do), for 400 rounds of allocation (a count, not a time: a loaded
// machine allocates as much, only later), and reports the largest young generation seen.
const load = (capped: boolean) => `
import v8 from "node:v8";
import { startupDone, youngSize, YOUNG_CAP } from "./src/startup-heap.ts";
if (${capped}) startupDone(); else v8.setFlagsFromString("--semi-space-growth-factor=2");
let max = 0;
let keep = [];
let rounds = 0;
const burst = () => {
	for (let i = 0; i < 20000; i++) keep.push({ n: i, s: "x" + i });
	if (keep.length > 200000) keep = keep.slice(100000);
	max = Math.max(max, youngSize());
	if (++rounds < 400) setImmediate(burst);
	else console.log(JSON.stringify({ max, cap: YOUNG_CAP }));
};
burst();
`;

async function largestYoung(capped: boolean): Promise<{ max: number; cap: number }> {
	const { stdout } = await run(
		process.execPath,
		["--import", "tsx", "--input-type=module", "--eval", load(capped)],
		{ cwd: root },
	);
	return JSON.parse(stdout.trim().split("\n").at(-1) as string);
}

describe("the young generation's cap", () => {
	test("after startupDone it grows to the cap and no further; without it, the same load grows past it", async () => {
		const [capped, free] = await Promise.all([largestYoung(true), largestYoung(false)]);
		assert.ok(free.max > free.cap, `uncapped: ${free.max} bytes, expected past ${free.cap}`);
		assert.ok(capped.max <= capped.cap, `capped: ${capped.max} bytes, cap ${capped.cap}`);
		assert.ok(capped.max >= capped.cap / 2, `capped: ${capped.max} bytes; it should still grow under load`);
	});
});
