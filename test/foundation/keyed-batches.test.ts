// keyedBatches (src/lib/batches.ts): per key one batch at a time; the first call runs alone and at
// once, the calls that arrive meanwhile run together next, in arrival order, at most `max` a batch;
// an error rejects its own batch only; keys apart never wait on each other; nothing is kept after.
// Runs once, not per database: a scheduling helper, with no database.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { keyedBatches } from "../../src/lib/batches.ts";

/** A `run` that records each batch and answers when released, one release per batch. */
function controlled() {
	const batches: { key: string; inputs: number[] }[] = [];
	const releases: (() => void)[] = [];
	const run = (key: string, inputs: number[]) => {
		batches.push({ key, inputs });
		return new Promise<string[]>((resolve) => releases.push(() => resolve(inputs.map((n) => `${key}:${n}`))));
	};
	const tick = () => new Promise((r) => setImmediate(r));
	return {
		batches,
		run,
		release: async () => {
			releases.shift()?.();
			await tick();
		},
		tick,
	};
}

describe("keyedBatches", () => {
	test("the first call runs alone at once; the calls that arrive meanwhile run together next", async () => {
		const c = controlled();
		const call = keyedBatches(c.run, 64);
		const first = call("a", 1);
		await c.tick();
		assert.deepEqual(c.batches, [{ key: "a", inputs: [1] }]);
		const later = [call("a", 2), call("a", 3), call("a", 4)];
		await c.tick();
		assert.equal(c.batches.length, 1, "nothing more runs while a batch of the key runs");
		await c.release();
		assert.equal(await first, "a:1");
		assert.deepEqual(c.batches[1], { key: "a", inputs: [2, 3, 4] });
		await c.release();
		assert.deepEqual(await Promise.all(later), ["a:2", "a:3", "a:4"]);
	});

	test("a batch holds at most `max` calls, the rest run next, in arrival order", async () => {
		const c = controlled();
		const call = keyedBatches(c.run, 2);
		const all = [1, 2, 3, 4, 5, 6].map((n) => call("a", n));
		await c.tick();
		while (c.batches.length < 4) await c.release();
		assert.deepEqual(
			c.batches.map((b) => b.inputs),
			[[1], [2, 3], [4, 5], [6]],
		);
		await c.release();
		assert.deepEqual(await Promise.all(all), ["a:1", "a:2", "a:3", "a:4", "a:5", "a:6"]);
	});

	test("keys apart run apart: a busy key does not hold another back", async () => {
		const c = controlled();
		const call = keyedBatches(c.run, 64);
		void call("a", 1);
		void call("a", 2);
		const b = call("b", 1);
		await c.tick();
		assert.deepEqual(
			c.batches.map((x) => x.key),
			["a", "b"],
		);
		c.batches.length = 0;
		await c.release(); // a's first
		await c.release(); // b's
		assert.equal(await b, "b:1");
		await c.release(); // a's second
	});

	test("an error rejects every call of its batch and no other; the key runs again after", async () => {
		const call = keyedBatches<number, string>(async (_key, inputs) => {
			if (inputs.includes(2)) throw new Error("boom");
			return inputs.map(String);
		}, 64);
		const results = await Promise.allSettled([call("a", 1), call("a", 2), call("a", 3), call("b", 4)]);
		assert.deepEqual(
			results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message)),
			["1", "boom", "boom", "4"],
		);
		assert.equal(await call("a", 5), "5", "the key runs again after a failed batch");
	});

	test("an answer per call or the batch fails: a short answer never leaves a call hanging", async () => {
		const call = keyedBatches<number, string>(async () => ["only one"], 64);
		const results = await Promise.allSettled([call("a", 1), call("a", 2), call("a", 3)]);
		assert.equal(results[0]?.status, "fulfilled");
		assert.deepEqual(
			results.slice(1).map((r) => r.status === "rejected" && /2 calls/.test(String(r.reason))),
			[true, true],
		);
	});
});
