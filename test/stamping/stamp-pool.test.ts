// The stamping worker pool: work runs beside the event loop, not on it; the waiting line is
// bounded; an overrunning job is abandoned and its worker replaced; one tenant's slow jobs do not
// hold another's; crafted PDFs are refused by a scan of their bytes before any worker parses them;
// closing refuses what waits.
// Runs once, not per database: the stamping worker pool, with no database.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import {
	createStamper,
	NotWatermarkableError,
	StampBusyError,
	type Stamper,
} from "../../src/lib/stamp/index.ts";
import { PdfCounter } from "../../src/lib/stamp/pdf-scan.ts";
import { stampBytes } from "../../src/lib/stamp/stamp.ts";
import { hostilePdf, makePdf, manyPagesPdf, pageTexts } from "./fixtures.ts";

/** No page or object limit: lets a slow PDF reach a worker, to test budgets and fairness. */
const NO_LIMITS = { pdfLimits: { maxPages: Number.POSITIVE_INFINITY, maxObjects: Number.POSITIVE_INFINITY } };

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
	const small = createStamper({ size: 1, maxQueue: 1, maxQueuePerTenant: 1 });
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
	const quick = createStamper({ size: 1, timeoutMs: 3000, ...NO_LIMITS });
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

test("a crafted page tree is refused by the byte scan, read from a stream in small chunks, before any worker", async () => {
	const s = createStamper({ size: 1 });
	try {
		for (const [bytes, pages] of [
			[hostilePdf(100_000), 100_000],
			[manyPagesPdf(5000), 5000],
		] as const) {
			// 1000-byte chunks: tokens and the /Kids array cross chunk boundaries.
			const chunks = Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, i) =>
				bytes.subarray(i * 1000, (i + 1) * 1000),
			);
			await assert.rejects(
				s.stampFile({ stream: Readable.from(chunks), type: "application/pdf", line: LINE }),
				(err: Error) =>
					err instanceof NotWatermarkableError &&
					/^the PDF has more than 2000 pages/.test(err.message) &&
					pages > 2000,
			);
		}
		assert.equal(s.jobs, 0, "no worker was handed either file");
	} finally {
		await s.close();
	}
});

test("the byte scan counts alike however the bytes are cut", () => {
	const none = { maxPages: Number.POSITIVE_INFINITY, maxObjects: Number.POSITIVE_INFINITY };
	for (const [bytes, pages, objects] of [
		[hostilePdf(3000), 3000, 3],
		[manyPagesPdf(50), 50, 52],
	] as const) {
		for (const size of [1, 7, 64, 1000, bytes.length]) {
			const counter = new PdfCounter(none);
			for (let at = 0; at < bytes.length; at += size) counter.push(bytes.subarray(at, at + size));
			assert.equal(counter.pages, pages, `pages in ${size}-byte chunks`);
			assert.equal(counter.objects, objects, `objects in ${size}-byte chunks`);
		}
	}
});

test("a worker refuses a PDF over the limits it parsed (pages hidden in compressed object streams)", async () => {
	// pdf-lib writes page dictionaries into compressed object streams, where the byte scan cannot see them.
	const pdf = await makePdf([{}, {}, {}]);
	await assert.rejects(
		stampBytes(pdf, "application/pdf", LINE, { maxPages: 2, maxObjects: 1000 }),
		/the PDF has more than 2 pages \(3\)/,
	);
	await assert.rejects(
		stampBytes(pdf, "application/pdf", LINE, { maxPages: 10, maxObjects: 3 }),
		/more than 3 objects/,
	);
});

test("one tenant's slow jobs do not hold another tenant's: its own wait behind each other", async () => {
	const s = createStamper({ size: 2, ...NO_LIMITS });
	const slow = manyPagesPdf(100_000);
	const quick = await makePdf([{}]);
	const run = (tenant: string, bytes: Buffer, budgetMs?: number) =>
		s.stampFile({ bytes, type: "application/pdf", line: LINE, tenant, ...(budgetMs ? { budgetMs } : {}) });
	try {
		// Both workers started and warm.
		await Promise.all([run("warm-1", quick), run("warm-2", quick)]);
		// Two slow jobs of one tenant, each holding a worker for its whole 4 s budget if let.
		const hostile = [run("hostile", slow, 4000), run("hostile", slow, 4000)].map((p) =>
			p.then(
				() => "stamped",
				(err: Error) => err.message,
			),
		);
		assert.deepEqual(s.load, { running: 1, queued: 1 }, "the tenant runs one job; its second waits");
		const t0 = performance.now();
		const out = await run("other", quick);
		const took = performance.now() - t0;
		assert.ok((pageTexts(out)[0] ?? "").includes(LINE));
		assert.ok(took < 2000, `the other tenant waited ${took.toFixed(0)} ms beside the slow jobs`);
		assert.deepEqual(await Promise.all(hostile), [
			"stamping took longer than 4 s",
			"stamping took longer than 4 s",
		]);
	} finally {
		await s.close();
	}
});

test("each tenant's waiting line is bounded on its own: a full line refuses that tenant only", async () => {
	const s = createStamper({ size: 2, maxQueuePerTenant: 1, maxQueue: 10 });
	try {
		const one = s.stampFile({ bytes: bigPdf, type: "application/pdf", line: LINE, tenant: "t" });
		const two = s.stampFile({ bytes: bigPdf, type: "application/pdf", line: LINE, tenant: "t" });
		await assert.rejects(
			s.stampFile({ bytes: bigPdf, type: "application/pdf", line: LINE, tenant: "t" }),
			StampBusyError,
		);
		const other = await s.stampFile({ bytes: bigPdf, type: "application/pdf", line: LINE, tenant: "u" });
		assert.equal(pageTexts(other).length, 200);
		await Promise.all([one, two]);
	} finally {
		await s.close();
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
