// POST /api/requests/callback-test: one sample payload through the callback client, sent at once;
// every outcome is a 200 with `ok`, `status`, `code` and `detail`.
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { after, before, beforeEach, describe, test } from "node:test";
import { assertProblem } from "../apikeys/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { deadPort, type Receiver, startReceiver } from "../helpers/receiver.ts";

const TEST = "/api/requests/callback-test";

let dns: TestDns;
let receiver: Receiver;
let other: Receiver;
let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const ok = (_req: unknown, res: ServerResponse) => void res.writeHead(200).end("ok");

before(async () => {
	dns = await startDns();
	dns.a.set("meta.test", ["169.254.169.254"]);
	receiver = await startReceiver();
	other = await startReceiver();
	// The spec's 10 s bound: a delivery to the receiver on loopback never races a short deadline on
	// a busy machine. Only the "never answers" case below runs on an app with a shortened one.
	t = await makeApp({ allowPrivateCallbacks: true, dnsServers: [dns.server] });
	a = await buildAccount(t.app);
	b = await buildAccount(t.app);
});
after(async () => {
	await t.close();
	await receiver.close();
	await other.close();
	await dns.close();
});
beforeEach(() => {
	receiver.received.length = 0;
	other.received.length = 0;
	receiver.respond = ok;
});

const UNREACHABLE = {
	ok: false,
	status: 0,
	code: "unreachable",
	detail: "unreachable: the receiver could not be reached",
};

/** An app whose log lines (warn and up) the test reads; `line` waits for the next one naming `text`. */
async function withLog(config: Parameters<typeof makeApp>[0], deps: Parameters<typeof makeApp>[1] = {}) {
	const lines: string[] = [];
	let waiting: { text: string; done: (line: string) => void } | undefined;
	let seen = 0;
	const take = () => {
		if (!waiting) return;
		for (; seen < lines.length; seen++) {
			const line = lines[seen] as string;
			if (line.includes(waiting.text)) {
				const { done } = waiting;
				waiting = undefined;
				seen++;
				return done(line);
			}
		}
	};
	const logStream = new Writable({
		write(chunk, _enc, done) {
			lines.push(...chunk.toString().split("\n").filter(Boolean));
			take();
			done();
		},
	});
	const app = await makeApp({ ...config, logLevel: "warn" }, { ...deps, logStream });
	return {
		...app,
		line: (text: string) =>
			new Promise<string>((resolve) => {
				waiting = { text, done: resolve };
				take();
			}),
	};
}

let ipCounter = 0;
/** Each call from its own client address, so the rate limit is tested on its own. */
const callTest = (body: unknown, headers: Record<string, string> = a.headers) =>
	t.app.inject({
		method: "POST",
		url: TEST,
		headers,
		payload: body as object,
		remoteAddress: `203.0.113.${(ipCounter++ % 250) + 1}`,
	});

async function makeRequest(owner: TestAccount) {
	const res = await t.app.inject({
		method: "POST",
		url: "/api/collections/requests/records",
		headers: owner.headers,
		payload: {
			label: "Sampled",
			items: [
				{ key: "full_name", label: "Name", type: "text", required: true },
				{ key: "mail", label: "Email", type: "email", required: false },
				{ key: "born", label: "Born", type: "date", required: false },
				{ key: "passport", label: "Passport", type: "file", required: false },
			],
		},
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { id: string; slug: string };
}

describe("callback-test: who may call", () => {
	test("no credential is 401; an API key, even with requests:write, is 403", async () => {
		assertProblem(await callTest({ url: receiver.url }, {}), 401, "not_authenticated");
		const key = buildApiKey(t.app, a, ["request:*"]);
		const refused = assertProblem(
			await callTest({ url: receiver.url }, key.headers),
			403,
			"api_key_scope_missing",
		);
		assert.equal(refused.scope, "request:write");
		// An API key sent as Bearer authenticates as nobody.
		assertProblem(
			await callTest({ url: receiver.url }, { authorization: `Bearer ${key.key}` }),
			401,
			"not_authenticated",
		);
		assert.equal(receiver.received.length, 0);
	});

	test("a malformed body is 400 and sends nothing", async () => {
		for (const body of [
			{},
			{ url: 5 },
			{ url: "" },
			{ url: receiver.url, extra: true },
			{ url: receiver.url, requestId: 7 },
		]) {
			assertProblem(await callTest(body), 400, "validation_failed");
		}
		assert.equal(receiver.received.length, 0);
	});
});

describe("callback-test: outcomes", () => {
	test("ok: the sample payload with test: true, no X-Svc-Request without a request", async () => {
		const res = await callTest({ url: `${receiver.url}/hook?k=1` });
		assert.equal(res.statusCode, 200, res.body);
		assert.deepEqual(res.json(), { ok: true, status: 200, code: "ok", detail: "answered 200" });
		assert.equal(receiver.received.length, 1);
		const got = receiver.received[0];
		assert.equal(got?.method, "POST");
		assert.equal(got?.path, "/hook?k=1");
		assert.equal(got?.headers["content-type"], "application/json");
		assert.equal(got?.headers["x-svc-request"], undefined);
		assert.deepEqual(got?.json(), {
			requestId: "test",
			slug: "test",
			responseId: "test",
			linkId: "test",
			identity: "",
			identifier: "",
			senderName: "Test delivery",
			data: { example: "Sample text" },
			test: true,
		});
	});

	test("with requestId: the real id and slug, the header, and a sample value per typed item", async () => {
		const r = await makeRequest(a);
		const res = await callTest({ url: receiver.url, requestId: r.id });
		assert.equal(res.json().ok, true);
		const got = receiver.received[0];
		assert.equal(got?.headers["x-svc-request"], r.id);
		const body = got?.json() ?? {};
		assert.equal(body.requestId, r.id);
		assert.equal(body.slug, r.slug);
		assert.equal(body.test, true);
		// A file is vault-linked, so a submission never carries it.
		assert.deepEqual(Object.keys(body.data as object).sort(), ["born", "full_name", "mail"]);
	});

	test("another workspace's request, or none by that id, is 404 and sends nothing", async () => {
		const theirs = await makeRequest(b);
		assertProblem(await callTest({ url: receiver.url, requestId: theirs.id }), 404, "not_found");
		assertProblem(await callTest({ url: receiver.url, requestId: "nope" }), 404, "not_found");
		assert.equal(receiver.received.length, 0);
	});

	test("status: a 500 answer is reported with its status", async () => {
		receiver.respond = (_req, res) => void res.writeHead(500).end();
		const res = await callTest({ url: receiver.url });
		assert.equal(res.statusCode, 200);
		assert.deepEqual(res.json(), { ok: false, status: 500, code: "status", detail: "answered 500" });
	});

	test("a 302 is reported, not followed", async () => {
		receiver.respond = (_req, res) => void res.writeHead(302, { location: `${other.url}/x` }).end();
		const res = await callTest({ url: receiver.url });
		assert.equal(res.json().status, 302);
		assert.equal(res.json().code, "ok");
		assert.match(res.json().detail, /redirects are not followed/);
		assert.equal(other.received.length, 0);
	});

	test("blocked: scheme, metadata address (literal or by name), whatever ALLOW_PRIVATE_CALLBACKS says", async () => {
		for (const url of [
			"ftp://example.org/x",
			"not a url",
			"http://169.254.169.254/latest/meta-data/",
			`http://meta.test:${receiver.port}/`,
			"http://[::ffff:169.254.169.254]/",
			"http://0.0.0.0/",
		]) {
			const res = await callTest({ url });
			assert.equal(res.statusCode, 200, url);
			const body = res.json();
			assert.equal(body.ok, false, url);
			assert.equal(body.code, "blocked", url);
			assert.equal(body.status, 0, url);
			assert.ok(body.detail.length > 0);
		}
	});

	test("unreachable: a closed port or a name that does not resolve fails at once, not at the bound", async () => {
		const logged = await withLog({ allowPrivateCallbacks: true, dnsServers: [dns.server] });
		try {
			const owner = await buildAccount(logged.app);
			for (const url of [`http://127.0.0.1:${await deadPort()}/`, "http://nowhere.test/"]) {
				const res = await logged.app.inject({
					method: "POST",
					url: TEST,
					headers: owner.headers,
					payload: { url },
				});
				// The caller learns only that it could not be reached: a refused port is not told
				// from a timeout or a missing name (no map of the ports behind an address).
				assert.deepEqual(res.json(), UNREACHABLE, url);
				// The log has the transport's own error, not the deadline: it did not wait out the 10 s.
				const line = await logged.line("callback test: receiver unreachable");
				assert.match(line, /unreachable: /, url);
				assert.doesNotMatch(line, /timed out/, url);
			}
		} finally {
			await logged.close();
		}
	});

	test("unreachable: a receiver that never answers is cut at the bound (injected: 500 ms)", async () => {
		receiver.respond = () => undefined;
		const quick = await withLog(
			{ allowPrivateCallbacks: true, dnsServers: [dns.server] },
			{ callbackTimeoutMs: 500 },
		);
		try {
			const owner = await buildAccount(quick.app);
			const res = await quick.app.inject({
				method: "POST",
				url: TEST,
				headers: owner.headers,
				payload: { url: `${receiver.url}/silent` },
			});
			assert.equal(res.statusCode, 200);
			assert.deepEqual(res.json(), UNREACHABLE);
			assert.match(
				await quick.line("callback test: receiver unreachable"),
				/timed out: no complete answer within 0\.5 s/,
			);
			assert.equal(receiver.received.length, 1, "the request did reach the receiver");
		} finally {
			await quick.close();
		}
	});

	test("nothing is queued: a test is sent directly", async () => {
		const rows = await t.app.store.db.selectFrom("outbox").select("id").execute();
		assert.equal(rows.length, 0);
	});

	test("rate-limited per client: 10 a minute", async () => {
		const ip = "198.51.100.77";
		const statuses: number[] = [];
		for (let i = 0; i < 11; i++) {
			const res = await t.app.inject({
				method: "POST",
				url: TEST,
				headers: a.headers,
				payload: { url: "ftp://example.org/" },
				remoteAddress: ip,
			});
			statuses.push(res.statusCode);
		}
		assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
	});
});

describe("callback-test: loopback without ALLOW_PRIVATE_CALLBACKS", () => {
	test("a loopback receiver is refused and never contacted", async () => {
		const strict = await makeApp({ allowPrivateCallbacks: false, dnsServers: [dns.server] });
		try {
			dns.a.set("loop.test", ["127.0.0.1"]);
			const owner = await buildAccount(strict.app);
			const before = await receiver.tcp();
			for (const url of [
				receiver.url,
				`http://loop.test:${receiver.port}/`,
				`http://localhost:${receiver.port}/`,
			]) {
				const res = await strict.app.inject({
					method: "POST",
					url: TEST,
					headers: owner.headers,
					payload: { url },
				});
				assert.equal(res.json().code, "blocked", url);
			}
			assert.equal((await receiver.tcp()).connections, before.connections, "no TCP connection was made");
			assert.equal(receiver.received.length, 0);
		} finally {
			await strict.close();
		}
	});
});
