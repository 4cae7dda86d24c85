// The grant hooks: what watches shares (grant events for answers) hears of every status change,
// expiry, deletion and record change, inside the change's transaction.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { LinkStatusChange, RecordsChange } from "../../src/features/shares/grant-hooks.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, LINKS, patchLink, probeLink, RECORDS, resolveLink } from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("grant hooks", () => {
	let t: TestApp;
	let a: TestAccount;
	const clock = new ManualClock(T0);
	let statuses: LinkStatusChange[] = [];
	let deleted: string[] = [];
	let records: RecordsChange[] = [];
	let failNext = false;

	before(async () => {
		t = await makeApp(
			{},
			{
				clock,
				extend: async (app) => {
					app.grantHooks.onLinkStatus.push(async (_db, change) => {
						if (failNext) {
							failNext = false;
							throw new Error("watcher failed");
						}
						statuses.push(change);
					});
					app.grantHooks.onLinkDeleted.push(async (_db, id) => deleted.push(id));
					app.grantHooks.onRecordsChanged.push(async (_db, change) => records.push(change));
				},
			},
		);
		a = await buildAccount(t.app);
	});
	after(() => t.close());
	beforeEach(() => {
		statuses = [];
		deleted = [];
		records = [];
	});

	test("pause, resume and revoke are reported once each; a no-op is not", async () => {
		const link = await createLink(t.app, a, {});
		await patchLink(t.app, a, link.id, { status: "paused" });
		await patchLink(t.app, a, link.id, { status: "paused" });
		await patchLink(t.app, a, link.id, { status: "active" });
		await patchLink(t.app, a, link.id, { status: "revoked" });
		assert.deepEqual(
			statuses.map((s) => [s.from, s.to]),
			[
				["active", "paused"],
				["paused", "active"],
				["active", "revoked"],
			],
		);
		assert.ok(statuses.every((s) => s.link === link.id));
	});

	test("a watcher that fails rolls the status change back", async () => {
		const link = await createLink(t.app, a, {});
		failNext = true;
		const res = await patchLink(t.app, a, link.id, { status: "revoked" });
		assert.equal(res.statusCode, 500);
		assert.equal((await probeLink(t.app, link.slug)).json().status, "active");
	});

	test("the view reaching the cap and a read past the expiry report `expired` once", async () => {
		const rec = await createValue(t.app, a, { key: "k", value: "v" });
		const capped = await createLink(t.app, a, { records: [rec.id], maxViews: 1 });
		await resolveLink(t.app, capped.slug);
		await resolveLink(t.app, capped.slug);
		const timed = await createLink(t.app, a, {
			records: [rec.id],
			expiresAt: new Date(clock.now() + 1000).toISOString(),
		});
		clock.advance(1000);
		await probeLink(t.app, timed.slug);
		await resolveLink(t.app, timed.slug);
		assert.deepEqual(statuses, [
			{ link: capped.id, from: "active", to: "expired" },
			{ link: timed.id, from: "active", to: "expired" },
		]);
	});

	test("deleting a share, and changing or deleting a record's value, are reported", async () => {
		const rec = await createValue(t.app, a, { key: "k", value: "v" });
		const link = await createLink(t.app, a, { records: [rec.id] });
		await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${rec.id}`,
			headers: a.headers,
			payload: { name: "n" },
		});
		assert.deepEqual(records, [], "a rename does not change the value");
		await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${rec.id}`,
			headers: a.headers,
			payload: { value: "w" },
		});
		await t.app.inject({ method: "DELETE", url: `${RECORDS}/${rec.id}`, headers: a.headers });
		assert.deepEqual(records, [
			{ records: [rec.id], deleted: false },
			{ records: [rec.id], deleted: true },
		]);
		await t.app.inject({ method: "DELETE", url: `${LINKS}/${link.id}`, headers: a.headers });
		assert.deepEqual(deleted, [link.id]);
	});
});
