// The conditional view update on its own: each of its guards refuses by itself, whatever the rest
// of the resolve checked before it (a reader who passed the status gate can still lose to a pause,
// a revocation, a lowered cap or the expiry before its update runs). One row per guard, so taking
// any guard out of `openSql` (gates/open.ts, the condition of `takeable`) fails its row, on SQLite
// and on PostgreSQL alike.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LinkTable } from "../../src/db/schema.ts";
import { publicQueries } from "../../src/features/shares/public-queries.ts";
import { dialect, makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, LINKS } from "./helpers.ts";

const NOW = Date.UTC(2026, 10, 24, 12);

describe(`the view update's guards, each alone (${dialect})`, () => {
	let t: TestApp;
	let a: TestAccount;
	before(async () => {
		t = await makeApp();
		a = await buildAccount(t.app);
	});
	after(() => t.close());

	/** A share whose stored row is set as given, bypassing the API (the state a racing reader meets). */
	async function shareStored(row: Partial<LinkTable>): Promise<string> {
		const link = await createLink(t.app, a, {});
		if (Object.keys(row).length > 0)
			await t.app.store.db.updateTable("links").set(row).where("id", "=", link.id).execute();
		return link.id;
	}

	const take = (id: string) =>
		publicQueries(t.app.store.db).takeView(t.app.store.db, {
			id,
			now: NOW,
			readId: crypto.randomUUID(),
			kind: "api",
			reader: null,
		});

	const refusals: [string, Partial<LinkTable>][] = [
		["stored active at its cap (a cap lowered under a reader)", { view_count: 3, max_views: 3 }],
		["stored active past its cap", { view_count: 5, max_views: 3 }],
		["paused", { status: "paused" }],
		["revoked", { status: "revoked" }],
		["expired", { status: "expired", view_count: 1, max_views: 3 }],
		["stored active, at its expiry instant", { expires_at: NOW }],
		["stored active, past its expiry", { expires_at: NOW - 1 }],
	];
	for (const [name, row] of refusals) {
		test(`refuses a share ${name}, and changes nothing`, async () => {
			const id = await shareStored(row);
			const before = await t.app.store.db
				.selectFrom("links")
				.selectAll()
				.where("id", "=", id)
				.executeTakeFirst();
			assert.deepEqual(await take(id), []);
			const after = await t.app.store.db
				.selectFrom("links")
				.selectAll()
				.where("id", "=", id)
				.executeTakeFirst();
			assert.deepEqual(after, before);
		});
	}

	test("takes a view below the cap; the view reaching the cap expires the share in the same statement", async () => {
		const id = await shareStored({ view_count: 1, max_views: 3, expires_at: NOW + 1 });
		assert.deepEqual(await take(id), [{ view_count: 2, status: "active" }]);
		assert.deepEqual(await take(id), [{ view_count: 3, status: "expired" }]);
		assert.deepEqual(await take(id), []);
	});

	test("a share stored active at its cap (written before the cap rule) reads as expired everywhere, and is written so once", async () => {
		const id = await shareStored({ view_count: 2, max_views: 2 });
		const { slug } = await t.app.store.db
			.selectFrom("links")
			.select("slug")
			.where("id", "=", id)
			.executeTakeFirstOrThrow();
		const owner = await t.app.inject({ method: "GET", url: `${LINKS}/${id}`, headers: a.headers });
		assert.equal(owner.json().status, "expired");
		const resolved = await t.app.inject({ method: "POST", url: `/api/public/links/${slug}` });
		assert.deepEqual([resolved.statusCode, resolved.json().code], [404, "link_expired"]);
		assert.equal((await t.app.inject({ url: `/api/public/links/${slug}` })).json().status, "expired");
		const stored = await t.app.store.db
			.selectFrom("links")
			.select("status")
			.where("id", "=", id)
			.executeTakeFirst();
		assert.equal(stored?.status, "expired");
	});

	test("takes views without end when there is no cap and no expiry", async () => {
		const id = await shareStored({});
		for (let view = 1; view <= 5; view++)
			assert.deepEqual(await take(id), [{ view_count: view, status: "active" }]);
	});
});
