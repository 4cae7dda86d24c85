// Remote answers between two server processes: the requester's server (req.test) and the
// responder's (resp.test), each reaching the other through PEER_OVERRIDES, with their `_svc` TXT
// records served by a DNS server on loopback (test/helpers/two-servers.ts). An answer relayed and
// accepted; one refused with nothing left behind on the responder's side; a remote identity
// accepted under both identity scopes (its fingerprint in the callback) and a forged one refused;
// a requester that cannot be asked; values by bulk read, with the etag sent back and `notModified`
// answered as seen on the wire. The requester's own checks: remote-answer-checks.test.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deviceKey } from "../helpers/device-key.ts";
import {
	buildIdentity,
	buildRequest,
	call,
	expectCode,
	REQ,
	RESP,
	type Side,
	useTwoServers,
} from "../helpers/two-servers.ts";

// Every listing reads again (with the etag): notModified is exercised, changes show at once.
const two = useTwoServers({ GRANT_MAX_AGE: "0" });
const makeRequest = (body: Record<string, unknown> = {}) => buildRequest(two.req, body);

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

/** The bulk reads req.test made of one grant on resp.test: the etag it sent and the item it got. */
function bulkReadsOf(grantId: string) {
	return two.reqToResp
		.filter((x) => x.path === "/api/grants/resolve" && x.status === 200)
		.flatMap((x) => {
			const asked = JSON.parse(x.body).grants as { id: string; etag?: string }[];
			const items = JSON.parse(x.answer).items as {
				id: string;
				etag?: string;
				notModified: boolean;
				values?: unknown[];
			}[];
			return asked.flatMap((a, i) => (a.id === grantId && items[i] ? [{ sent: a.etag, got: items[i] }] : []));
		});
}

describe("remote answers between two servers", () => {
	test("relayed and accepted: the requester keeps the grant's address, token and keys, never the values", async () => {
		const r = await makeRequest({ callbackUrl: "http://127.0.0.1:9/hook" });
		const res = await call(two.resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Ada Lovelace", email: "ada@example.org" },
			senderName: "Ada",
		});
		assert.equal(res.status, 200, res.body);
		const out = res.json();
		assert.equal(out.ok, true);
		assert.equal(out.server, REQ);
		const row = await two.req.store.db
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
		const delivery = await two.req.store.db
			.selectFrom("outbox")
			.select("payload")
			.where("request", "=", r.id)
			.executeTakeFirstOrThrow();
		const payload = JSON.parse(delivery.payload);
		assert.equal(payload.server, RESP);
		assert.deepEqual(payload.data, { name: "Ada Lovelace", email: "ada@example.org" });
		// On the responder's side: the answer is a share of its own vault, handed out as a grant.
		const grant = await two.resp.store.db
			.selectFrom("grant_tokens")
			.selectAll()
			.where("link", "=", out.grantId)
			.executeTakeFirstOrThrow();
		assert.equal(grant.peer, REQ);
	});

	test("refused by the requester's server (wrong password): its code passed on, nothing left behind", async () => {
		const r = await makeRequest({ password: "open sesame" });
		const before = await counts(two.resp);
		const res = await call(two.resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Bob" },
			password: "wrong",
		});
		expectCode(res, 401, "link_password_invalid");
		assert.deepEqual(await counts(two.resp), before);
		const ok = await call(two.resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Bob" },
			password: "open sesame",
		});
		assert.equal(ok.status, 200, ok.body);
	});

	test("values checked against the template on the requester's side: a bad email is refused, nothing kept", async () => {
		const r = await makeRequest();
		const before = await counts(two.resp);
		// Planned on the responder's side against the probed template first.
		expectCode(
			await call(two.resp, "POST", "/api/requests/remote", {
				server: REQ,
				slug: r.slug,
				values: { name: "C", email: "nope" },
			}),
			400,
			"validation_failed",
		);
		assert.deepEqual(await counts(two.resp), before);
	});

	for (const scope of ["any", "from_root"] as const) {
		test(`identityScope ${scope}: an identity issued by the relaying server is accepted; a forged one is refused`, async () => {
			const r = await makeRequest({
				requireHandshake: true,
				identityScope: scope,
				callbackUrl: "http://127.0.0.1:9/hook",
			});
			const { device, identity } = await buildIdentity(two.resp);
			const nonce = async () =>
				(await call(two.req, "GET", `/api/challenges/request/${r.slug}`, undefined, false)).json()
					.nonce as string;
			const before = await counts(two.resp);
			expectCode(
				await call(two.resp, "POST", "/api/requests/remote", {
					server: REQ,
					slug: r.slug,
					values: { name: "T" },
				}),
				401,
				"challenge_required",
			);
			assert.deepEqual(await counts(two.resp), before);
			const n1 = await nonce();
			const ok = await call(two.resp, "POST", "/api/requests/remote", {
				server: REQ,
				slug: r.slug,
				values: { name: "T" },
				identityId: identity.id,
				challengeNonce: n1,
				challengeSignature: await device.sign(n1),
			});
			assert.equal(ok.status, 200, ok.body);
			const row = await two.req.store.db
				.selectFrom("request_answers")
				.select("identity")
				.where("id", "=", ok.json().responseId)
				.executeTakeFirstOrThrow();
			assert.equal(row.identity, device.fingerprint);
			// The submission callback names an identity of another server by its fingerprint.
			const delivery = await two.req.store.db
				.selectFrom("outbox")
				.select("payload")
				.where("request", "=", r.id)
				.executeTakeFirstOrThrow();
			const payload = JSON.parse(delivery.payload);
			assert.deepEqual([payload.identity, payload.server], [device.fingerprint, RESP]);

			// Forged: a certificate the relaying server never issued, sent straight to the requester.
			const other = await deviceKey();
			const n2 = await nonce();
			const forged = await call(
				two.req,
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
		const before = await counts(two.resp);
		expectCode(
			await call(two.resp, "POST", "/api/requests/remote", {
				server: "down.test",
				slug: "whatever",
				values: { name: "X" },
			}),
			502,
			"remote_unreachable",
		);
		assert.deepEqual(await counts(two.resp), before);
	});

	test("an unauthenticated caller naming a relaying server that cannot be asked learns only that", async () => {
		const r = await makeRequest();
		const res = await call(
			two.req,
			"POST",
			`/api/public/requests/${r.slug}/remote`,
			{ server: "down.test", grant: { id: "g", token: "t", keys: ["name"] } },
			false,
		);
		expectCode(res, 502, "remote_unreachable");
		const { detail } = res.json() as { detail: string };
		assert.equal(detail, "The responder's server could not be reached");
	});
	test("GET /api/requests/{id}/links: remote answers by bulk read (notModified too), a change shows, a down server is unreachable", async () => {
		const r = await makeRequest();
		const res = await call(two.resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: r.slug,
			values: { name: "Grace Hopper", email: "grace@example.org" },
		});
		assert.equal(res.status, 200, res.body);
		const grantId = res.json().grantId as string;
		const readsBefore = bulkReadsOf(grantId).length;
		const list = async () => {
			const l = await call(two.req, "GET", `/api/requests/${r.id}/links`);
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
		const [read1, read2] = bulkReadsOf(grantId).slice(readsBefore);
		assert.equal(read1?.sent, undefined, "nothing kept yet: asked without an etag");
		assert.equal(read1?.got.notModified, false);
		assert.match(read1?.got.etag ?? "", /^W\/"/);
		assert.equal(read2?.sent, read1?.got.etag, "asked again with the etag it kept");
		assert.deepEqual(read2?.got, {
			id: grantId,
			status: "active",
			etag: read1?.got.etag,
			maxAge: 0,
			notModified: true,
		});
		// A change on the responder's side shows at the next read.
		const grant = await two.resp.store.db
			.selectFrom("grant_tokens")
			.select("keys")
			.where("link", "=", grantId)
			.executeTakeFirstOrThrow();
		const nameRecord = JSON.parse(grant.keys).name as string;
		const patched = await call(two.resp, "PATCH", `/api/collections/records/records/${nameRecord}`, {
			value: "Grace B. Hopper",
		});
		assert.equal(patched.status, 200, patched.body);
		assert.equal((await list()).values[0].value, "Grace B. Hopper");
		const read3 = bulkReadsOf(grantId).at(-1);
		assert.equal(read3?.sent, read1?.got.etag);
		assert.equal(read3?.got.notModified, false, "a changed value is a new etag: read in full");
		// Paused on the responder's side: status told, no values.
		const paused = await call(two.resp, "PATCH", `/api/collections/links/records/${grantId}`, {
			status: "paused",
		});
		assert.equal(paused.status, 200, paused.body);
		const p = await list();
		assert.equal(p.status, "paused");
		assert.deepEqual(p.values, []);
		await call(two.resp, "PATCH", `/api/collections/links/records/${grantId}`, { status: "active" });
		// Its server down: marked unreachable, no values.
		await two.resp.proc.stop();
		const down = await list();
		assert.equal(down.unreachable, true);
		assert.deepEqual(down.values, []);
	});
});
