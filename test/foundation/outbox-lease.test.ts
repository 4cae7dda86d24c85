// The outbox lease (src/db/outbox.ts), one implementation for callback deliveries (`outbox`) and
// grant events for other servers (`peer_events`): each table gets the same rows through it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type App, buildApp } from "../../src/app.ts";
import { claimDue, finishClaimed, type OutboxName, purgeFinished } from "../../src/db/outbox.ts";
import type { OutboxTable, PeerEventTable } from "../../src/db/schema.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";

const T0 = Date.parse("2030-05-01T00:00:00Z");
let env: TestEnv;
let app: App;
let requestId: string;

before(async () => {
	env = testEnv();
	app = await buildApp(env.config);
	const owner = await buildAccount(app);
	const made = await app.inject({
		method: "POST",
		url: "/api/collections/requests/records",
		headers: owner.headers,
		payload: { label: "L", items: [{ key: "a", label: "A", type: "text", required: false }] },
	});
	requestId = made.json().id as string;
});
after(async () => {
	await app.close();
	await env.dispose();
});

const lease = { state: "pending" as const, attempts: 0, lease: null, lease_until: null, last_status: null };

/** A pending row of `table`, due at `due`; `kind` for the callback outbox. */
async function put(table: OutboxName, id: string, due: number, kind: OutboxTable["kind"] = "grant_event") {
	const common = { ...lease, id, next_attempt: due, last_error: null, created: T0, updated: T0 };
	if (table === "outbox") {
		const row: OutboxTable = {
			...common,
			kind,
			request: requestId,
			url: "https://x.example/",
			payload: "{}",
		};
		await app.store.db.insertInto("outbox").values(row).execute();
	} else {
		const row: PeerEventTable = {
			...common,
			peer: "peer.example",
			grant_id: id,
			request_slug: null,
			event: "grant.changed",
			status: "active",
			at: T0,
		};
		await app.store.db.insertInto("peer_events").values(row).execute();
	}
}

const claim = (table: OutboxName, now: number, name: string) =>
	claimDue(app.store.db, app.store.dialect, table, {
		now,
		lease: name,
		leaseUntil: now + 60_000,
		limit: 10,
		...(table === "outbox" ? { retake: (eb) => eb("kind", "=", "grant_event") } : {}),
	});

for (const table of ["outbox", "peer_events"] as const) {
	describe(`the lease of ${table} on ${dialect}`, () => {
		const p = `${table}-`;
		test("due rows are claimed once, counted as an attempt; a lapsed claim is taken again", async () => {
			await put(table, `${p}a`, T0);
			await put(table, `${p}b`, T0 + 1000);
			const first = await claim(table, T0, "one");
			assert.deepEqual(
				first.map((r) => [r.id, r.state, r.attempts, r.lease]),
				[[`${p}a`, "sending", 1, "one"]],
			);
			assert.deepEqual(await claim(table, T0 + 1000, "two").then((r) => r.map((x) => x.id)), [`${p}b`]);
			assert.deepEqual(await claim(table, T0 + 59_999, "three"), [], "both claims hold");
			const retaken = await claim(table, T0 + 60_000, "four");
			assert.deepEqual(
				retaken.map((r) => [r.id, r.attempts, r.lease]),
				[[`${p}a`, 2, "four"]],
			);
			// The first worker's outcome no longer lands; the one holding the claim does.
			assert.deepEqual(
				await finishClaimed(app.store.db, table, [`${p}a`], "one", { state: "delivered", updated: T0 }),
				[],
			);
			const landed = await finishClaimed(app.store.db, table, [`${p}a`, `${p}b`], "four", {
				state: "delivered",
				updated: T0,
			});
			assert.deepEqual(
				landed.map((r) => [r.id, r.state, r.lease, r.lease_until]),
				[[`${p}a`, "delivered", null, null]],
			);
			assert.equal(Number((await purgeFinished(app.store.db, table, T0 + 1)).numDeletedRows), 1);
		});
	});
}

test("the callback outbox never takes a lapsed submission again (sent at most once)", async () => {
	await put("outbox", "sub", T0 + 5000, "submission");
	await put("outbox", "event", T0 + 5000, "grant_event");
	const ids = async (now: number, name: string) => (await claim("outbox", now, name)).map((r) => r.id).sort();
	assert.deepEqual(await ids(T0 + 5000, "one"), ["event", "sub"]);
	// Past the lease: the grant event is taken again (with the first test's lapsed row), never the submission.
	assert.deepEqual(await ids(T0 + 5000 + 60_000, "two"), ["event", "outbox-b"]);
});
