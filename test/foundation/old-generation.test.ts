// On PostgreSQL the server bounds how far V8's old generation grows past what a full collection
// keeps (src/startup-heap.ts `boundOldGeneration`, called by src/main.ts on PostgreSQL). How far
// the default would grow follows how fast collections and the program run, which a loaded machine
// moves (a peak ratio asserted here once failed at load average 15), so the effect is measured in
// bench/old-generation.ts; this file asserts what holds on any machine: the flag V8 is given.
// Runs once, not per database: V8's flags, with no database.
import assert from "node:assert/strict";
import { test } from "node:test";
import v8 from "node:v8";
import { boundOldGeneration, OLD_GROWTH_PERCENT } from "../../src/startup-heap.ts";

test("boundOldGeneration lets the old generation grow at most half past what a full collection keeps", (t) => {
	const given: string[] = [];
	const original = v8.setFlagsFromString;
	t.after(() => {
		v8.setFlagsFromString = original;
	});
	v8.setFlagsFromString = (flags: string) => {
		given.push(flags);
	};
	boundOldGeneration();
	assert.equal(OLD_GROWTH_PERCENT, 50);
	assert.deepEqual(given, ["--heap-growing-percent=50"]);
});
