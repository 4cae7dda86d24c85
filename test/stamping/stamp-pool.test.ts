// The stamping worker pool: work runs beside the event loop, not on it; the waiting line is
// bounded; an overrunning job is abandoned and its worker replaced; closing refuses what waits.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
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
	// The worker is started and warm (later jobs run on its compiled code).
	for (let i = 0; i < 2; i++) await job(stamper);
	const t0 = performance.now();
	await job(stamper);
	const alone = performance.now() - t0;

	let done = false;
	const pending = job(stamper).finally(() => {
		done = true;
	});
	// Hold the event loop in slices, as slow requests would, and let it turn only between slices so
	// the answer can come in. The time it was free is all the main thread could have given the job:
	// a job stamped off the loop needs next to none of it (a few ms for the hand-over), one stamped
	// on it about `alone`. The bound is a share of `alone`, measured here, so load scales both.
	const slice = alone / 10;
	let free = 0;
	let slices = 0;
	while (!done && slices < 1000) {
		const until = performance.now() + slice;
		while (performance.now() < until) {
			// busy
		}
		slices++;
		const f0 = performance.now();
		await new Promise((r) => setImmediate(r));
		free += performance.now() - f0;
	}
	const out = await pending;
	assert.ok(
		free < alone / 4,
		`the loop was free ${free.toFixed(1)} ms over ${slices} slices of ${slice.toFixed(1)} ms; the job takes ${alone.toFixed(0)} ms alone`,
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
	// 100,000 blank pages take minutes to stamp (about 150 s here); a one-page PDF a few
	// milliseconds. The 3 s bound sits far from both, on a fast machine and on a busy one.
	const slow = manyPagesPdf(100_000);
	const quick = createStamper({ size: 1, timeoutMs: 3000 });
	try {
		await assert.rejects(
			job(quick, slow),
			(err: Error) => err instanceof NotWatermarkableError && /longer than 3 s/.test(err.message),
		);
		// The pool still answers: the stopped worker was replaced.
		assert.ok((pageTexts(await job(quick, await makePdf([{}])))[0] ?? "").includes(LINE));
	} finally {
		await quick.close();
	}
});

/** A PDF of `n` blank pages written by hand: cheap to build, slow to stamp. */
function manyPagesPdf(n: number): Buffer {
	const parts = ["%PDF-1.4\n"];
	let at = parts[0]?.length ?? 0;
	const offsets: number[] = [];
	const add = (obj: string) => {
		offsets.push(at);
		parts.push(obj);
		at += obj.length;
	};
	add("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n");
	const kids = Array.from({ length: n }, (_, i) => `${i + 3} 0 R`).join(" ");
	add(`2 0 obj\n<< /Type /Pages /Count ${n} /Kids [${kids}] >>\nendobj\n`);
	for (let i = 0; i < n; i++) {
		add(`${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\n`);
	}
	parts.push(`xref\n0 ${n + 3}\n0000000000 65535 f \n`);
	for (const offset of offsets) parts.push(`${String(offset).padStart(10, "0")} 00000 n \n`);
	parts.push(`trailer\n<< /Size ${n + 3} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`);
	return Buffer.from(parts.join(""), "latin1");
}

test("closing the pool refuses the jobs still waiting, and any new one", async () => {
	const small = createStamper({ size: 1, maxQueue: 4 });
	const running = job(small).catch((e: unknown) => e);
	const waiting = job(small).catch((e: unknown) => e);
	await small.close();
	assert.ok((await waiting) instanceof Error);
	assert.ok((await running) instanceof Error || Buffer.isBuffer(await running));
	await assert.rejects(job(small), /closed/);
});
