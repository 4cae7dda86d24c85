// The stamping worker pool: work runs beside the event loop, not on it; the waiting line is
// bounded; an overrunning job is abandoned and its worker replaced; closing refuses what waits.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PDFDocument } from "pdf-lib";
import {
	createStamper,
	NotWatermarkableError,
	StampBusyError,
	type Stamper,
} from "../../src/lib/stamp/index.ts";
import { makePdf, pageTexts } from "./fixtures.ts";

const LINE = "Sent to the pool test";
let bigPdf: Buffer;
let stamper: Stamper;

before(async () => {
	bigPdf = await makePdf(Array.from({ length: 200 }, (_, i) => ({ rotate: (i % 4) * 90 })));
	stamper = createStamper();
});
after(() => stamper.close());

const job = (s: Stamper, bytes = bigPdf) => s.stampFile({ bytes, type: "application/pdf", line: LINE });

test("stamping goes on while the event loop is busy with something else", async () => {
	await job(stamper); // the worker is started and warm
	let t0 = performance.now();
	await job(stamper);
	const alone = performance.now() - t0;

	const pending = job(stamper);
	await new Promise((r) => setTimeout(r, 20)); // the job reaches its worker
	// Hold the event loop for three times what the job takes alone, as a slow request would.
	const until = performance.now() + 3 * alone;
	while (performance.now() < until) {
		// busy
	}
	t0 = performance.now();
	const out = await pending;
	const after = performance.now() - t0;
	assert.ok(
		after < alone / 2,
		`the copy was ready when the loop came back (${after.toFixed(0)} ms after, ${alone.toFixed(0)} ms alone)`,
	);
	assert.equal(pageTexts(out).length, 200);
});

test("past the waiting line a job is refused at once with StampBusyError", async () => {
	const small = createStamper({ size: 1, maxQueue: 1 });
	try {
		const running = job(small);
		const waiting = job(small);
		assert.equal(small.saturated, true);
		await assert.rejects(job(small), StampBusyError);
		// The two taken are stamped, and the pool takes work again once they are done.
		await Promise.all([running, waiting]);
		assert.equal(small.saturated, false);
		assert.ok((pageTexts(await job(small, await makePdf([{}])))[0] ?? "").includes(LINE));
	} finally {
		await small.close();
	}
});

test("a job over its time is abandoned as not stampable, and the next one gets a fresh worker", async () => {
	// 8000 blank pages take seconds to stamp (about 6 s here); a one-page PDF a few milliseconds.
	const doc = await PDFDocument.create();
	for (let i = 0; i < 8000; i++) doc.addPage([595, 842]);
	const slow = Buffer.from(await doc.save());
	const quick = createStamper({ size: 1, timeoutMs: 1500 });
	try {
		await assert.rejects(
			job(quick, slow),
			(err: Error) => err instanceof NotWatermarkableError && /longer than 1.5 s/.test(err.message),
		);
		// The pool still answers: the stopped worker was replaced.
		assert.ok((pageTexts(await job(quick, await makePdf([{}])))[0] ?? "").includes(LINE));
	} finally {
		await quick.close();
	}
});

test("closing the pool refuses the jobs still waiting, and any new one", async () => {
	const small = createStamper({ size: 1, maxQueue: 4 });
	const running = job(small).catch((e: unknown) => e);
	const waiting = job(small).catch((e: unknown) => e);
	await small.close();
	assert.ok((await waiting) instanceof Error);
	assert.ok((await running) instanceof Error || Buffer.isBuffer(await running));
	await assert.rejects(job(small), /closed/);
});
