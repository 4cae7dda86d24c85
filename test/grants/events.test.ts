// Signed grant event batches between two servers: the responder's server (resp.test, in this
// process, so its outbox is drained step by step) and the requester's (req.test, a server process
// with its delivery loop running), each reaching the other through PEER_OVERRIDES with its `_svc`
// TXT record served by a DNS server on loopback. A change, a pause, a revocation and an expiry reach
// the requester as signed batches and then its callback (a receiver on loopback); forged, stale,
// wrongly addressed and malformed batches are refused and change nothing; a sender whose key
// cannot be fetched gets 503, retries 30 s later and lands; older and repeated events are ignored.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { sweepExpiredAnswers } from "../../src/features/answers/grant-events.ts";
import { signBatch, type WireEvent } from "../../src/features/grants/events-out.ts";
import { signEnvelope } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp, type TestEnv, testEnv } from "../helpers/app.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { deadPort, type Receiver, startReceiver } from "../helpers/receiver.ts";

const REQ = "req.test";
const RESP = "resp.test";

async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
	const until = Date.now() + 15_000;
	for (;;) {
		const got = await check();
		if (got !== undefined) return got;
		if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

describe("signed grant event batches between two servers", () => {
	let dns: TestDns;
	let sink: Receiver;
	let reqEnv: TestEnv;
	let reqStore: Store;
	let reqProc: ServerProcess;
	let reqHeaders: Record<string, string>;
	let resp: TestApp;
	let respHeaders: Record<string, string>;
	let respFingerprint: string;

	before(async () => {
		dns = await startDns();
		sink = await startReceiver();
		const [reqPort, respPort] = [await deadPort(), await deadPort()];
		const overrides = { [REQ]: `http://127.0.0.1:${reqPort}`, [RESP]: `http://127.0.0.1:${respPort}` };

		resp = await makeApp({ domain: RESP, dnsServers: [dns.server], peerOverrides: overrides });
		await resp.app.listen({ port: respPort, host: "127.0.0.1" });
		respFingerprint = resp.app.rootKey.fingerprint;

		reqEnv = testEnv();
		reqProc = await startServer({
			DATABASE_URL: reqEnv.config.databaseUrl,
			DATABASE_SCHEMA: reqEnv.config.databaseSchema,
			DATA_DIR: reqEnv.config.dataDir,
			DOMAIN: REQ,
			PORT: String(reqPort),
			REDIS_URL: "",
			DNS_SERVERS: dns.server,
			PEER_OVERRIDES: Object.entries(overrides)
				.map(([d, u]) => `${d}=${u}`)
				.join(","),
			ALLOW_PRIVATE_CALLBACKS: "true",
			// Values read by bulk read are kept a minute: an applied event must make them be read again.
			GRANT_MAX_AGE: "60",
			SVC_TEST_OUTBOX: "1",
		});
		reqStore = await openStore(reqEnv.config);

		const reqClaim = (await (await fetch(`${reqProc.url}/api/server`)).json()) as { fingerprint: string };
		dns.txt.set(`_svc.${REQ}`, [reqClaim.fingerprint]);
		dns.txt.set(`_svc.${RESP}`, [respFingerprint]);

		const now = Date.now();
		const r = await createAccount(reqStore.db, { email: "owner@req.test", name: "Req" }, now);
		reqHeaders = {
			authorization: `Bearer ${(await createSession(reqStore.db, r.accountId, now)).token}`,
			"content-type": "application/json",
		};
		const s = await createAccount(resp.app.store.db, { email: "owner@resp.test", name: "Resp" }, now);
		respHeaders = {
			authorization: `Bearer ${(await createSession(resp.app.store.db, s.accountId, now)).token}`,
		};
	});

	after(async () => {
		await reqProc?.stop();
		await reqStore?.destroy();
		await reqEnv?.dispose();
		await resp?.close();
		await sink?.close();
		await dns?.close();
	});

	const onReq = async (method: string, path: string, body?: unknown) => {
		const res = await fetch(`${reqProc.url}${path}`, {
			method,
			headers: body === undefined ? reqHeaders : { ...reqHeaders },
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
		});
		const text = await res.text();
		return { status: res.status, body: text, json: () => JSON.parse(text) };
	};
	const onResp = (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
		resp.app.inject({ method, url, headers: respHeaders, ...(payload ? { payload } : {}) });
	const postBatch = (body: unknown) =>
		fetch(`${reqProc.url}/api/grants/events`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(body),
		});
	const drain = () => resp.app.background.drainOnce(Date.now());
	/** resp.test as a signer of batches. */
	const me = () => ({ domain: RESP, rootKey: resp.app.rootKey });
	const pendingEvents = () =>
		resp.app.store.db
			.selectFrom("peer_events")
			.selectAll()
			.where("state", "in", ["pending", "sending"])
			.execute();

	/** A request on req.test answered from resp.test; the ids on both sides. */
	async function answered() {
		const made = await onReq("POST", "/api/collections/requests/records", {
			label: "Tenant application",
			items: [{ key: "name", label: "Full name", type: "text", required: true }],
			callbackUrl: `${sink.url}/cb`,
		});
		assert.equal(made.status, 200, made.body);
		const request = made.json() as { id: string; slug: string };
		const relayed = await onResp("POST", "/api/requests/remote", {
			server: REQ,
			slug: request.slug,
			values: { name: "Ada Lovelace" },
		});
		assert.equal(relayed.statusCode, 200, relayed.body);
		const { responseId, grantId } = relayed.json() as { responseId: string; grantId: string };
		const grant = await resp.app.store.db
			.selectFrom("grant_tokens")
			.select("keys")
			.where("link", "=", grantId)
			.executeTakeFirstOrThrow();
		return { request, responseId, grantId, nameRecord: JSON.parse(grant.keys).name as string };
	}
	const callbacks = (responseId: string, event?: string) =>
		sink.received
			.map((r) => r.json())
			.filter((p) => p.responseId === responseId && (event === undefined || p.event === event));
	const remoteRow = (responseId: string) =>
		reqStore.db
			.selectFrom("request_answers")
			.select(["remote_status", "remote_at"])
			.where("id", "=", responseId)
			.executeTakeFirstOrThrow();

	/** The requester's `answer_revoked` notifications about one answer, read through its API. */
	const revokedNotes = async (responseId: string) => {
		const filter = encodeURIComponent('kind = "answer_revoked"');
		const res = await onReq("GET", `/api/collections/notifications/records?filter=${filter}`);
		assert.equal(res.status, 200, res.body);
		return (res.json().items as { data: { request: string; responseId: string } }[])
			.map((n) => n.data)
			.filter((d) => d.responseId === responseId);
	};

	test("a change, a pause and a revocation reach the requester as signed batches, then its callback", async () => {
		const a = await answered();
		await waitFor("the submission callback", () => callbacks(a.responseId)[0]);
		const listed = async () => {
			const res = await onReq("GET", `/api/requests/${a.request.id}/links`);
			assert.equal(res.status, 200, res.body);
			return res.json().items[0] as { status: string; values: { key: string; value: string }[] };
		};
		// Read once: the values are kept for maxAge (60 s).
		assert.equal((await listed()).values[0]?.value, "Ada Lovelace");

		const patched = await onResp("PATCH", `/api/collections/records/records/${a.nameRecord}`, {
			value: "Ada King",
		});
		assert.equal(patched.statusCode, 200, patched.body);
		const queued = await pendingEvents();
		assert.equal(queued.length, 1);
		assert.deepEqual(
			{
				peer: queued[0]?.peer,
				grant: queued[0]?.grant_id,
				event: queued[0]?.event,
				status: queued[0]?.status,
			},
			{ peer: REQ, grant: a.grantId, event: "grant.changed", status: "active" },
		);
		assert.deepEqual(await drain(), { delivered: 1, retrying: 0, failed: 0 });
		const changed = await waitFor("grant.changed", () => callbacks(a.responseId, "grant.changed")[0]);
		assert.deepEqual(
			{ ...changed, at: "" },
			{
				event: "grant.changed",
				requestId: a.request.id,
				slug: a.request.slug,
				responseId: a.responseId,
				linkId: a.responseId,
				status: "active",
				at: "",
				server: RESP,
			},
		);
		assert.equal(JSON.stringify(changed).includes("Ada"), false, "an event never carries a value");
		// The applied event is newer than the kept values: the listing reads them again at once.
		assert.equal((await listed()).values[0]?.value, "Ada King");

		assert.equal(
			(await onResp("PATCH", `/api/collections/links/records/${a.grantId}`, { status: "paused" })).statusCode,
			200,
		);
		assert.deepEqual(await drain(), { delivered: 1, retrying: 0, failed: 0 });
		const paused = await waitFor("paused", () =>
			callbacks(a.responseId, "grant.changed").find((p) => p.status === "paused"),
		);
		assert.equal(paused.server, RESP);
		assert.equal((await remoteRow(a.responseId)).remote_status, "paused");
		assert.deepEqual(await revokedNotes(a.responseId), [], "a pause is no revocation");

		assert.equal(
			(await onResp("PATCH", `/api/collections/links/records/${a.grantId}`, { status: "revoked" }))
				.statusCode,
			200,
		);
		assert.deepEqual(await drain(), { delivered: 1, retrying: 0, failed: 0 });
		const revoked = await waitFor("grant.revoked", () => callbacks(a.responseId, "grant.revoked")[0]);
		assert.equal(revoked.status, "revoked");
		assert.equal(revoked.server, RESP);
		assert.equal((await remoteRow(a.responseId)).remote_status, "revoked");
		// The requester is told in-app, as of a local answer's revocation (spec "Notifications").
		assert.deepEqual(await revokedNotes(a.responseId), [
			{ request: a.request.id, label: "Tenant application", responseId: a.responseId },
		]);
		const gone = await listed();
		assert.equal(gone.status, "revoked");
		assert.deepEqual(gone.values, []);
	});

	test("an answer reaching its expiry on the responder's side reaches the requester as grant.expired, then its callback", async () => {
		const a = await answered();
		await waitFor("the submission callback", () => callbacks(a.responseId)[0]);
		const expiresAt = Date.now() + 2000;
		const set = await onResp("PATCH", `/api/collections/links/records/${a.grantId}`, {
			expiresAt: new Date(expiresAt).toISOString(),
		});
		assert.equal(set.statusCode, 200, set.body);
		await drain();
		// The expiry sweep, with the time given: not yet at exp-1, expired at exp.
		const sweep = (now: number) => sweepExpiredAnswers(resp.app.store.db, resp.app.grantHooks, now);
		assert.equal(await sweep(expiresAt - 1), 0);
		assert.deepEqual(await pendingEvents(), []);
		assert.equal(await sweep(expiresAt), 1);
		const queued = await pendingEvents();
		assert.deepEqual(
			queued.map((e) => [e.peer, e.grant_id, e.event, e.status, e.at]),
			[[REQ, a.grantId, "grant.expired", "expired", expiresAt]],
		);
		// Sent at the sweep's time (two seconds ahead of the requester's clock, within its skew).
		assert.deepEqual(await resp.app.background.drainOnce(expiresAt), {
			delivered: 1,
			retrying: 0,
			failed: 0,
		});
		const expired = await waitFor("grant.expired", () => callbacks(a.responseId, "grant.expired")[0]);
		assert.deepEqual(expired, {
			event: "grant.expired",
			requestId: a.request.id,
			slug: a.request.slug,
			responseId: a.responseId,
			linkId: a.responseId,
			status: "expired",
			at: new Date(expiresAt).toISOString(),
			server: RESP,
		});
		assert.deepEqual(await remoteRow(a.responseId), { remote_status: "expired", remote_at: expiresAt });
		const listed = await onReq("GET", `/api/requests/${a.request.id}/links`);
		assert.equal(listed.status, 200, listed.body);
		const item = listed.json().items[0];
		assert.equal(item.status, "expired");
		assert.deepEqual(item.values, []);
	});

	test("events about one server travel together: two answers changed, one batch", async () => {
		const [a, b] = [await answered(), await answered()];
		for (const x of [a, b]) {
			await onResp("PATCH", `/api/collections/records/records/${x.nameRecord}`, { value: "Ada B." });
		}
		assert.equal((await pendingEvents()).length, 2);
		// One drain, one POST with both events (the requester counts them as applied).
		assert.deepEqual(await drain(), { delivered: 2, retrying: 0, failed: 0 });
		// Wait for these two grant.changed callbacks themselves: the answers' own submission
		// callbacks may still be arriving from the requester's outbox meanwhile.
		await waitFor("both grant.changed callbacks", () =>
			callbacks(a.responseId, "grant.changed").length >= 1 &&
			callbacks(b.responseId, "grant.changed").length >= 1
				? true
				: undefined,
		);
		assert.equal(callbacks(a.responseId, "grant.changed").length, 1);
		assert.equal(callbacks(b.responseId, "grant.changed").length, 1);
	});

	test("forged, stale, wrongly addressed and malformed batches are refused and change nothing", async () => {
		const a = await answered();
		const before = await remoteRow(a.responseId);
		const now = Date.now();
		const event: WireEvent = {
			event: "grant.revoked",
			grant: a.grantId,
			slug: a.request.slug,
			status: "revoked",
			at: new Date(now).toISOString(),
		};
		const expect = async (res: Response, status: number, code: string) => {
			const body = (await res.json()) as { code: string };
			assert.equal(res.status, status, JSON.stringify(body));
			assert.equal(body.code, code);
		};
		// Signed by another key claiming to be resp.test.
		const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
		const forged = signBatch(
			{ domain: RESP, rootKey: { ...resp.app.rootKey, privateKey } },
			REQ,
			[event],
			now,
		);
		await expect(await postBatch(forged), 401, "event_signature_invalid");
		// The right key, but the payload changed after signing.
		const real = signBatch(me(), REQ, [event], now);
		const tampered = {
			...real,
			payload: signBatch(me(), REQ, [{ ...event, status: "expired" }], now).payload,
		};
		await expect(await postBatch(tampered), 401, "event_signature_invalid");
		// Five minutes old, or addressed to another server.
		await expect(
			await postBatch(signBatch(me(), REQ, [event], now - 300_000)),
			401,
			"event_signature_invalid",
		);
		await expect(
			await postBatch(signBatch(me(), "other.test", [event], now)),
			401,
			"event_signature_invalid",
		);
		// Not a batch at all, or of another type, or not the body's shape.
		await expect(await postBatch({ payload: "%%%", signature: "00" }), 400, "validation_failed");
		const claim = signEnvelope(resp.app.rootKey.privateKey, "server-claim-v1", {
			sender: RESP,
			audience: REQ,
		});
		await expect(await postBatch(claim), 400, "validation_failed");
		await expect(await postBatch({ payload: real.payload }), 400, "validation_failed");
		await expect(await postBatch({ ...real, extra: 1 }), 400, "validation_failed");
		// Signed, but an event from the far future (it would freeze the answer's status) or on a day
		// that does not exist (it would roll over): refused as a whole.
		for (const at of [
			"9999-12-31T00:00:00.000Z",
			new Date(now + 5 * 60_000).toISOString(),
			"2026-02-30T10:00:00Z",
		]) {
			await expect(await postBatch(signBatch(me(), REQ, [{ ...event, at }], now)), 400, "validation_failed");
		}

		assert.deepEqual(await remoteRow(a.responseId), before);
		assert.equal(callbacks(a.responseId, "grant.revoked").length, 0);

		// The genuine batch lands; sent again, or older, it is ignored.
		const ok = await postBatch(real);
		assert.equal(ok.status, 200);
		assert.deepEqual(await ok.json(), { applied: 1 });
		const again = await postBatch(signBatch(me(), REQ, [event], Date.now()));
		assert.deepEqual(await again.json(), { applied: 0 });
		const older = {
			...event,
			status: "active",
			event: "grant.changed" as const,
			at: new Date(now - 1000).toISOString(),
		};
		const late = await postBatch(signBatch(me(), REQ, [older], Date.now()));
		assert.deepEqual(await late.json(), { applied: 0 });
		assert.equal((await remoteRow(a.responseId)).remote_status, "revoked");
		// An event about a grant nobody here holds is ignored, not refused.
		const stranger = await postBatch(signBatch(me(), REQ, [{ ...event, grant: "nosuchgrant" }], Date.now()));
		assert.deepEqual(await stranger.json(), { applied: 0 });
	});

	test("a sender whose key cannot be fetched gets 503, retries 30 s later, and its batch lands", async () => {
		const a = await answered();
		dns.txt.delete(`_svc.${RESP}`);
		try {
			// Asked directly: the unauthenticated answer says the key could not be had, not why.
			const direct = await postBatch(
				signBatch(
					me(),
					REQ,
					[
						{
							event: "grant.changed",
							grant: a.grantId,
							slug: a.request.slug,
							status: "active",
							at: new Date().toISOString(),
						},
					],
					Date.now(),
				),
			);
			assert.equal(direct.status, 503);
			const problem = (await direct.json()) as { code: string; detail: string };
			assert.equal(problem.code, "peer_key_unavailable");
			assert.doesNotMatch(problem.detail, /_svc|TXT|DNS did not|resolves|refused|timed out/);
			await onResp("PATCH", `/api/collections/records/records/${a.nameRecord}`, { value: "Ada L." });
			const t0 = Date.now();
			assert.deepEqual(await resp.app.background.drainOnce(t0), { delivered: 0, retrying: 1, failed: 0 });
			const [row] = await pendingEvents();
			assert.equal(row?.state, "pending");
			assert.equal(row?.last_status, 503);
			assert.match(row?.last_error ?? "", /peer_key_unavailable/);
			assert.equal(row?.next_attempt, t0 + 30_000);
			// Not due before its time.
			assert.deepEqual(await resp.app.background.drainOnce(t0 + 29_999), {
				delivered: 0,
				retrying: 0,
				failed: 0,
			});
		} finally {
			dns.txt.set(`_svc.${RESP}`, [respFingerprint]);
		}
		// Due now: the row's time is set back by the 30 s waited, so the batch is signed at the real
		// time (the receiver checks its age against its own clock).
		await resp.app.store.db.updateTable("peer_events").set({ next_attempt: Date.now() }).execute();
		assert.deepEqual(await drain(), { delivered: 1, retrying: 0, failed: 0 });
		await waitFor("grant.changed after the retry", () => callbacks(a.responseId, "grant.changed")[0]);
	});

	test("the sender's retry rules: 401 and 400 end the delivery, 429 and 5xx are retried", async () => {
		const a = await answered();
		// req.test's address pointed at a stand-in that answers what each step asks for.
		const standIn = await startReceiver();
		const overrides = resp.app.config.peerOverrides as Record<string, string>;
		const real = overrides[REQ] as string;
		overrides[REQ] = standIn.url;
		try {
			const answer = (status: number, code: string) => {
				standIn.respond = (_req, res) =>
					void res
						.writeHead(status, { "content-type": "application/problem+json" })
						.end(JSON.stringify({ code }));
			};
			const change = (value: string) =>
				onResp("PATCH", `/api/collections/records/records/${a.nameRecord}`, { value });
			for (const [status, code, outcome] of [
				[429, "rate_limited", "retrying"],
				[503, "peer_key_unavailable", "retrying"],
				[500, "internal", "retrying"],
				[401, "event_signature_invalid", "failed"],
				[400, "validation_failed", "failed"],
			] as const) {
				await resp.app.store.db.deleteFrom("peer_events").execute();
				answer(status, code);
				await change(`Ada ${status}`);
				const got = await drain();
				assert.equal(got[outcome], 1, `${status}: ${JSON.stringify(got)}`);
				const [row] = await resp.app.store.db.selectFrom("peer_events").selectAll().execute();
				assert.equal(row?.state, outcome === "retrying" ? "pending" : "failed", String(status));
				assert.equal(row?.last_status, status);
				assert.match(row?.last_error ?? "", new RegExp(code));
			}
			// What the stand-in got is a signed batch addressed to req.test, naming the grant.
			const sent = standIn.received.at(-1)?.json() as { payload: string; signature: string };
			const batch = JSON.parse(Buffer.from(sent.payload, "base64url").toString());
			assert.equal(batch.type, "grant-events-v1");
			assert.deepEqual([batch.sender, batch.audience], [RESP, REQ]);
			assert.equal(batch.exp - batch.iat, 300);
			assert.equal(batch.events[0].grant, a.grantId);
			assert.equal(batch.events[0].slug, a.request.slug);
			assert.equal(JSON.stringify(batch).includes("Ada"), false, "a batch never carries a value");
			assert.equal(
				crypto.verify(
					"sha256",
					Buffer.from(sent.payload),
					resp.app.rootKey.publicKey,
					Buffer.from(sent.signature, "hex"),
				),
				true,
			);
		} finally {
			overrides[REQ] = real;
			await resp.app.store.db.deleteFrom("peer_events").execute();
			await standIn.close();
		}
	});
});
