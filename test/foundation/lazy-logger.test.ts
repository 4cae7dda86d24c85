// Runs once, not per database: the logger, with no database.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import pino from "pino";
import { lazyChildLogger } from "../../src/http/lazy-logger.ts";

/** A pino logger writing JSON lines into `lines`, with `child` counted. */
function counted() {
	const lines: Record<string, unknown>[] = [];
	const stream = new Writable({
		write(chunk, _enc, done) {
			lines.push(JSON.parse(chunk.toString()));
			done();
		},
	});
	const parent = pino({ level: "info" }, stream);
	const made = { children: 0 };
	// pino's children inherit from their parent, so the spy must call through with their `this`.
	const child = parent.child;
	parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
		made.children++;
		return child.apply(this, args);
	} as typeof parent.child;
	return { parent, lines, made };
}

test("a request's logger becomes a pino child at its first line, with Fastify's bindings", () => {
	const { parent, lines, made } = counted();
	const log = lazyChildLogger(parent, { reqId: "r-1" }, {});
	assert.equal(log.level, "info");
	assert.equal(made.children, 0, "nothing logged: no child made");
	log.debug("below the level");
	log.info({ route: "/x" }, "first");
	log.error(new Error("boom"), "second");
	assert.equal(made.children, 1, "made once, on first use");
	assert.equal(lines.length, 2);
	assert.deepEqual(
		lines.map((l) => [l.reqId, l.msg]),
		[
			["r-1", "first"],
			["r-1", "second"],
		],
	);
	assert.equal(lines[0]?.route, "/x");
	assert.equal((lines[1]?.err as { message?: string } | undefined)?.message, "boom");
	// A child of it carries both bindings.
	log.child({ step: "s" }).warn("third");
	assert.deepEqual([lines[2]?.reqId, lines[2]?.step, lines[2]?.msg], ["r-1", "s", "third"]);
});

test("a route's log level reaches the child", () => {
	const { parent, lines } = counted();
	const log = lazyChildLogger(parent, { reqId: "r-2" }, { level: "warn" });
	assert.equal(log.level, "warn");
	log.info("dropped");
	log.warn("kept");
	assert.deepEqual(
		lines.map((l) => l.msg),
		["kept"],
	);
	log.level = "error";
	log.warn("dropped too");
	assert.equal(lines.length, 1);
});
