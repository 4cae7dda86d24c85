// The sample a test delivery posts: one plausible value per template item, keyed as the item is,
// even when a key is named like an Object member.
// Runs once, not per database: a pure function of a template, with no app or database.
import assert from "node:assert/strict";
import { test } from "node:test";
import { samplePayload } from "../../src/features/callbacks/payloads.ts";

test("a sample value for each item, `__proto__` and `constructor` keys kept as members", () => {
	const payload = samplePayload({
		id: "r1",
		slug: "s1",
		items: [
			{ key: "__proto__", label: "P", type: "email", required: false },
			{ key: "constructor", label: "C", type: "text", required: false },
			{ key: "born", label: "B", type: "date", required: true },
		],
	});
	assert.deepEqual(Object.keys(payload.data), ["__proto__", "constructor", "born"]);
	assert.ok(Object.values(payload.data).every((v) => typeof v === "string" && v !== ""));
	assert.equal(Object.getPrototypeOf(payload.data), Object.prototype);
	assert.deepEqual([payload.requestId, payload.slug, payload.test], ["r1", "s1", true]);
	assert.match(JSON.stringify(payload.data), /"__proto__":/);
});
