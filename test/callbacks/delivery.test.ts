// Callback delivery through the outbox, to a real HTTP receiver on loopback
// (ALLOW_PRIVATE_CALLBACKS=true), driven with a ManualClock: payloads and headers, at-most-once
// submissions, the grant-event retry schedule across a restart, refusals at connect time, and the
// owner's `callback_failed` notifications.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { type App, buildApp } from "../../src/app.ts";
import {
	enqueueGrantEvent,
	enqueueSubmission,
	MAX_RETRIES,
	retryDelay,
} from "../../src/features/callbacks/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { type TestEnv, testEnv } from "../helpers/app.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { deadPort, type Receiver, startReceiver } from "../helpers/receiver.ts";

const REQUESTS = "/api/collections/requests/records";
const NOTES = "/api/collections/notifications/records";
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

let dns: TestDns;
let receiver: Receiver;
let other: Receiver;
let clock: ManualClock;
let env: TestEnv;
let app: App;
let owner: TestAccount;

const ok = (_req: unknown, res: import("node:http").ServerResponse) => void res.writeHead(200).end("thanks");

before(async () => {
	dns = await startDns();
	receiver = await startReceiver();
	other = await startReceiver();
	clock = new ManualClock(Date.parse("2030-03-01T08:00:00Z"));
	env = testEnv({ allowPrivateCallbacks: true, dnsServers: [dns.server] });
	// The spec's 10 s bound: deliveries to the receiver on loopback never race a short deadline on a
	// busy machine. Only the timeout case runs on a second node with a shortened one.
	app = await buildApp(env.config, { clock });
	owner = await buildAccount(app);
});
after(async () => {
	await app.close();
	await env.dispose();
	await receiver.close();
	await other.close();
	await dns.close();
});
beforeEach(() => {
	receiver.received.length = 0;
	other.received.length = 0;
	receiver.respond = ok;
});

async function makeRequest(callbackUrl: string | null, label = "Tenant application", on = app, who = owner) {
	const res = await on.inject({
		method: "POST",
		url: REQUESTS,
		headers: who.headers,
		payload: {
			label,
			items: [{ key: "name", label: "Name", type: "text", required: true }],
			callbackUrl,
		},
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { id: string; slug: string; label: string };
}

function row(id: string, on = app) {
	return on.store.db.selectFrom("outbox").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

async function notifications(on = app, who = owner) {
	const res = await on.inject({
		method: "GET",
		url: `${NOTES}?filter=${encodeURIComponent('kind = "callback_failed"')}`,
		headers: who.headers,
	});
	return res.json().items as { title: string; body: string; data: Record<string, unknown> }[];
}

const drain = (on = app) => on.background.drainOnce(clock.now());

describe("what is delivered", () => {
	test("a submission: POST once, JSON with every member, X-Svc-Request naming the request", async () => {
		const r = await makeRequest(`${receiver.url}/hooks/svc?token=abc`);
		const id = await enqueueSubmission(
			app.store.db,
			{
				requestId: r.id,
				responseId: "resp0000000000000001",
				identity: "ident000000000000001",
				identifier: "tenant-42",
				senderName: "Zoe Q.",
				data: { name: "Zoe", moveIn: "2030-04-01" },
			},
			clock.now(),
		);
		assert.ok(id);
		// Queued, not sent inline: the worker sends it.
		assert.equal(receiver.received.length, 0);
		assert.deepEqual(await drain(), { delivered: 1, retrying: 0, failed: 0 });
		assert.equal(receiver.received.length, 1);
		const got = receiver.received[0];
		assert.ok(got);
		assert.equal(got.method, "POST");
		assert.equal(got.path, "/hooks/svc?token=abc");
		assert.equal(got.headers["content-type"], "application/json");
		assert.equal(got.headers["x-svc-request"], r.id);
		assert.equal(got.headers.signature, undefined, "deliveries are not signed");
		assert.deepEqual(got.json(), {
			requestId: r.id,
			slug: r.slug,
			responseId: "resp0000000000000001",
			linkId: "resp0000000000000001",
			identity: "ident000000000000001",
			identifier: "tenant-42",
			senderName: "Zoe Q.",
			data: { name: "Zoe", moveIn: "2030-04-01" },
		});
		const done = await row(id);
		assert.equal(done.state, "delivered");
		assert.equal(done.attempts, 1);
		assert.equal(done.last_status, 200);
		assert.deepEqual(await drain(), { delivered: 0, retrying: 0, failed: 0 });
		assert.equal(receiver.received.length, 1);
	});

	test("a submission without identity, identifier or name sends them empty; an answer kept elsewhere adds server", async () => {
		const r = await makeRequest(`${receiver.url}/hook`);
		await enqueueSubmission(app.store.db, { requestId: r.id, responseId: "resp2", data: {} }, clock.now());
		await enqueueSubmission(
			app.store.db,
			{
				requestId: r.id,
				responseId: "resp3",
				identity: "ab".repeat(32),
				data: { name: "Remote" },
				server: "peer.example",
			},
			clock.now(),
		);
		await drain();
		const bodies = receiver.received
			.map((g) => g.json())
			.sort((x, y) => String(x.responseId).localeCompare(String(y.responseId)));
		assert.deepEqual(bodies[0], {
			requestId: r.id,
			slug: r.slug,
			responseId: "resp2",
			linkId: "resp2",
			identity: "",
			identifier: "",
			senderName: "",
			data: {},
		});
		assert.equal(bodies[1]?.server, "peer.example");
		assert.equal(bodies[1]?.identity, "ab".repeat(32));
	});

	test("a grant event: event, ids, status and an ISO time, never a value", async () => {
		const r = await makeRequest(`${receiver.url}/events`);
		const at = clock.now() - 5000;
		await enqueueGrantEvent(
			app.store.db,
			{ requestId: r.id, responseId: "resp4", event: "grant.revoked", status: "revoked", at },
			clock.now(),
		);
		await drain();
		assert.equal(receiver.received.length, 1);
		assert.equal(receiver.received[0]?.headers["x-svc-request"], r.id);
		assert.deepEqual(receiver.received[0]?.json(), {
			event: "grant.revoked",
			requestId: r.id,
			slug: r.slug,
			responseId: "resp4",
			linkId: "resp4",
			status: "revoked",
			at: new Date(at).toISOString(),
		});
	});

	test("a request without a callback URL queues nothing", async () => {
		const r = await makeRequest(null);
		assert.equal(
			await enqueueSubmission(app.store.db, { requestId: r.id, responseId: "x", data: {} }, clock.now()),
			undefined,
		);
		assert.equal(
			await enqueueGrantEvent(
				app.store.db,
				{ requestId: r.id, responseId: "x", event: "grant.changed", status: "active", at: clock.now() },
				clock.now(),
			),
			undefined,
		);
		const queued = await app.store.db.selectFrom("outbox").select("id").where("request", "=", r.id).execute();
		assert.equal(queued.length, 0);
	});

	test("a redirect is not followed: the receiver's 302 counts as answered and its target sees nothing", async () => {
		const r = await makeRequest(`${receiver.url}/moved`);
		receiver.respond = (_req, res) => void res.writeHead(302, { location: `${other.url}/elsewhere` }).end();
		const id = await enqueueSubmission(
			app.store.db,
			{ requestId: r.id, responseId: "r302", data: {} },
			clock.now(),
		);
		await drain();
		assert.equal(receiver.received.length, 1);
		assert.equal(other.received.length, 0);
		// Spec: only a transport error, a timeout or a status of 400 or more fails a delivery.
		assert.equal((await row(id as string)).state, "delivered");
		assert.equal((await row(id as string)).last_status, 302);
	});
});

describe("submissions: at most once", () => {
	test("a receiver answering 500 gets exactly one attempt, and the owner is told at once", async () => {
		const r = await makeRequest(`${receiver.url}/broken`, "Broken receiver");
		receiver.respond = (_req, res) => void res.writeHead(500).end("oops");
		const id = (await enqueueSubmission(
			app.store.db,
			{ requestId: r.id, responseId: "resp500", data: {} },
			clock.now(),
		)) as string;
		assert.deepEqual(await drain(), { delivered: 0, retrying: 0, failed: 1 });
		for (const later of [30 * SECOND, HOUR, 2 * 24 * HOUR]) {
			clock.advance(later);
			await drain();
		}
		assert.equal(receiver.received.length, 1);
		const failed = await row(id);
		assert.equal(failed.state, "failed");
		assert.equal(failed.attempts, 1);
		const note = (await notifications()).find((n) => n.data.requestId === r.id);
		assert.ok(note, "a callback_failed notification");
		assert.match(note.title, /Broken receiver/);
		assert.match(note.body, /answered 500/);
		assert.equal(note.data.reason, "status");
		assert.equal(note.data.status, 500);
		assert.equal(note.data.delivery, "submission");
		assert.equal(note.data.responseId, "resp500");
	});

	test("a submission a stopped worker left mid-send is failed, never sent again", async () => {
		const r = await makeRequest(`${receiver.url}/crash`, "Crashed mid-send");
		const id = (await enqueueSubmission(
			app.store.db,
			{ requestId: r.id, responseId: "respcrash", data: {} },
			clock.now(),
		)) as string;
		// What a worker that died after its claim leaves behind.
		await app.store.db
			.updateTable("outbox")
			.set({ state: "sending", attempts: 1, lease: "dead-worker", lease_until: clock.now() + 60_000 })
			.where("id", "=", id)
			.execute();
		await drain();
		assert.equal((await row(id)).state, "sending", "its claim has not lapsed yet");
		clock.advance(60_000);
		await drain();
		assert.equal(receiver.received.length, 0);
		assert.equal((await row(id)).state, "failed");
		const note = (await notifications()).find((n) => n.data.requestId === r.id);
		assert.equal(note?.data.reason, "interrupted");
	});
});

describe("grant events: the retry schedule", () => {
	test("the schedule: 30 s, doubling to 6 h, 15 retries, the last 38 h 31 min 30 s after the first try", () => {
		const delays = Array.from({ length: MAX_RETRIES }, (_, i) => retryDelay(i + 1));
		assert.deepEqual(delays, [
			30 * SECOND,
			MINUTE,
			2 * MINUTE,
			4 * MINUTE,
			8 * MINUTE,
			16 * MINUTE,
			32 * MINUTE,
			64 * MINUTE,
			128 * MINUTE,
			256 * MINUTE,
			6 * HOUR,
			6 * HOUR,
			6 * HOUR,
			6 * HOUR,
			6 * HOUR,
		]);
		assert.equal(
			delays.reduce((s, d) => s + d, 0),
			38 * HOUR + 31 * MINUTE + 30 * SECOND,
		);
	});

	test("503 every time: each retry comes exactly on time, across a restart, then the owner is told", async () => {
		const r = await makeRequest(`${receiver.url}/down`, "Down for a day");
		receiver.respond = (_req, res) => void res.writeHead(503).end();
		const start = clock.now();
		const id = (await enqueueGrantEvent(
			app.store.db,
			{ requestId: r.id, responseId: "respdown", event: "grant.changed", status: "active", at: start },
			start,
		)) as string;
		await drain();
		assert.equal(receiver.received.length, 1);
		let due = start;
		for (let n = 1; n <= MAX_RETRIES; n++) {
			due += retryDelay(n);
			clock.set(due - 1);
			await drain();
			assert.equal(receiver.received.length, n, `retry ${n} not before its time`);
			if (n === 8) {
				// A restart: a new app on the same database carries on from the outbox alone.
				await app.close();
				app = await buildApp(env.config, { clock });
			}
			clock.set(due);
			await drain();
			assert.equal(receiver.received.length, n + 1, `retry ${n} at its time`);
			const state = (await row(id)).state;
			assert.equal(state, n < MAX_RETRIES ? "pending" : "failed");
		}
		assert.equal(due - start, 38 * HOUR + 31 * MINUTE + 30 * SECOND);
		clock.advance(7 * HOUR);
		await drain();
		assert.equal(receiver.received.length, 1 + MAX_RETRIES);
		const failed = await row(id);
		assert.equal(failed.attempts, 1 + MAX_RETRIES);
		const note = (await notifications()).find((n) => n.data.requestId === r.id);
		assert.ok(note);
		assert.match(note.body, /grant\.changed event .* after 16 attempts: answered 503/);
		assert.equal(note.data.reason, "status");
		assert.equal(note.data.event, "grant.changed");
	});

	test("408, 429, a transport error and a timeout are retried; the owner hears nothing meanwhile", async (t) => {
		// A second node on the same database whose deliveries are cut at 500 ms drains the timeout
		// case: a receiver that never answers times out whatever the bound, and no other case waits on it.
		const quick = await buildApp(env.config, { clock, callbackTimeoutMs: 500 });
		t.after(() => quick.close());
		for (const [name, respond, url] of [
			[
				"408",
				(_: unknown, res: import("node:http").ServerResponse) => void res.writeHead(408).end(),
				undefined,
			],
			[
				"429",
				(_: unknown, res: import("node:http").ServerResponse) => void res.writeHead(429).end(),
				undefined,
			],
			// Headers never come: cut at the second node's 500 ms bound.
			["timeout", () => undefined, undefined],
			["refused connection", ok, `http://127.0.0.1:${await deadPort()}/hook`],
		] as const) {
			receiver.respond = respond;
			const r = await makeRequest(url ?? `${receiver.url}/retry-${name}`, `Retry ${name}`);
			const id = (await enqueueGrantEvent(
				app.store.db,
				{
					requestId: r.id,
					responseId: `resp-${name}`,
					event: "grant.changed",
					status: "paused",
					at: clock.now(),
				},
				clock.now(),
			)) as string;
			assert.deepEqual(
				await drain(name === "timeout" ? quick : app),
				{ delivered: 0, retrying: 1, failed: 0 },
				name,
			);
			const pending = await row(id);
			assert.equal(pending.state, "pending", name);
			assert.equal(pending.next_attempt, clock.now() + 30 * SECOND, name);
			// Each failure is its own, not the deadline's: only the silent receiver timed out.
			if (name === "timeout")
				assert.match(pending.last_error ?? "", /timed out: no complete answer within 0\.5 s/);
			else assert.doesNotMatch(pending.last_error ?? "", /timed out/, name);
			assert.ok(!(await notifications()).some((n) => n.data.requestId === r.id), name);
			// The receiver recovers: the retry is delivered.
			receiver.respond = ok;
			if (url)
				await app.store.db
					.updateTable("outbox")
					.set({ url: `${receiver.url}/back` })
					.where("id", "=", id)
					.execute();
			clock.advance(30 * SECOND);
			await drain();
			assert.equal((await row(id)).state, "delivered", name);
		}
	});

	test("any other 4xx ends the delivery at once, and the owner is told", async () => {
		for (const status of [400, 404, 410]) {
			const r = await makeRequest(`${receiver.url}/gone-${status}`, `Ends on ${status}`);
			receiver.respond = (_req, res) => void res.writeHead(status).end();
			receiver.received.length = 0;
			const id = (await enqueueGrantEvent(
				app.store.db,
				{
					requestId: r.id,
					responseId: `resp${status}`,
					event: "grant.expired",
					status: "expired",
					at: clock.now(),
				},
				clock.now(),
			)) as string;
			assert.deepEqual(await drain(), { delivered: 0, retrying: 0, failed: 1 });
			clock.advance(HOUR);
			await drain();
			assert.equal(receiver.received.length, 1);
			assert.equal((await row(id)).state, "failed");
			const note = (await notifications()).find((n) => n.data.requestId === r.id);
			assert.equal(note?.data.status, status);
			assert.match(note?.body ?? "", new RegExp(`after 1 attempt: answered ${status}`));
		}
	});
});

describe("the address policy at connect time", () => {
	test("a name that was public at save and resolves to loopback at delivery is never contacted", async () => {
		const strictEnv = testEnv({ allowPrivateCallbacks: false, dnsServers: [dns.server] });
		const strict = await buildApp(strictEnv.config, { clock });
		try {
			const who = await buildAccount(strict);
			dns.a.set("rebind.test", ["93.184.216.34"]);
			const r = await makeRequest(`http://rebind.test:${receiver.port}/hook`, "Rebinding", strict, who);
			dns.a.set("rebind.test", ["127.0.0.1"]);
			const id = (await enqueueSubmission(
				strict.store.db,
				{ requestId: r.id, responseId: "rebind", data: {} },
				clock.now(),
			)) as string;
			assert.deepEqual(await strict.background.drainOnce(clock.now()), {
				delivered: 0,
				retrying: 0,
				failed: 1,
			});
			assert.equal(receiver.received.length, 0);
			assert.match(
				(await row(id, strict)).last_error ?? "",
				/blocked: rebind\.test resolves to a blocked address: 127\.0\.0\.1/,
			);
			const note = (await notifications(strict, who)).find((n) => n.data.requestId === r.id);
			assert.equal(note?.data.reason, "blocked");
		} finally {
			await strict.close();
			await strictEnv.dispose();
		}
	});

	test("a name turned to the metadata address is refused even with private callbacks on, and not retried", async () => {
		dns.a.set("later-meta.test", ["93.184.216.34"]);
		const r = await makeRequest(`http://later-meta.test:${receiver.port}/hook`, "Metadata");
		dns.a.set("later-meta.test", ["169.254.169.254"]);
		const id = (await enqueueGrantEvent(
			app.store.db,
			{ requestId: r.id, responseId: "meta", event: "grant.changed", status: "active", at: clock.now() },
			clock.now(),
		)) as string;
		assert.deepEqual(await drain(), { delivered: 0, retrying: 0, failed: 1 });
		assert.equal((await row(id)).state, "failed");
		assert.match((await row(id)).last_error ?? "", /169\.254\.169\.254 is a link-local address/);
		const note = (await notifications()).find((n) => n.data.requestId === r.id);
		assert.equal(note?.data.reason, "blocked");
	});
});
