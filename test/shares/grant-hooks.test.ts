// The grant hooks: what watches shares (grant events for answers) hears of every status change,
// expiry, deletion and record change, inside the change's transaction.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { LinkStatusChange, RecordsChange } from "../../src/features/shares/grant-hooks.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import {
	assertCode,
	createLink,
	createValue,
	LINKS,
	patchLink,
	probeLink,
	RECORDS,
	resolveLink,
} from "./helpers.ts";

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

	/** The share's status as stored (not as a reader would see it: `effectiveStatus` hides a missed write). */
	const stored = async (id: string) =>
		(await t.app.store.db.selectFrom("links").select("status").where("id", "=", id).executeTakeFirstOrThrow())
			.status;

	// The view that reaches the cap expires the share in its own statement and reports it in that
	// read (docs/api.md "Status and transitions": written by the read taking the last view). A later read would also find the share at its cap and expire
	// it on sight, so a cap rule that misses its last view is only seen before any further read. Both
	// ways a view is taken: the ungated share's one-statement resolve (public-queries/open-resolve.ts)
	// and, behind a password, the gates' conditional UPDATE (takeView); on PostgreSQL both write the
	// status with `viewTakenSql`, on SQLite the view's transaction writes it (`logViewSteps`).
	for (const [name, gate] of [
		["ungated", {}],
		["behind a password", { password: "open sesame" }],
	] as const) {
		test(`${name}: the read that takes the last view stores \`expired\` and reports it at once, once`, async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const capped = await createLink(t.app, a, { records: [rec.id], maxViews: 2, ...gate });
			const read = () => resolveLink(t.app, capped.slug, gate);
			const first = await read();
			assert.equal(first.statusCode, 200, first.body);
			assert.equal(await stored(capped.id), "active", "the view below the cap leaves the share active");
			assert.deepEqual(statuses, [], "the view below the cap reports nothing");
			const last = await read();
			assert.equal(last.statusCode, 200, last.body);
			assert.equal(last.json().viewCount, 2);
			// Both at once, so a failure shows which of the two the read missed.
			assert.deepEqual(
				{ stored: await stored(capped.id), reported: statuses },
				{ stored: "expired", reported: [{ link: capped.id, from: "active", to: "expired" }] },
				"the read that took the last view must store `expired` and report it, before any further read",
			);
			assertCode(await read(), 404, "link_expired");
			assert.equal(statuses.length, 1, "a read after the cap reports nothing again");
		});
	}

	test("a read past the expiry reports `expired` once", async () => {
		const rec = await createValue(t.app, a, { key: "k", value: "v" });
		const timed = await createLink(t.app, a, {
			records: [rec.id],
			expiresAt: new Date(clock.now() + 1000).toISOString(),
		});
		clock.advance(1000);
		await probeLink(t.app, timed.slug);
		await resolveLink(t.app, timed.slug);
		assert.deepEqual(statuses, [{ link: timed.id, from: "active", to: "expired" }]);
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
