// How far V8's old generation grows under a load that promotes, with the PostgreSQL server's bound
// (src/startup-heap.ts `boundOldGeneration`: at most 50% past what a full collection keeps) and
// with V8's default, which grows it up to 4x when collections look cheap. The default's growth
// follows how fast collections and the program run, so a loaded machine moves it: this is measured
// here, not asserted in a test (test/foundation/old-generation.test.ts checks the bound is set).
// Each case runs in its own process (V8's flags are per process), several times.
//
//   node --import tsx bench/old-generation.ts [--runs 5]
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const runsAt = process.argv.indexOf("--runs");
const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 5;

// A live set, and a ring of objects each kept for a while then dropped: they outlive the young
// collections and are promoted, as a read waiting on PostgreSQL is; reports the largest old space.
const load = (bounded: boolean) => `
import v8 from "node:v8";
import { boundOldGeneration } from "./src/startup-heap.ts";
if (${bounded}) boundOldGeneration();
const live = Array.from({ length: 300000 }, (_, i) => ({ i, s: "live" + i }));
const oldUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space")?.space_used_size ?? 0;
let max = 0;
let ring = [];
let rounds = 0;
const burst = () => {
	for (let i = 0; i < 20000; i++) ring.push({ n: i, s: "x" + i });
	if (ring.length > 400000) ring = ring.slice(200000);
	max = Math.max(max, oldUsed());
	if (++rounds < 600) setImmediate(burst);
	else console.log(JSON.stringify({ max, live: live.length }));
};
burst();
`;

async function largestOld(bounded: boolean): Promise<number> {
	const { stdout } = await run(
		process.execPath,
		["--import", "tsx", "--input-type=module", "--eval", load(bounded)],
		{ cwd: root },
	);
	return JSON.parse(stdout.trim().split("\n").at(-1) as string).max;
}

const mb = (n: number) => (n / 1048576).toFixed(0);
console.log("run  bounded peak  default peak  default / bounded");
for (let i = 1; i <= runs; i++) {
	const bounded = await largestOld(true);
	const free = await largestOld(false);
	console.log(
		`${String(i).padStart(3)}  ${mb(bounded).padStart(9)} MB  ${mb(free).padStart(9)} MB  ${(free / bounded).toFixed(2).padStart(14)}x`,
	);
}
