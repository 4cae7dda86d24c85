// Answering a request on one server, end to end through HTTP: the gates, values checked against the
// template, the answer kept as a link in the responder's workspace (same responseId on a second
// answer), the submission callback and the grant events delivered to a real receiver on loopback,
// fan-out through aliases and sections, and what the request collected.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { type App, buildApp } from "../../src/app.ts";
import { createIdentity } from "../../src/features/identity/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { type TestEnv, testEnv } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import {
	assertCode,
	createSection,
	createValue,
	LINKS,
	nextIp,
	patchLink,
	RECORDS,
	uploadFile,
} from "../shares/helpers.ts";

const REQUESTS = "/api/collections/requests/records";

let receiver: Receiver;
let env: TestEnv;
let app: App;
let requester: TestAccount;
let responder: TestAccount;
const clock = new ManualClock(Date.parse("2030-03-01T08:00:00Z"));

before(async () => {
	receiver = await startReceiver();
	env = testEnv({ allowPrivateCallbacks: true });
	app = await buildApp(env.config, { clock, callbackTimeoutMs: 2000 });
	requester = await buildAccount(app, { name: "Landlord" });
	responder = await buildAccount(app, { name: "Tenant" });
});
after(async () => {
	await app.close();
	await env.dispose();
	await receiver.close();
});
beforeEach(() => {
	receiver.received.length = 0;
});

const drain = () => app.background.drainOnce(clock.now());

async function makeRequest(body: Record<string, unknown> = {}) {
	const res = await app.inject({
		method: "POST",
		url: REQUESTS,
		headers: requester.headers,
		payload: {
			label: "Tenant application",
			items: [
				{ key: "name", label: "Full name", type: "text", required: true },
				{ key: "email", label: "Email", type: "email", required: true },
				{ key: "iban", label: "IBAN", type: "text", required: false },
				{ key: "payslip", label: "Payslip", type: "file", required: false },
			],
			callbackUrl: `${receiver.url}/hook`,
			...body,
		},
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { id: string; slug: string };
}

function answer(
	slug: string,
	body: Record<string, unknown>,
	who: TestAccount | null = responder,
	headers = {},
) {
	return app.inject({
		method: "POST",
		url: `/api/public/requests/${slug}`,
		remoteAddress: nextIp(),
		headers: { ...(who?.headers ?? {}), ...headers },
		payload: body,
	});
}

async function collected(requestId: string, who = requester) {
	const res = await app.inject({
		method: "GET",
		url: `/api/requests/${requestId}/links`,
		headers: who.headers,
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as {
		totalItems: number;
		items: {
			responseId: string;
			status: string;
			slug: string;
			values: { key: string; value: string | null }[];
			[k: string]: unknown;
		}[];
	};
}

const events = () => receiver.received.filter((r) => "event" in r.json()).map((r) => r.json());
const submissions = () => receiver.received.filter((r) => !("event" in r.json())).map((r) => r.json());

describe("answering a request", () => {
	test("needs a session: no credential or an API key is request_account_required", async () => {
		const req = await makeRequest();
		assertCode(
			await answer(req.slug, { values: { name: "A", email: "a@b.c" } }, null),
			401,
			"request_account_required",
		);
		const key = buildApiKey(app, responder, ["request:*"]);
		assertCode(
			await answer(req.slug, { values: { name: "A", email: "a@b.c" } }, null, key.headers),
			401,
			"request_account_required",
		);
		assertCode(await answer("no-such-request", {}), 404, "not_found");
	});

	test("an answer becomes a link in the responder's workspace; answering again updates it", async () => {
		const req = await makeRequest();
		const salary = await uploadFile(
			app,
			responder,
			{ key: "payslip" },
			{ bytes: Buffer.from("%PDF-1.4\n"), name: "payslip.pdf" },
		);
		const iban = await createValue(app, responder, { key: "iban", value: "DE00 1111" });
		const first = await answer(req.slug, {
			values: { name: "Tess Tenant", email: "tess@example.org" },
			entries: { iban: iban.id, payslip: salary.id },
			senderName: "Tess",
			identityId: "claimed-without-proof",
		});
		assert.equal(first.statusCode, 200, first.body);
		const r1 = first.json();
		assert.equal(r1.ok, true);
		assert.equal(r1.updated, false);
		assert.equal(r1.responseId, r1.linkId);
		assert.equal(r1.identity, "");

		// The link is the responder's, granting minted records and the linked entries.
		const link = await app.inject({
			method: "GET",
			url: `${LINKS}/${r1.responseId}`,
			headers: responder.headers,
		});
		assert.equal(link.statusCode, 200, link.body);
		assert.equal(link.json().records.length, 4);
		assert.ok(link.json().records.includes(iban.id) && link.json().records.includes(salary.id));
		const minted = await app.inject({
			method: "GET",
			url: `${RECORDS}?filter=${encodeURIComponent('key = "email"')}`,
			headers: responder.headers,
		});
		assert.equal(minted.json().items[0].value, "tess@example.org");

		await drain();
		const [sub] = submissions();
		assert.deepEqual(sub, {
			requestId: req.id,
			slug: req.slug,
			responseId: r1.responseId,
			linkId: r1.responseId,
			identity: "",
			identifier: "",
			senderName: "Tess",
			data: { name: "Tess Tenant", email: "tess@example.org" },
		});
		assert.equal(receiver.received[0]?.headers["x-svc-request"], req.id);

		// What the request collected: current values while active.
		let got = await collected(req.id);
		assert.equal(got.totalItems, 1);
		assert.equal(got.items[0]?.status, "active");
		assert.deepEqual(
			got.items[0]?.values.map((v) => [v.key, v.value]),
			[
				["name", "Tess Tenant"],
				["email", "tess@example.org"],
				["iban", "DE00 1111"],
				["payslip", null],
			],
		);

		// Again, with other values: same responseId, updated, one link, a submission and grant.changed.
		receiver.received.length = 0;
		const second = await answer(req.slug, { values: { name: "Tess T.", email: "tess@example.org" } });
		assert.equal(second.statusCode, 200, second.body);
		assert.equal(second.json().responseId, r1.responseId);
		assert.equal(second.json().updated, true);
		const links = await app.inject({ method: "GET", url: LINKS, headers: responder.headers });
		assert.equal(links.json().items.filter((l: { id: string }) => l.id === r1.responseId).length, 1);
		await drain();
		assert.equal(submissions().length, 1);
		assert.deepEqual(submissions()[0]?.data, { name: "Tess T.", email: "tess@example.org" });
		assert.deepEqual(
			events().map((e) => [e.event, e.status, e.responseId]),
			[["grant.changed", "active", r1.responseId]],
		);
		got = await collected(req.id);
		assert.equal(got.totalItems, 1);
		assert.deepEqual(
			got.items[0]?.values.map((v) => v.key),
			["name", "email"],
		);
	});

	test("values are checked against the template and refusals change nothing", async () => {
		const req = await makeRequest();
		const other = await buildAccount(app);
		const theirs = await createValue(app, other, { key: "x", value: "not yours" });
		const text = await createValue(app, responder, { key: "t", value: "text" });
		const cases: [Record<string, unknown>, string][] = [
			[{ values: { name: "A" } }, "body.values.email"],
			[{ values: { name: "A", email: "not-an-email" } }, "body.values.email"],
			[{ values: { name: "  ", email: "a@b.c" } }, "body.values.name"],
			[{ values: { name: "A", email: "a@b.c", extra: "x" } }, "body.values.extra"],
			[{ values: { name: "A", email: "a@b.c", payslip: "typed" } }, "body.values.payslip"],
			[{ values: { name: "A", email: "a@b.c" }, entries: { iban: theirs.id } }, "body.entries.iban"],
			[{ values: { name: "A", email: "a@b.c" }, entries: { payslip: text.id } }, "body.entries.payslip"],
			[{ values: { name: "A", email: "a@b.c" }, entries: { name: text.id } }, "body.values.name"],
		];
		for (const [body, field] of cases) {
			const res = await answer(req.slug, body);
			assertCode(res, 400, "validation_failed");
			assert.equal(res.json().field, field, res.body);
		}
		assertCode(await answer(req.slug, { values: { name: 5 } }), 400, "validation_failed");
		assert.equal((await collected(req.id)).totalItems, 0);
		await drain();
		assert.equal(receiver.received.length, 0);
	});

	test("extra fields only when the request allows them; typed values by type", async () => {
		const req = await makeRequest({
			allowExtraFields: true,
			items: [
				{ key: "born", label: "Born", type: "date", required: true },
				{ key: "rooms", label: "Rooms", type: "number", required: true },
				{ key: "site", label: "Site", type: "url", required: true },
				{ key: "phone", label: "Phone", type: "phone", required: true },
			],
		});
		const bad: [string, string][] = [
			["born", "2001-02-30"],
			["rooms", "three"],
			["site", "javascript:alert(1)"],
			["phone", "call me"],
		];
		const good = { born: "2001-02-28", rooms: "3.5", site: "https://example.org", phone: "+49 30 123456" };
		for (const [key, value] of bad) {
			const res = await answer(req.slug, { values: { ...good, [key]: value } });
			assertCode(res, 400, "validation_failed");
			assert.equal(res.json().field, `body.values.${key}`);
		}
		const ok = await answer(req.slug, { values: { ...good, note: "an extra" } });
		assert.equal(ok.statusCode, 200, ok.body);
		await drain();
		assert.equal((submissions()[0]?.data as Record<string, string> | undefined)?.note, "an extra");
	});

	test("a template key named like an Object member (`constructor`) answers and updates like any other", async () => {
		// (`__proto__` is an allowed key too, but no JSON body can carry it: Fastify refuses such bodies.)
		const req = await makeRequest({
			items: ["constructor", "__proto__", "other"].map((key) => ({
				key,
				label: key,
				type: "text",
				required: false,
			})),
		});
		const entry = await createValue(app, responder, { key: "k", value: "from the vault" });
		const first = await answer(req.slug, { values: { constructor: "c1" } });
		assert.equal(first.statusCode, 200, first.body);
		const again = await answer(req.slug, { values: { constructor: "c2" }, entries: { other: entry.id } });
		assert.equal(again.statusCode, 200, again.body);
		assert.equal(again.json().responseId, first.json().responseId);
		assert.deepEqual(
			((await collected(req.id)).items[0]?.values ?? []).map((v) => [v.key, v.value]),
			[
				["constructor", "c2"],
				["other", "from the vault"],
			],
		);
		const viaEntry = await answer(req.slug, { entries: { constructor: entry.id } });
		assert.equal(viaEntry.statusCode, 200, viaEntry.body);
		assert.deepEqual(
			((await collected(req.id)).items[0]?.values ?? []).map((v) => [v.key, v.value]),
			[["constructor", "from the vault"]],
		);
		await drain();
	});

	test("gates: closed, expired, password, identifier", async () => {
		const closed = await makeRequest();
		await app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${closed.id}`,
			headers: requester.headers,
			payload: { status: "closed" },
		});
		assertCode(await answer(closed.slug, { values: { name: "A", email: "a@b.c" } }), 404, "request_closed");

		const soon = await makeRequest({ expiresAt: new Date(clock.now() + 60_000).toISOString() });
		clock.advance(60_000);
		assertCode(await answer(soon.slug, { values: { name: "A", email: "a@b.c" } }), 404, "request_expired");

		const gated = await makeRequest({ password: "letmein", requiresIdentifier: true });
		const body = { values: { name: "A", email: "a@b.c" } };
		assertCode(await answer(gated.slug, body), 401, "link_password_required");
		assertCode(await answer(gated.slug, { ...body, password: "nope" }), 401, "link_password_invalid");
		const noId = await answer(gated.slug, { ...body, password: "letmein" });
		assertCode(noId, 400, "validation_failed");
		assert.equal(noId.json().field, "body.identifier");
		const ok = await answer(gated.slug, { ...body, password: "letmein", identifier: "TENANT-42" });
		assert.equal(ok.statusCode, 200, ok.body);
		await drain();
		assert.equal(submissions()[0]?.identifier, "TENANT-42");
	});

	test("an identity is recorded only when its challenge verified", async () => {
		const device = await deviceKey();
		const identity = await createIdentity(
			app.store.db,
			app.rootKey,
			app.config,
			{
				accountId: responder.accountId,
				workspaceId: responder.workspaceId,
				name: "Tess",
				publicKey: device.publicJwk,
			},
			clock.now(),
		);
		const req = await makeRequest({ requireHandshake: true });
		const body = { values: { name: "A", email: "a@b.c" }, identityId: identity.id };
		assertCode(await answer(req.slug, body), 401, "challenge_required");
		const nonce = (
			await app.inject({ method: "GET", url: `/api/challenges/request/${req.slug}`, remoteAddress: nextIp() })
		).json().nonce as string;
		const ok = await answer(req.slug, {
			...body,
			challengeNonce: nonce,
			challengeSignature: await device.sign(nonce),
		});
		assert.equal(ok.statusCode, 200, ok.body);
		assert.equal(ok.json().identity, identity.id);
		await drain();
		assert.equal(submissions()[0]?.identity, identity.id);
		assertCode(
			await answer(req.slug, {
				...body,
				challengeNonce: nonce,
				challengeSignature: await device.sign(nonce),
			}),
			401,
			"challenge_invalid",
		);

		// Proven without being asked: recorded with the answer, but the payload's identity stays
		// empty because the request required no handshake.
		receiver.received.length = 0;
		const open = await makeRequest();
		const n2 = (
			await app.inject({
				method: "GET",
				url: `/api/challenges/request/${open.slug}`,
				remoteAddress: nextIp(),
			})
		).json().nonce as string;
		const volunteered = await answer(open.slug, {
			...body,
			challengeNonce: n2,
			challengeSignature: await device.sign(n2),
		});
		assert.equal(volunteered.statusCode, 200, volunteered.body);
		assert.equal(volunteered.json().identity, identity.id);
		await drain();
		assert.equal(submissions()[0]?.identity, "");
		assert.equal((await collected(open.id)).items[0]?.identity, identity.id);
	});
});

describe("grant events", () => {
	async function answered() {
		const req = await makeRequest({
			items: [
				{ key: "email", label: "Email", type: "email", required: true },
				{ key: "address", label: "Address", type: "address", required: false },
			],
		});
		return req;
	}

	test("pause, resume, revoke: changed, changed, revoked (and the requester is notified)", async () => {
		const req = await answered();
		const res = await answer(req.slug, { values: { email: "a@b.c" } });
		const id = res.json().responseId as string;
		await drain();
		receiver.received.length = 0;
		await patchLink(app, responder, id, { status: "paused" });
		clock.advance(1);
		await patchLink(app, responder, id, { status: "active" });
		clock.advance(1);
		await patchLink(app, responder, id, { status: "revoked" });
		await drain();
		const got = events();
		assert.deepEqual(
			got.map((e) => [e.event, e.status]),
			[
				["grant.changed", "paused"],
				["grant.changed", "active"],
				["grant.revoked", "revoked"],
			],
		);
		for (const e of got) {
			assert.deepEqual(Object.keys(e).sort(), [
				"at",
				"event",
				"linkId",
				"requestId",
				"responseId",
				"slug",
				"status",
			]);
			assert.equal(e.requestId, req.id);
			assert.equal(e.slug, req.slug);
			assert.equal(e.linkId, id);
		}
		assert.ok(!JSON.stringify(got).includes("a@b.c"), "events never carry a value");
		const note = await app.inject({
			method: "GET",
			url: `/api/collections/notifications/records?filter=${encodeURIComponent('kind = "answer_revoked"')}`,
			headers: requester.headers,
		});
		assert.ok(note.json().items.some((n: { data: { responseId: string } }) => n.data.responseId === id));
		const c = await collected(req.id);
		assert.equal(c.items[0]?.status, "revoked");
		assert.deepEqual(c.items[0]?.values, []);
	});

	test("a record change reaches every grant behind it, through an alias and a section", async () => {
		const req = await answered();
		const req2 = await answered();
		const req3 = await answered();
		const home = await createValue(app, responder, { key: "address", value: "Old Street 1" });
		const alias = await createValue(app, responder, { key: "address-copy", alias: home.id });
		const sec = await createSection(app, responder, `addr-${clock.now()}`);
		const inSection = await createValue(app, responder, { key: "billing", alias: home.id, section: sec.id });
		assert.ok(inSection);
		// Three answers: one names the record, one its alias; a third answer's link gets the section.
		const a1 = (await answer(req.slug, { values: { email: "a@b.c" }, entries: { address: home.id } })).json()
			.responseId;
		const a2 = (
			await answer(req2.slug, { values: { email: "a@b.c" }, entries: { address: alias.id } })
		).json().responseId;
		const a3 = (await answer(req3.slug, { values: { email: "a@b.c" } })).json().responseId;
		const p3 = await patchLink(app, responder, a3, { sections: [sec.id] });
		assert.equal(p3.statusCode, 200, p3.body);
		// A paused grant hears nothing of value changes.
		await drain();
		receiver.received.length = 0;

		clock.advance(10);
		await app.inject({
			method: "PATCH",
			url: `${RECORDS}/${home.id}`,
			headers: responder.headers,
			payload: { value: "New Street 2" },
		});
		await drain();
		const changed = events().filter((e) => e.event === "grant.changed");
		assert.deepEqual(changed.map((e) => e.responseId).sort(), [a1, a2, a3].sort());
		assert.ok(changed.every((e) => e.status === "active"));
		const c = await collected(req2.id);
		assert.equal(c.items[0]?.values.find((v) => v.key === "address")?.value, "New Street 2");
	});

	test("deleting an entry: changed, or revoked when it was the last one", async () => {
		const req = await answered();
		const req2 = await makeRequest({
			items: [{ key: "address", label: "Address", type: "address", required: true }],
		});
		const home = await createValue(app, responder, { key: "address", value: "Somewhere 3" });
		const a1 = (await answer(req.slug, { values: { email: "a@b.c" }, entries: { address: home.id } })).json()
			.responseId;
		const a2 = (await answer(req2.slug, { entries: { address: home.id } })).json().responseId;
		await drain();
		receiver.received.length = 0;
		const del = await app.inject({
			method: "DELETE",
			url: `${RECORDS}/${home.id}`,
			headers: responder.headers,
		});
		assert.equal(del.statusCode, 204, del.body);
		await drain();
		const got = Object.fromEntries(events().map((e) => [e.responseId, [e.event, e.status]]));
		assert.deepEqual(got[a1], ["grant.changed", "active"]);
		assert.deepEqual(got[a2], ["grant.revoked", "revoked"]);
		const link = await app.inject({ method: "GET", url: `${LINKS}/${a2}`, headers: responder.headers });
		assert.equal(link.json().status, "revoked");
	});

	test("an answer revoked by deleting its last entry goes through the transition table: the responder is notified too", async () => {
		const req2 = await makeRequest({
			items: [{ key: "address", label: "Address", type: "address", required: true }],
		});
		const home = await createValue(app, responder, { key: "address", value: "Elsewhere 4" });
		const id = (await answer(req2.slug, { entries: { address: home.id } })).json().responseId;
		const del = await app.inject({
			method: "DELETE",
			url: `${RECORDS}/${home.id}`,
			headers: responder.headers,
		});
		assert.equal(del.statusCode, 204, del.body);
		const notes = await app.inject({
			url: `/api/collections/notifications/records?filter=${encodeURIComponent('kind = "link_revoked"')}`,
			headers: responder.headers,
		});
		const mine = notes.json().items.filter((n: { data: { link: string } }) => n.data.link === id);
		assert.equal(mine.length, 1, notes.body);
		assert.equal(mine[0].data.by, "system");
		assert.match(mine[0].body, /last entry it granted was deleted/);
	});

	test("deleting the answer's link is grant.revoked; answering again starts a new grant under the same id", async () => {
		const req = await answered();
		const id = (await answer(req.slug, { values: { email: "a@b.c" } })).json().responseId;
		await drain();
		receiver.received.length = 0;
		assert.equal(
			(await app.inject({ method: "DELETE", url: `${LINKS}/${id}`, headers: responder.headers })).statusCode,
			204,
		);
		await drain();
		assert.deepEqual(
			events().map((e) => [e.event, e.responseId]),
			[["grant.revoked", id]],
		);
		assert.equal((await collected(req.id)).items[0]?.status, "revoked");
		receiver.received.length = 0;
		const again = await answer(req.slug, { values: { email: "a@b.c" } });
		assert.equal(again.json().responseId, id);
		assert.equal(again.json().updated, true);
		await drain();
		assert.deepEqual(
			events().map((e) => [e.event, e.status]),
			[["grant.changed", "active"]],
		);
		assert.equal((await collected(req.id)).items[0]?.status, "active");
	});

	test("an answer whose share expired (its view cap reached) is made again when answered again, never revived", async () => {
		const req = await answered();
		const id = (await answer(req.slug, { values: { email: "a@b.c" } })).json().responseId;
		const before = (
			await app.inject({ method: "GET", url: `${LINKS}/${id}`, headers: responder.headers })
		).json();
		await app.inject({ method: "POST", url: `/api/public/links/${before.slug}`, remoteAddress: nextIp() });
		assert.equal((await patchLink(app, responder, id, { maxViews: 1 })).json().status, "expired");
		await drain();
		assert.equal((await collected(req.id)).items[0]?.status, "expired");
		receiver.received.length = 0;

		const again = await answer(req.slug, { values: { email: "a@b.c" } });
		assert.equal(again.statusCode, 200, again.body);
		assert.equal(again.json().responseId, id);
		const after = (
			await app.inject({ method: "GET", url: `${LINKS}/${id}`, headers: responder.headers })
		).json();
		assert.equal(after.status, "active");
		assert.notEqual(after.slug, before.slug, "a share that expired is made again with a new address");
		assert.equal(after.viewCount, 0);
		const old = await app.inject({
			method: "POST",
			url: `/api/public/links/${before.slug}`,
			remoteAddress: nextIp(),
		});
		assert.equal(old.statusCode, 404);
		await drain();
		assert.deepEqual(
			events().map((e) => [e.event, e.status]),
			[["grant.changed", "active"]],
		);
		assert.equal((await collected(req.id)).items[0]?.status, "active");
	});

	test("expiry: by the view cap at the read, by time in the sweep", async () => {
		const req = await answered();
		const id = (await answer(req.slug, { values: { email: "a@b.c" } })).json().responseId;
		const slugRes = await app.inject({ method: "GET", url: `${LINKS}/${id}`, headers: responder.headers });
		await patchLink(app, responder, id, { maxViews: 1 });
		const read = await app.inject({
			method: "POST",
			url: `/api/public/links/${slugRes.json().slug}`,
			remoteAddress: nextIp(),
		});
		assert.equal(read.statusCode, 200, read.body);
		await drain();
		assert.deepEqual(
			events()
				.filter((e) => e.responseId === id)
				.map((e) => [e.event, e.status]),
			[["grant.expired", "expired"]],
		);

		receiver.received.length = 0;
		const req3 = await answered();
		const id3 = (await answer(req3.slug, { values: { email: "a@b.c" } })).json().responseId;
		const slug3 = (
			await app.inject({ method: "GET", url: `${LINKS}/${id3}`, headers: responder.headers })
		).json().slug;
		await app.inject({ method: "POST", url: `/api/public/links/${slug3}`, remoteAddress: nextIp() });
		await drain();
		receiver.received.length = 0;
		// A cap lowered to the views taken is reached at that change: announced without any read.
		assert.equal((await patchLink(app, responder, id3, { maxViews: 1 })).json().status, "expired");
		await drain();
		assert.deepEqual(
			events()
				.filter((e) => e.responseId === id3)
				.map((e) => [e.event, e.status]),
			[["grant.expired", "expired"]],
		);

		receiver.received.length = 0;
		const req2 = await answered();
		const id2 = (await answer(req2.slug, { values: { email: "a@b.c" } })).json().responseId;
		await patchLink(app, responder, id2, { expiresAt: new Date(clock.now() + 5000).toISOString() });
		clock.advance(5000);
		const { sweepExpiredAnswers } = await import("../../src/features/answers/grant-events.ts");
		assert.equal(await sweepExpiredAnswers(app.store.db, app.grantHooks, clock.now()), 1);
		assert.equal(await sweepExpiredAnswers(app.store.db, app.grantHooks, clock.now()), 0);
		await drain();
		assert.deepEqual(
			events()
				.filter((e) => e.responseId === id2)
				.map((e) => [e.event, e.status]),
			[["grant.expired", "expired"]],
		);
	});
});

describe("what a request collected", () => {
	test("only the request's own workspace reads it; keys need request:read", async () => {
		const req = await makeRequest();
		assert.equal(
			(await app.inject({ method: "GET", url: `/api/requests/${req.id}/links`, headers: responder.headers }))
				.statusCode,
			404,
		);
		assertCode(
			await app.inject({ method: "GET", url: `/api/requests/${req.id}/links` }),
			401,
			"not_authenticated",
		);
		const key = buildApiKey(app, requester, ["request:read"]);
		assert.equal(
			(await app.inject({ method: "GET", url: `/api/requests/${req.id}/links`, headers: key.headers }))
				.statusCode,
			200,
		);
		const noScope = buildApiKey(app, requester, ["link:read"]);
		assertCode(
			await app.inject({ method: "GET", url: `/api/requests/${req.id}/links`, headers: noScope.headers }),
			403,
			"api_key_scope_missing",
		);
	});

	// An answer kept on this server is listed as the `remoteAnswer` reader meets its share (docs/api.md
	// "What a request collected"): values and slug while the share is active, its status alone
	// otherwise, whether that status is stored (paused, revoked, expired by its view cap) or only
	// reached (past its expiry, not yet written by a read or the sweep). The listing is the
	// requester's read of the responder's values, so a share the responder took back must not leak
	// through it.
	const EMAIL = "tess.tenant@example.org";
	const states: [name: string, status: string, apply: (id: string, slug: string) => Promise<void>][] = [
		[
			"paused",
			"paused",
			async (id) => assert.equal((await patchLink(app, responder, id, { status: "paused" })).statusCode, 200),
		],
		[
			"revoked",
			"revoked",
			async (id) =>
				assert.equal((await patchLink(app, responder, id, { status: "revoked" })).statusCode, 200),
		],
		[
			"past its expiry (stored active: no read or sweep wrote it yet)",
			"expired",
			async (id) => {
				const at = new Date(clock.now() + 1000).toISOString();
				assert.equal((await patchLink(app, responder, id, { expiresAt: at })).statusCode, 200);
				clock.advance(1000);
				const row = await app.store.db
					.selectFrom("links")
					.select("status")
					.where("id", "=", id)
					.executeTakeFirstOrThrow();
				assert.equal(row.status, "active", "the expiry is reached, not yet written");
			},
		],
		[
			"expired by its view cap",
			"expired",
			async (id, slug) => {
				assert.equal((await patchLink(app, responder, id, { maxViews: 1 })).statusCode, 200);
				const read = await app.inject({
					method: "POST",
					url: `/api/public/links/${slug}`,
					remoteAddress: nextIp(),
				});
				assert.equal(read.statusCode, 200, read.body);
			},
		],
	];
	for (const [name, status, apply] of states) {
		test(`a local answer whose share is ${name}: listed ${status}, with no values and no slug`, async () => {
			const req = await makeRequest({
				items: [{ key: "email", label: "Email", type: "email", required: true }],
			});
			const id = (await answer(req.slug, { values: { email: EMAIL } })).json().responseId as string;
			const active = (await collected(req.id)).items[0];
			assert.equal(active?.status, "active");
			assert.deepEqual(
				active?.values.map((v) => [v.key, v.value]),
				[["email", EMAIL]],
				"an active answer lists its values",
			);
			assert.notEqual(active?.slug, "", "an active answer names its share");
			await apply(id, active?.slug ?? "");
			const listing = await collected(req.id);
			const item = listing.items[0];
			assert.deepEqual(
				{ status: item?.status, slug: item?.slug, values: item?.values },
				{ status, slug: "", values: [] },
				`an answer whose share is ${name} carries no values`,
			);
			assert.ok(!JSON.stringify(listing).includes(EMAIL), "the value appears nowhere in the listing");
		});
	}

	test("a local answer's share paused, then resumed: its values are listed again", async () => {
		const req = await makeRequest({
			items: [{ key: "email", label: "Email", type: "email", required: true }],
		});
		const id = (await answer(req.slug, { values: { email: EMAIL } })).json().responseId as string;
		await patchLink(app, responder, id, { status: "paused" });
		assert.deepEqual((await collected(req.id)).items[0]?.values, []);
		await patchLink(app, responder, id, { status: "active" });
		const item = (await collected(req.id)).items[0];
		assert.equal(item?.status, "active");
		assert.deepEqual(
			item?.values.map((v) => [v.key, v.value]),
			[["email", EMAIL]],
		);
		assert.notEqual(item?.slug, "");
	});
});
