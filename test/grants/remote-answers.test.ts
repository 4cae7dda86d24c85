// Remote answers between two server processes: the requester's server (req.test) and the
// responder's (resp.test), each reaching the other through PEER_OVERRIDES, with their `_svc` TXT
// records served by a DNS server on loopback. An answer relayed and accepted; one refused with
// nothing left behind on the responder's side; a remote identity accepted under both identity
// scopes and a forged one refused; a requester that cannot be asked.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { createIdentity } from "../../src/features/identity/service.ts";
import { loadRootKey } from "../../src/features/server/root-key.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { type TestEnv, testEnv } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { deadPort } from "../helpers/receiver.ts";

const REQ = "req.test";
const RESP = "resp.test";

interface Side {
	env: TestEnv;
	store: Store;
	proc: ServerProcess;
	url: string;
	headers: Record<string, string>;
	accountId: string;
	workspaceId: string;
}

let dns: TestDns;
let req: Side;
let resp: Side;

async function startSide(domain: string, port: number, overrides: string, dnsServer: string): Promise<Side> {
	const env = testEnv();
	const proc = await startServer({
		DATABASE_URL: env.config.databaseUrl,
		DATABASE_SCHEMA: env.config.databaseSchema,
		DATA_DIR: env.config.dataDir,
		DOMAIN: domain,
		PORT: String(port),
		REDIS_URL: "",
		DNS_SERVERS: dnsServer,
		PEER_OVERRIDES: overrides,
		ALLOW_PRIVATE_CALLBACKS: "true",
		// Every listing reads again (with the etag): notModified is exercised, changes show at once.
		GRANT_MAX_AGE: "0",
	});
	const store = await openStore(env.config);
	const now = Date.now();
	const { accountId, workspaceId } = await createAccount(
		store.db,
		{ email: `owner@${domain}`, name: domain },
		now,
	);
	const { token } = await createSession(store.db, accountId, now);
	return {
		env,
		store,
		proc,
		url: proc.url,
		headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
		accountId,
		workspaceId,
	};
}

async function call(side: Side, method: string, path: string, body?: unknown, auth = true) {
	const res = await fetch(`${side.url}${path}`, {
		method,
		headers: auth ? side.headers : { "content-type": "application/json" },
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
	const text = await res.text();
	return { status: res.status, body: text, json: () => JSON.parse(text) };
}

function expectCode(res: { status: number; body: string }, status: number, code: string) {
	assert.equal(res.status, status, res.body);
	assert.equal(JSON.parse(res.body).code, code, res.body);
}

async function makeRequest(body: Record<string, unknown> = {}) {
	const res = await call(req, "POST", "/api/collections/requests/records", {
		label: "Tenant application",
		items: [
			{ key: "name", label: "Full name", type: "text", required: true },
			{ key: "email", label: "Email", type: "email", required: false },
		],
		...body,
	});
	assert.equal(res.status, 200, res.body);
	return res.json() as { id: string; slug: string };
}

async function counts(side: Side) {
	const n = async (table: "links" | "records" | "grant_tokens") =>
		Number(
			(
				await side.store.db
					.selectFrom(table)
					.select((eb) => eb.fn.countAll<number>().as("n"))
					.executeTakeFirstOrThrow()
			).n,
		);
	return { links: await n("links"), records: await n("records"), grants: await n("grant_tokens") };
}

before(async () => {
	dns = await startDns();
	const [reqPort, respPort] = [await deadPort(), await deadPort()];
	const overrides = `${REQ}=http://127.0.0.1:${reqPort},${RESP}=http://127.0.0.1:${respPort}`;
	[req, resp] = await Promise.all([
		startSide(REQ, reqPort, overrides, dns.server),
		startSide(RESP, respPort, overrides, dns.server),
	]);
	for (const side of [req, resp]) {
		const claim = (await call(side, "GET", "/api/server", undefined, false)).json();
		dns.txt.set(claim.txt.host, [claim.fingerprint]);
	}
});

after(async () => {
	for (const side of [req, resp]) {
		await side?.proc.stop();
		await side?.store.destroy();
		await side?.env.dispose();
	}
	await dns?.close();
});

describe("remote answers between two servers", () => {
	test("relayed and accepted: the requester keeps the grant's address, token and keys, never the values", async () => {
		const r = await makeRequest({ callbackUrl: "http://127.0.0.1:9/hook" });
		const res = await call(resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Ada Lovelace", email: "ada@example.org" },
			senderName: "Ada",
		});
		assert.equal(res.status, 200, res.body);
		const out = res.json();
		assert.equal(out.ok, true);
		assert.equal(out.server, REQ);
		const row = await req.store.db
			.selectFrom("request_answers")
			.selectAll()
			.where("id", "=", out.responseId)
			.executeTakeFirstOrThrow();
		assert.equal(row.server, RESP);
		assert.equal(row.grant_id, out.grantId);
		assert.deepEqual(JSON.parse(row.grant_keys ?? "[]"), ["name", "email"]);
		assert.equal(row.data, "{}");
		assert.equal(JSON.stringify(row).includes("Ada Lovelace"), false);
		// The submission callback carries the server and the values as read at submission.
		const delivery = await req.store.db
			.selectFrom("outbox")
			.select("payload")
			.where("request", "=", r.id)
			.executeTakeFirstOrThrow();
		const payload = JSON.parse(delivery.payload);
		assert.equal(payload.server, RESP);
		assert.deepEqual(payload.data, { name: "Ada Lovelace", email: "ada@example.org" });
		// On the responder's side: the answer is a share of its own vault, handed out as a grant.
		const grant = await resp.store.db
			.selectFrom("grant_tokens")
			.selectAll()
			.where("link", "=", out.grantId)
			.executeTakeFirstOrThrow();
		assert.equal(grant.peer, REQ);
	});

	test("refused by the requester's server (wrong password): its code passed on, nothing left behind", async () => {
		const r = await makeRequest({ password: "open sesame" });
		const before = await counts(resp);
		const res = await call(resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Bob" },
			password: "wrong",
		});
		expectCode(res, 401, "link_password_invalid");
		assert.deepEqual(await counts(resp), before);
		const ok = await call(resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Bob" },
			password: "open sesame",
		});
		assert.equal(ok.status, 200, ok.body);
	});

	test("values checked against the template on the requester's side: a bad email is refused, nothing kept", async () => {
		const r = await makeRequest();
		const before = await counts(resp);
		// Planned on the responder's side against the probed template first.
		expectCode(
			await call(resp, "POST", "/api/requests/remote", {
				server: REQ,
				slug: r.slug,
				values: { name: "C", email: "nope" },
			}),
			400,
			"validation_failed",
		);
		assert.deepEqual(await counts(resp), before);
	});

	for (const scope of ["any", "from_root"] as const) {
		test(`identityScope ${scope}: an identity issued by the relaying server is accepted; a forged one is refused`, async () => {
			const r = await makeRequest({ requireHandshake: true, identityScope: scope });
			const device = await deviceKey();
			const root = await loadRootKey(resp.store.db, RESP, systemClock);
			const identity = await createIdentity(
				resp.store.db,
				root,
				{ domain: RESP },
				{
					accountId: resp.accountId,
					workspaceId: resp.workspaceId,
					name: "Tess",
					publicKey: device.publicJwk,
				},
				Date.now(),
			);
			const nonce = async () =>
				(await call(req, "GET", `/api/challenges/request/${r.slug}`, undefined, false)).json()
					.nonce as string;
			const before = await counts(resp);
			expectCode(
				await call(resp, "POST", "/api/requests/remote", {
					server: REQ,
					slug: r.slug,
					values: { name: "T" },
				}),
				401,
				"challenge_required",
			);
			assert.deepEqual(await counts(resp), before);
			const n1 = await nonce();
			const ok = await call(resp, "POST", "/api/requests/remote", {
				server: REQ,
				slug: r.slug,
				values: { name: "T" },
				identityId: identity.id,
				challengeNonce: n1,
				challengeSignature: await device.sign(n1),
			});
			assert.equal(ok.status, 200, ok.body);
			const row = await req.store.db
				.selectFrom("request_answers")
				.select("identity")
				.where("id", "=", ok.json().responseId)
				.executeTakeFirstOrThrow();
			assert.equal(row.identity, device.fingerprint);

			// Forged: a certificate the relaying server never issued, sent straight to the requester.
			const other = await deviceKey();
			const n2 = await nonce();
			const forged = await call(
				req,
				"POST",
				`/api/public/requests/${r.slug}/remote`,
				{
					server: RESP,
					grant: { id: "x", token: "y" },
					identity: {
						fingerprint: other.fingerprint,
						certificate: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
						parentSignature: "00",
					},
					challengeNonce: n2,
					challengeSignature: await other.sign(n2),
				},
				false,
			);
			expectCode(forged, 403, "remote_identity_invalid");
		});
	}

	test("a requester's server that cannot be asked: 502 remote_unreachable, nothing written", async () => {
		const before = await counts(resp);
		expectCode(
			await call(resp, "POST", "/api/requests/remote", {
				server: "down.test",
				slug: "whatever",
				values: { name: "X" },
			}),
			502,
			"remote_unreachable",
		);
		assert.deepEqual(await counts(resp), before);
	});
	test("GET /api/requests/{id}/links: remote answers by bulk read (notModified too), a change shows, a down server is unreachable", async () => {
		const r = await makeRequest();
		const res = await call(resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Grace Hopper", email: "grace@example.org" },
		});
		assert.equal(res.status, 200, res.body);
		const list = async () => {
			const l = await call(req, "GET", `/api/requests/${r.id}/links`);
			assert.equal(l.status, 200, l.body);
			return l.json().items[0];
		};
		const first = await list();
		assert.equal(first.remote, true);
		assert.equal(first.server, RESP);
		assert.equal(first.status, "active");
		assert.equal(first.unreachable, undefined);
		assert.deepEqual(
			first.values.map((v: { key: string; value: string }) => [v.key, v.value]),
			[
				["name", "Grace Hopper"],
				["email", "grace@example.org"],
			],
		);
		// Read again with the kept etag: the other server answers notModified, the values stay.
		const again = await list();
		assert.deepEqual(again.values, first.values);
		// A change on the responder's side shows at the next read.
		const grant = await resp.store.db
			.selectFrom("grant_tokens")
			.select("keys")
			.where("link", "=", res.json().grantId)
			.executeTakeFirstOrThrow();
		const nameRecord = JSON.parse(grant.keys).name as string;
		const patched = await call(resp, "PATCH", `/api/collections/records/records/${nameRecord}`, {
			value: "Grace B. Hopper",
		});
		assert.equal(patched.status, 200, patched.body);
		assert.equal((await list()).values[0].value, "Grace B. Hopper");
		// Paused on the responder's side: status told, no values.
		const paused = await call(resp, "PATCH", `/api/collections/links/records/${res.json().grantId}`, {
			status: "paused",
		});
		assert.equal(paused.status, 200, paused.body);
		const p = await list();
		assert.equal(p.status, "paused");
		assert.deepEqual(p.values, []);
		await call(resp, "PATCH", `/api/collections/links/records/${res.json().grantId}`, { status: "active" });
		// Its server down: marked unreachable, no values.
		await resp.proc.stop();
		const down = await list();
		assert.equal(down.unreachable, true);
		assert.deepEqual(down.values, []);
	});
});
