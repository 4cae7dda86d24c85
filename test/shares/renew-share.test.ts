// The one rule of renewing a share for someone who grants again (shares/service.ts renewShare, used
// by OIDC sign-ins): a share that stands (active, or paused by its owner) is updated in place; one
// that no longer stands (revoked, expired by date or by its cap, or gone) is made again, never
// revived. renewLink took an expired share as standing and OIDC did not: the "expired" rows here
// are the disagreement.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { renewShare } from "../../src/features/shares/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect, makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createValue } from "./helpers.ts";

let t: TestApp;
let who: TestAccount;
let records: string[];

before(async () => {
	t = await makeApp();
	who = await buildAccount(t.app);
	records = [(await createValue(t.app, who, { key: "a", value: "1" })).id];
	records.push((await createValue(t.app, who, { key: "b", value: "2" })).id);
});
after(() => t.close());

const db = () => t.app.store.db;
const link = (id: string) => db().selectFrom("links").selectAll().where("id", "=", id).executeTakeFirst();
const granted = async (id: string) =>
	(
		await db()
			.selectFrom("link_records")
			.select("record")
			.where("link", "=", id)
			.orderBy("position")
			.execute()
	).map((r) => r.record);

/** A share granting the first record, then put in the state the row names. */
async function shareIn(state: string, now: number): Promise<string | undefined> {
	const made = await renewShare(
		db(),
		undefined,
		{ id: newId(), workspace: who.workspaceId, created_by: who.accountId, label: state },
		records.slice(0, 1),
		now - 10_000,
	);
	const set = (changes: Record<string, unknown>) =>
		db().updateTable("links").set(changes).where("id", "=", made.id).execute();
	if (state === "paused" || state === "revoked") await set({ status: state });
	if (state === "stored expired") await set({ status: "expired" });
	if (state === "past its expiry") await set({ expires_at: now });
	if (state === "at its view cap") await set({ max_views: 2, view_count: 2 });
	if (state === "gone") await db().deleteFrom("links").where("id", "=", made.id).execute();
	return made.id;
}

const ROWS = [
	{ state: "active", restarted: false, status: "active" },
	{ state: "paused", restarted: false, status: "paused" },
	{ state: "revoked", restarted: true, status: "active" },
	{ state: "stored expired", restarted: true, status: "active" },
	{ state: "past its expiry", restarted: true, status: "active" },
	{ state: "at its view cap", restarted: true, status: "active" },
	{ state: "gone", restarted: true, status: "active" },
] as const;

describe(`renewing a share on ${dialect}`, () => {
	for (const row of ROWS) {
		for (const sameId of [true, false]) {
			const how = sameId ? "under the same id (answers)" : "beside it (sign-ins)";
			test(`a share ${row.state}: ${row.restarted ? `made again ${how}` : "updated in place"}`, async () => {
				const now = t.app.clock.now();
				const current = await shareIn(row.state, now);
				assert.ok(current);
				const before = await link(current);
				const fresh = sameId ? current : newId();
				const fields = { id: fresh, workspace: who.workspaceId, created_by: who.accountId, label: "again" };
				const renewed = await renewShare(db(), current, fields, records, now);
				assert.equal(renewed.restarted, row.restarted);
				assert.equal(renewed.status, row.status);
				assert.equal(renewed.id, row.restarted ? fresh : current);
				assert.deepEqual(await granted(renewed.id), records, "grants the records, in order");
				const after = await link(renewed.id);
				assert.ok(after);
				if (!row.restarted) {
					assert.equal(after.slug, before?.slug, "the same share");
					assert.equal(after.updated, now);
					return;
				}
				assert.equal(after.status, "active");
				assert.equal(after.view_count, 0);
				assert.equal(after.expires_at, null);
				assert.equal(after.label, "again");
				assert.notEqual(after.slug, before?.slug, "a fresh slug");
				// Never revived: beside the new share the old one stays as it was; under its id, replaced.
				if (!sameId && before) assert.deepEqual(await link(current), before);
			});
		}
	}
});
