// The probe's read of a share (`probeLink`): on either database the probes of one event-loop round,
// of any shares, share one read begun after they arrived, never an earlier one. Counted and held
// at the database handle (`countedShares`).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { probe } from "../../src/features/shares/public.ts";
import { dialect, makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { countedShares, createLink } from "./helpers.ts";

const NOW = Date.UTC(2026, 10, 25, 12);

describe(`the probe's read of a share (${dialect})`, () => {
	let t: TestApp;
	let a: TestAccount;
	before(async () => {
		t = await makeApp();
		a = await buildAccount(t.app);
	});
	after(() => t.close());

	test("ten probes at once: each answered; one read on either database", async () => {
		const link = await createLink(t.app, a, { label: "Busy" });
		const h = countedShares(t.app);
		const answers = await Promise.all(Array.from({ length: 10 }, () => probe(h.ctx, link.slug, NOW)));
		assert.ok(answers.every((x) => x.slug === link.slug && x.label === "Busy" && x.status === "active"));
		// One round, one statement.
		assert.equal(h.statements(), 1);
		await assert.rejects(probe(h.ctx, "no-such-slug-here", NOW), { code: "link_not_found" });
	});

	test("probes of different shares in one round: each its own share, all read in one statement", async () => {
		const links = [];
		for (const label of ["One", "Two", "Three"]) links.push(await createLink(t.app, a, { label }));
		const h = countedShares(t.app);
		const slugs = [...links, ...links].map((l) => l.slug);
		const answers = await Promise.all(slugs.map((slug) => probe(h.ctx, slug, NOW)));
		assert.deepEqual(
			answers.map((x) => [x.slug, x.label]),
			[...links, ...links].map((l, i) => [l.slug, ["One", "Two", "Three"][i % 3]]),
		);
		assert.equal(h.statements(), 1);
		const missing = await Promise.allSettled([
			probe(h.ctx, "no-such-slug-here", NOW),
			probe(h.ctx, slugs[0] as string, NOW),
		]);
		assert.equal(missing[0].status, "rejected");
		assert.equal((missing[1] as PromiseFulfilledResult<{ label: string }>).value.label, "One");
	});

	test("a probe answers from a read begun after it arrived, never from an older one", async () => {
		const link = await createLink(t.app, a, {});
		const h = countedShares(t.app);
		assert.equal((await probe(h.ctx, link.slug, NOW)).status, "active");
		assert.equal((await probe(h.ctx, link.slug, NOW)).status, "active");
		// Reads are shared only by probes waiting together, and these two came one after the other.
		assert.equal(h.statements(), 2);
		await t.app.store.db.updateTable("links").set({ status: "paused" }).where("id", "=", link.id).execute();
		// Arrived after the change: the read it may take is one of its own.
		assert.equal((await probe(h.ctx, link.slug, NOW)).status, "paused");
		assert.equal(h.statements(), 3);
	});

	if (dialect === "postgres")
		test("PostgreSQL: a probe that arrives after a change sees it, though an earlier probe's read is still running", async () => {
			const link = await createLink(t.app, a, {});
			const h = countedShares(t.app);
			h.hold();
			const earlier = probe(h.ctx, link.slug, NOW);
			await h.read; // the earlier probe's row is read, its answer held back
			await t.app.store.db.updateTable("links").set({ status: "paused" }).where("id", "=", link.id).execute();
			const later = probe(h.ctx, link.slug, NOW);
			h.release();
			assert.equal((await earlier).status, "active");
			assert.equal((await later).status, "paused");
		});
});
