// Record and request ids (src/lib/crypto.ts): the alphabet and length the docs promise, no repeats,
// and every character equally likely, pool refills included (the ids are drawn from a pool of
// random bytes with rejection of the bytes that would favour the first characters).
// Runs once, not per database: the id generator, with no database.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newId, requestId } from "../../src/lib/crypto.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

describe("ids", () => {
	test("a record id is 20 characters of [a-z0-9]; a request id 12", () => {
		for (let i = 0; i < 1000; i++) {
			assert.match(newId(), /^[a-z0-9]{20}$/);
			assert.match(requestId(), /^[a-z0-9]{12}$/);
		}
	});

	test("50,000 record ids, across many refills of the pool, never repeat", () => {
		const seen = new Set<string>();
		for (let i = 0; i < 50_000; i++) seen.add(newId());
		assert.equal(seen.size, 50_000);
	});

	test("every character is equally likely (chi-square over 720,000 characters)", () => {
		const counts = new Map<string, number>(Array.from(ALPHABET, (c) => [c, 0]));
		for (let i = 0; i < 36_000; i++) for (const c of newId()) counts.set(c, (counts.get(c) ?? 0) + 1);
		const expected = (36_000 * 20) / 36;
		let chi = 0;
		for (const n of counts.values()) chi += (n - expected) ** 2 / expected;
		// 35 degrees of freedom: 85 is about the 1-in-100,000 tail, so a fair source fails almost never. A modulo bias without the rejection (bytes
		// 252-255 folding onto a-d) gives a chi-square near 1,400 at this size.
		assert.ok(chi < 85, `chi-square ${chi.toFixed(1)}`);
	});
});
