// Two workers on one database (two apps, two connection pools) draining at the same time never
// deliver the same row twice. On PostgreSQL this is the SKIP LOCKED claim under real concurrency.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type App, buildApp } from "../../src/app.ts";
import { enqueueGrantEvent, enqueueSubmission } from "../../src/features/callbacks/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";

let receiver: Receiver;
let env: TestEnv;
let one: App;
let two: App;
const clock = new ManualClock(Date.parse("2030-05-01T00:00:00Z"));

before(async () => {
	receiver = await startReceiver();
	// A little latency so the two workers' passes overlap.
	receiver.respond = (_req, res) => void setTimeout(() => res.writeHead(200).end(), 15);
	env = testEnv({ allowPrivateCallbacks: true });
	one = await buildApp(env.config, { clock });
	two = await buildApp(env.config, { clock });
});
after(async () => {
	await one.close();
	await two.close();
	await env.dispose();
	await receiver.close();
});

test(`two workers on one ${dialect} database deliver each row exactly once`, async () => {
	const owner = await buildAccount(one);
	const made = await one.inject({
		method: "POST",
		url: "/api/collections/requests/records",
		headers: owner.headers,
		payload: {
			label: "Busy",
			items: [{ key: "a", label: "A", type: "text", required: false }],
			callbackUrl: `${receiver.url}/hook`,
		},
	});
	const requestId = made.json().id as string;
	const total = 80;
	for (let i = 0; i < total; i++) {
		const responseId = `resp${String(i).padStart(3, "0")}`;
		if (i % 2 === 0) await enqueueSubmission(one.store.db, { requestId, responseId, data: {} }, clock.now());
		else {
			await enqueueGrantEvent(
				one.store.db,
				{ requestId, responseId, event: "grant.changed", status: "active", at: clock.now() },
				clock.now(),
			);
		}
	}
	const passes = await Promise.all([
		one.outbox.drainOnce(clock.now()),
		two.outbox.drainOnce(clock.now()),
		one.outbox.drainOnce(clock.now()),
		two.outbox.drainOnce(clock.now()),
	]);
	const delivered = passes.reduce((s, p) => s + p.delivered, 0);
	assert.equal(delivered, total);
	const ids = receiver.received.map((r) => r.json().responseId as string);
	assert.equal(ids.length, total);
	assert.equal(new Set(ids).size, total, "no row was delivered twice");
	const rows = await one.store.db.selectFrom("outbox").select(["state", "attempts"]).execute();
	assert.ok(rows.every((r) => r.state === "delivered" && r.attempts === 1));
	// Both workers took part (each pass claims at most 10 rows at a time).
	assert.ok(passes.filter((p) => p.delivered > 0).length >= 2, JSON.stringify(passes));
});
