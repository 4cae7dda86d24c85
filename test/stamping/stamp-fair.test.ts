// Stamping is fair and bounded (the hardening issue): a crafted PDF whose page tree names one page
// 100,000 times (600 KB) is refused at once with a clear 415 instead of holding the pool, and
// another workspace's preview meanwhile is served without waiting for it; the same stamped copy
// asked again comes from the cache (no stamping job), and a download served from it is logged as a
// read exactly as a fresh one.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createIdentity } from "../../src/features/identity/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, nextIp, publicGet, resolveLink, uploadFile } from "../shares/helpers.ts";
import { hostilePdf, makePdf, pageTexts } from "./fixtures.ts";

const PREVIEW = "/api/stamp-preview";
const T0 = Date.UTC(2026, 10, 26, 9, 0, 0);

describe("fair and bounded stamping", () => {
	let t: TestApp;
	let a: TestAccount;
	let b: TestAccount;
	const clock = new ManualClock(T0);

	before(async () => {
		t = await makeApp({}, { clock });
		a = await buildAccount(t.app);
		b = await buildAccount(t.app);
	});
	after(() => t.close());

	const preview = (who: TestAccount, body: Record<string, unknown>) =>
		t.app.inject({
			method: "POST",
			url: PREVIEW,
			headers: { "content-type": "application/json", ...who.headers },
			payload: JSON.stringify(body),
			remoteAddress: nextIp(),
		});

	test("a 100,000-entry page tree is refused at once (415), and another workspace's preview does not wait for it", async () => {
		const hostile = hostilePdf(100_000);
		assert.ok(hostile.length < 700_000, `the crafted file is small: ${hostile.length} bytes`);
		const bad = await uploadFile(t.app, a, { key: "bomb" }, { bytes: hostile, name: "bomb.pdf" });
		const good = await uploadFile(
			t.app,
			b,
			{ key: "lease" },
			{ bytes: await makePdf([{}]), name: "lease.pdf" },
		);
		// Workers started and warm, so the bound below measures waiting, not start-up.
		assert.equal((await preview(b, { record: good.id, text: "warm-up" })).statusCode, 200);

		const jobs = t.app.stamper.jobs;
		const hostileAnswers = Promise.all(
			Array.from({ length: 4 }, () => preview(a, { record: bad.id, text: "Bomb" })),
		);
		const t0 = performance.now();
		const other = await preview(b, { record: good.id, text: "Another workspace" });
		const took = performance.now() - t0;
		assert.equal(other.statusCode, 200, other.body);
		assert.ok((pageTexts(other.rawPayload)[0] ?? "").includes("Another workspace #preview"));
		assert.ok(
			took < 2000,
			`the other workspace's preview took ${took.toFixed(0)} ms beside the crafted file`,
		);

		for (const res of await hostileAnswers) {
			assert.equal(res.statusCode, 415, res.body);
			assert.match(String(res.headers["content-type"]), /^application\/problem\+json/);
			const problem = res.json() as { code: string; detail: string };
			assert.equal(problem.code, "file_not_watermarkable");
			assert.match(problem.detail, /^Not stamped: the PDF has more than 2000 pages/);
		}
		// The crafted file never reached a worker: only the other preview was stamped.
		assert.equal(t.app.stamper.jobs, jobs + 1);
	});

	test("the same preview again comes from the cache; another line or a replaced file is stamped anew", async () => {
		const file = await uploadFile(
			t.app,
			b,
			{ key: "cached" },
			{ bytes: await makePdf([{}, {}]), name: "c.pdf" },
		);
		const first = await preview(b, { record: file.id, text: "Cache me" });
		assert.equal(first.statusCode, 200, first.body);
		const jobs = t.app.stamper.jobs;
		const again = await preview(b, { record: file.id, text: "Cache me" });
		assert.equal(again.statusCode, 200, again.body);
		assert.equal(t.app.stamper.jobs, jobs, "no stamping job for the repeated preview");
		assert.ok(again.rawPayload.equals(first.rawPayload), "the same copy");
		assert.equal(Number(again.headers["content-length"]), first.rawPayload.length);
		assert.equal(again.headers["content-type"], "application/pdf");

		assert.equal((await preview(b, { record: file.id, text: "Another line" })).statusCode, 200);
		assert.equal(t.app.stamper.jobs, jobs + 1, "another line is stamped");

		// The file replaced: its key changes, so the old copy is never served for it.
		const form = new FormData();
		form.append("file", new Blob([new Uint8Array(await makePdf([{}, {}, {}]))]), "c.pdf");
		const patched = await t.app.inject({
			method: "PATCH",
			url: `/api/collections/records/records/${file.id}`,
			headers: b.headers,
			payload: form,
		});
		assert.equal(patched.statusCode, 200, patched.body);
		const fresh = await preview(b, { record: file.id, text: "Cache me" });
		assert.equal(fresh.statusCode, 200, fresh.body);
		assert.equal(t.app.stamper.jobs, jobs + 2, "the replaced file is stamped");
		assert.equal(pageTexts(fresh.rawPayload).length, 3);
	});

	test("a share's download served from the cache is logged as a read and takes its view, as a fresh one", async () => {
		const device = await deviceKey();
		const identity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ accountId: b.accountId, workspaceId: b.workspaceId, name: "Bob", publicKey: device.publicJwk },
			clock.now(),
		);
		const file = await uploadFile(t.app, a, { key: "hs" }, { bytes: await makePdf([{}]), name: "lease.pdf" });
		const link = await createLink(t.app, a, {
			records: [file.id],
			requireHandshake: true,
			stamp: "For Bob only",
			maxViews: 2,
		});
		const download = async () => {
			const nonce = (await publicGet(t.app, `/api/challenges/link/${link.slug}`)).json().nonce as string;
			const res = await resolveLink(t.app, link.slug, {
				identityId: identity.id,
				challengeNonce: nonce,
				challengeSignature: await device.sign(nonce),
			});
			assert.equal(res.statusCode, 200, res.body);
			const dl = res.json().records[0].downloadToken as string;
			return publicGet(t.app, `/api/public/links/${link.slug}/files/${file.id}?dl=${dl}`);
		};
		const before = t.app.stamper.jobs;
		const first = await download();
		assert.equal(first.statusCode, 200, first.body);
		const jobs = t.app.stamper.jobs;
		assert.equal(jobs, before + 1, "the first download is stamped");
		const second = await download();
		assert.equal(second.statusCode, 200, second.body);
		assert.equal(t.app.stamper.jobs, jobs, "the reader's second download is the cached copy");
		assert.ok(second.rawPayload.equals(first.rawPayload));
		assert.match((pageTexts(second.rawPayload)[0] ?? "").replace(/\s+/g, " "), /For Bob only \| Bob/);

		const reads = await t.app.store.db
			.selectFrom("link_reads")
			.select(["kind", "view"])
			.where("link", "=", link.id)
			.orderBy("view")
			.orderBy("kind")
			.execute();
		assert.deepEqual(
			reads.map((r) => [r.kind, Number(r.view)]),
			[
				["api", 1],
				["file", 1],
				["api", 2],
				["file", 2],
			],
		);
		// The view cap still holds: both views are spent.
		const third = await resolveLink(t.app, link.slug, {});
		assert.equal(third.statusCode, 404, third.body);
	});
});
