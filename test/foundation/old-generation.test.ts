// On PostgreSQL the server bounds how far V8's old generation grows past what a full collection
// keeps (src/startup-heap.ts `boundOldGeneration`). Each case runs in its own process (V8's flags
// are per process): the same load, with the bound and without it, so the check also shows the load
// does let V8's default grow the old generation further.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

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
const end = Date.now() + 3000;
const burst = () => {
	for (let i = 0; i < 20000; i++) ring.push({ n: i, s: "x" + i });
	if (ring.length > 400000) ring = ring.slice(200000);
	max = Math.max(max, oldUsed());
	if (Date.now() < end) setImmediate(burst);
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

describe("the old generation's bound", () => {
	test("with boundOldGeneration the old space peaks well below where V8's default lets it grow", async () => {
		const [bounded, free] = await Promise.all([largestOld(true), largestOld(false)]);
		const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
		assert.ok(bounded * 1.5 < free, `bounded peak ${mb(bounded)}, default peak ${mb(free)}`);
	});
});
