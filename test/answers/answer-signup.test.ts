// Answer-only sign-ups (issue 39.1): a request may admit a passkey sign-up limited to answering it,
// off by default; the operator forbids them server-wide with ALLOW_ANSWER_SIGNUPS=false; begun at
// most RATELIMIT_ANSWER_SIGNUPS times per hour per IP; counted for the operator. The account made
// answers, keeps and revokes its answer, and does nothing else.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { answerSignupCounts } from "../../src/features/requests/service.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { pkce } from "../helpers/webauthn.ts";
import { assertCode, LINKS, nextIp } from "../shares/helpers.ts";

const REQUESTS = "/api/collections/requests/records";

async function makeRequest(t: TestApp, owner: TestAccount, body: Record<string, unknown> = {}) {
	const res = await t.app.inject({
		method: "POST",
		url: REQUESTS,
		headers: owner.headers,
		payload: {
			label: "Tenant application",
			items: [{ key: "full_name", label: "Full name", type: "text", required: true }],
			...body,
		},
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { id: string; slug: string; allowAnswerSignup: boolean };
}

async function probe(t: TestApp, slug: string) {
	const res = await t.app.inject({
		method: "GET",
		url: `/api/public/requests/${slug}`,
		remoteAddress: nextIp(),
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { answerSignup: boolean };
}

async function accountCount(t: TestApp): Promise<number> {
	const row = await t.app.store.db
		.selectFrom("accounts")
		.select((eb) => eb.fn.countAll<number | string>().as("n"))
		.executeTakeFirstOrThrow();
	return Number(row.n);
}

describe("a request that admits answer-only sign-ups (sign-ups off)", () => {
	let t: TestApp;
	let requester: TestAccount;
	before(async () => {
		t = await makeApp({ allowSignups: false, ratelimitAnswerSignups: 3 });
		requester = await buildAccount(t.app, { name: "Landlord" });
	});
	after(() => t.close());

	test("off by default: the probe says so and a sign-up for it is refused, nothing written", async () => {
		const req = await makeRequest(t, requester);
		assert.equal(req.allowAnswerSignup, false);
		assert.equal((await probe(t, req.slug)).answerSignup, false);
		const before = await accountCount(t);
		const client = new PasskeyClient(t.app);
		const res = await client.post("/api/passkeys/register/begin", {
			email: "tenant@example.org",
			request: req.slug,
			challenge: pkce().challenge,
		});
		assertCode(res, 403, "answer_signup_not_allowed");
		assert.equal(await accountCount(t), before);
		// Unknown slug: 404; and without `request` sign-ups stay off.
		assertCode(
			await client.post("/api/passkeys/register/begin", {
				email: "x@example.org",
				request: "nope-nope-nope",
			}),
			404,
			"not_found",
		);
		assertCode(
			await client.post("/api/passkeys/register/begin", { email: "x@example.org" }),
			403,
			"signups_disabled",
		);
	});

	test("allowed: the account is made answer-only, answers, revokes its answer, and can do nothing else", async () => {
		const req = await makeRequest(t, requester, { allowAnswerSignup: true });
		assert.equal((await probe(t, req.slug)).answerSignup, true);
		const client = new PasskeyClient(t.app);
		const { token } = await client.signup("tenant@example.org", { request: req.slug, name: "Tess" });
		const headers = { authorization: `Bearer ${token}` };
		const me = await t.app.inject({ method: "GET", url: "/api/auth/me", headers });
		assert.equal(me.statusCode, 200, me.body);
		assert.equal(me.json().answerOnly, true);
		assert.deepEqual([...me.json().scopes].sort(), [
			"link:read",
			"link:write",
			"notification:*",
			"record:*",
			"section:*",
		]);

		const answered = await t.app.inject({
			method: "POST",
			url: `/api/public/requests/${req.slug}`,
			remoteAddress: nextIp(),
			headers,
			payload: { values: { full_name: "Tess Tenant" } },
		});
		assert.equal(answered.statusCode, 200, answered.body);
		const { responseId } = answered.json();
		const listed = await t.app.inject({
			method: "GET",
			url: `/api/requests/${req.id}/links`,
			headers: requester.headers,
		});
		assert.equal(listed.json().items[0].values[0].value, "Tess Tenant");

		// Its own answer: paused and revoked like any share of its own.
		const revoked = await t.app.inject({
			method: "PATCH",
			url: `${LINKS}/${responseId}`,
			headers,
			payload: { status: "revoked" },
		});
		assert.equal(revoked.statusCode, 200, revoked.body);

		// Nothing beyond answering: no new share, API key, workspace, request or template.
		const refused: [string, string, Record<string, unknown>][] = [
			["POST", LINKS, { label: "mine", records: [] }],
			["POST", "/api/collections/apiKeys/records", { name: "k", permissions: ["links:read"] }],
			["POST", "/api/collections/workspaces/records", { name: "Mine" }],
			["POST", REQUESTS, { label: "x", items: [{ key: "a", label: "A", type: "text", required: false }] }],
			["POST", "/api/collections/templates/records", { name: "t", items: [] }],
		];
		for (const [method, url, payload] of refused) {
			const res = await t.app.inject({ method: method as "POST", url, headers, payload });
			assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
			assert.equal(res.json().code, "forbidden", url);
		}
		const workspaces = await t.app.store.db
			.selectFrom("members")
			.select("workspace")
			.where("account", "=", me.json().record.id)
			.execute();
		assert.equal(workspaces.length, 1, "only its personal workspace");

		// Counted for the operator.
		const counts = await answerSignupCounts(t.app.store.db, t.app.clock.now());
		const mine = counts.find((c) => c.request === req.id);
		assert.deepEqual(mine && { total: mine.total, lastDay: mine.lastDay, allowed: mine.allowed }, {
			total: 1,
			lastDay: 1,
			allowed: true,
		});
	});

	test("a request closed, or switched off between begin and finish, admits no sign-up", async () => {
		const closed = await makeRequest(t, requester, { allowAnswerSignup: true, status: "closed" });
		assert.equal((await probe(t, closed.slug)).answerSignup, false);
		const client = new PasskeyClient(t.app);
		assertCode(
			await client.post("/api/passkeys/register/begin", { email: "c@example.org", request: closed.slug }),
			403,
			"answer_signup_not_allowed",
		);

		const req = await makeRequest(t, requester, { allowAnswerSignup: true });
		const begun = await client.registerBegin({
			email: "late@example.org",
			request: req.slug,
			challenge: pkce().challenge,
		});
		const off = await t.app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${req.id}`,
			headers: requester.headers,
			payload: { allowAnswerSignup: false },
		});
		assert.equal(off.statusCode, 200, off.body);
		const before = await accountCount(t);
		const { response } = client.authenticator.create(begun.options);
		const finish = await client.post("/api/passkeys/register/finish", {
			session: begun.session,
			credential: response,
		});
		assertCode(finish, 403, "answer_signup_not_allowed");
		assert.equal(await accountCount(t), before, "no account made");
	});

	test("a request closed between begin and finish admits no sign-up and takes none of its cap", async () => {
		const req = await makeRequest(t, requester, { allowAnswerSignup: true });
		const client = new PasskeyClient(t.app);
		const begun = await client.registerBegin({
			email: "closed-meanwhile@example.org",
			request: req.slug,
			challenge: pkce().challenge,
		});
		const closed = await t.app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${req.id}`,
			headers: requester.headers,
			payload: { status: "closed" },
		});
		assert.equal(closed.statusCode, 200, closed.body);
		const before = await accountCount(t);
		const finish = await client.post("/api/passkeys/register/finish", {
			session: begun.session,
			credential: client.authenticator.create(begun.options).response,
		});
		assertCode(finish, 403, "answer_signup_not_allowed");
		assert.equal(await accountCount(t), before, "no account made");
		const record = await t.app.inject({
			method: "GET",
			url: `${REQUESTS}/${req.id}`,
			headers: requester.headers,
		});
		assert.equal(record.json().answerSignups, 0);
	});

	test("at most answerSignupLimit accounts per request (default 20): refused at begin and at finish, nothing written", async () => {
		const plain = await makeRequest(t, requester, { allowAnswerSignup: true });
		const record = await t.app.inject({
			method: "GET",
			url: `${REQUESTS}/${plain.id}`,
			headers: requester.headers,
		});
		assert.deepEqual(
			{ limit: record.json().answerSignupLimit, used: record.json().answerSignups },
			{ limit: 20, used: 0 },
		);
		for (const bad of [0, 1001, 2.5]) {
			const res = await t.app.inject({
				method: "PATCH",
				url: `${REQUESTS}/${plain.id}`,
				headers: requester.headers,
				payload: { answerSignupLimit: bad },
			});
			assertCode(res, 400, "validation_failed");
		}

		const req = await makeRequest(t, requester, { allowAnswerSignup: true, answerSignupLimit: 1 });
		// Two sign-ups begun while one is left; the first to finish takes it.
		const first = new PasskeyClient(t.app);
		const second = new PasskeyClient(t.app);
		const a = pkce();
		const begunA = await first.registerBegin({
			email: "cap1@example.org",
			request: req.slug,
			challenge: a.challenge,
		});
		const begunB = await second.registerBegin({
			email: "cap2@example.org",
			request: req.slug,
			challenge: pkce().challenge,
		});
		const finishA = await first.post("/api/passkeys/register/finish", {
			session: begunA.session,
			credential: first.authenticator.create(begunA.options).response,
		});
		assert.equal(finishA.statusCode, 200, finishA.body);
		const before = await accountCount(t);
		const finishB = await second.post("/api/passkeys/register/finish", {
			session: begunB.session,
			credential: second.authenticator.create(begunB.options).response,
		});
		assertCode(finishB, 403, "answer_signup_limit_reached");
		assert.equal(finishB.json().limit, 1);
		assert.equal(await accountCount(t), before, "no account made past the cap");
		// The probe and a new begin say so; the record counts it.
		const p = (
			await t.app.inject({ method: "GET", url: `/api/public/requests/${req.slug}`, remoteAddress: nextIp() })
		).json();
		assert.deepEqual(
			{ signup: p.answerSignup, usedUp: p.answerSignupsUsedUp },
			{ signup: false, usedUp: true },
		);
		assertCode(
			await new PasskeyClient(t.app).post("/api/passkeys/register/begin", {
				email: "cap3@example.org",
				request: req.slug,
			}),
			403,
			"answer_signup_limit_reached",
		);
		const counted = await t.app.inject({
			method: "GET",
			url: `${REQUESTS}/${req.id}`,
			headers: requester.headers,
		});
		assert.equal(counted.json().answerSignups, 1);
		// Raised by the requester: one more is admitted.
		const raised = await t.app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${req.id}`,
			headers: requester.headers,
			payload: { answerSignupLimit: 2 },
		});
		assert.equal(raised.statusCode, 200, raised.body);
		await new PasskeyClient(t.app).signup("cap4@example.org", { request: req.slug });
		const p2 = (
			await t.app.inject({ method: "GET", url: `/api/public/requests/${req.slug}`, remoteAddress: nextIp() })
		).json();
		assert.deepEqual(
			{ signup: p2.answerSignup, usedUp: p2.answerSignupsUsedUp },
			{ signup: false, usedUp: true },
		);
	});

	test("at most RATELIMIT_ANSWER_SIGNUPS begun per hour from one IP", async () => {
		const req = await makeRequest(t, requester, { allowAnswerSignup: true });
		const client = new PasskeyClient(t.app);
		for (let n = 1; n <= 3; n++) {
			const res = await client.post("/api/passkeys/register/begin", {
				email: `r${n}@example.org`,
				request: req.slug,
			});
			assert.equal(res.statusCode, 200, res.body);
		}
		const res = await client.post("/api/passkeys/register/begin", {
			email: "r4@example.org",
			request: req.slug,
		});
		assertCode(res, 429, "rate_limited");
		// Another client is not held back.
		const other = await new PasskeyClient(t.app).post("/api/passkeys/register/begin", {
			email: "r5@example.org",
			request: req.slug,
		});
		assert.equal(other.statusCode, 200, other.body);
	});
});

describe("the operator forbids answer-only sign-ups (ALLOW_ANSWER_SIGNUPS=false)", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp({ allowAnswerSignups: false });
	});
	after(() => t.close());

	test("a request allowing them admits none: the probe says no, a sign-up is signups_disabled", async () => {
		const requester = await buildAccount(t.app);
		const req = await makeRequest(t, requester, { allowAnswerSignup: true });
		assert.equal(req.allowAnswerSignup, true, "the requester's setting is kept");
		assert.equal((await probe(t, req.slug)).answerSignup, false);
		const before = await accountCount(t);
		const res = await new PasskeyClient(t.app).post("/api/passkeys/register/begin", {
			email: "t@example.org",
			request: req.slug,
		});
		assertCode(res, 403, "signups_disabled");
		assert.equal(await accountCount(t), before);
	});
});
