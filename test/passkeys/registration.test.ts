import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { assertProblem, counts, PasskeyClient } from "../helpers/passkeys.ts";
import { FLAGS, pkce } from "../helpers/webauthn.ts";

const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 8)}@example.org`;

describe("registration with sign-ups on", () => {
	let t: TestApp;
	const clock = new ManualClock(Date.UTC(2026, 0, 1));
	before(async () => {
		t = await makeApp({ allowSignups: true }, { clock });
	});
	after(() => t.close());

	test("a signup creates the account, its personal workspace and the passkey, and a working session", async () => {
		const c = new PasskeyClient(t.app);
		const addr = email("new");
		const { token, record } = await c.signup(addr, { name: "Ada Lovelace" });
		assert.equal(record.email, addr);
		const me = await c.request("GET", "/api/auth/me", undefined, c.as(token));
		assert.equal(me.statusCode, 200, me.body);
		const body = me.json();
		assert.equal(body.record.name, "Ada Lovelace");
		assert.equal(body.workspaces.length, 1);
		assert.equal(body.workspaces[0].personal, true);
		assert.equal(body.workspaces[0].role, "owner");
		assert.equal(body.workspace, body.workspaces[0].id);
		const passkeys = await t.app.store.db
			.selectFrom("passkeys")
			.selectAll()
			.where("account", "=", record.id)
			.execute();
		assert.equal(passkeys.length, 1);
		assert.equal(passkeys[0]?.credential_id, c.authenticator.credentials[0]?.id.toString("base64url"));
	});

	test("the creation options demand a discoverable credential with user verification", async () => {
		const c = new PasskeyClient(t.app);
		const { options } = (await c.registerBegin({ email: email("opts") })) as unknown as {
			options: Record<string, unknown> & {
				authenticatorSelection: Record<string, unknown>;
				rp: { id: string };
			};
		};
		assert.equal(options.authenticatorSelection.residentKey, "required");
		assert.equal(options.authenticatorSelection.requireResidentKey, true);
		assert.equal(options.authenticatorSelection.userVerification, "required");
		assert.equal(options.rp.id, "localhost");
		assert.equal(options.timeout, 5 * 60 * 1000);
	});

	test("without a challenge, finish writes the passkey and returns no code", async () => {
		const c = new PasskeyClient(t.app);
		const res = await c.register({ email: email("nocode") });
		assert.equal(res.statusCode, 200, res.body);
		assert.deepEqual(res.json(), {});
		const { token } = await c.signin();
		assert.ok(token);
	});

	test("nothing is written until registration finishes", async () => {
		const c = new PasskeyClient(t.app);
		const beforeBegin = await counts(t.app);
		const addr = email("pending");
		await c.registerBegin({ email: addr });
		assert.deepEqual(await counts(t.app), beforeBegin);
		const row = await t.app.store.db
			.selectFrom("accounts")
			.select("id")
			.where("email", "=", addr)
			.executeTakeFirst();
		assert.equal(row, undefined);
	});

	test("email invalid: missing, malformed or too long", async () => {
		const c = new PasskeyClient(t.app);
		for (const body of [
			{},
			{ email: "no-at-sign" },
			{ email: "a@b" },
			{ email: " @example.org" },
			{ email: `${"x".repeat(65)}@example.org` },
		]) {
			const res = await c.post("/api/passkeys/register/begin", body);
			assertProblem(res, 400, "passkey_email_invalid");
		}
	});

	test("email taken at begin, case-insensitively", async () => {
		const c = new PasskeyClient(t.app);
		const addr = email("taken");
		await c.signup(addr);
		const before = await counts(t.app);
		const res = await c.post("/api/passkeys/register/begin", { email: addr.toUpperCase() });
		assertProblem(res, 409, "passkey_email_taken");
		assert.deepEqual(await counts(t.app), before);
	});

	test("email taken at finish: two ceremonies for one email, the second finish is refused", async () => {
		const a = new PasskeyClient(t.app);
		const b = new PasskeyClient(t.app);
		const addr = email("race");
		const first = await a.registerBegin({ email: addr });
		const second = await b.registerBegin({ email: addr });
		const r1 = await a.post("/api/passkeys/register/finish", {
			session: first.session,
			credential: a.authenticator.create(first.options).response,
		});
		assert.equal(r1.statusCode, 200, r1.body);
		const before = await counts(t.app);
		const r2 = await b.post("/api/passkeys/register/finish", {
			session: second.session,
			credential: b.authenticator.create(second.options).response,
		});
		assertProblem(r2, 409, "passkey_email_taken");
		assert.deepEqual(await counts(t.app), before);
	});

	test("concurrent finishes for one email: exactly one account", async () => {
		const clients = [0, 1, 2, 3].map(() => new PasskeyClient(t.app));
		const addr = email("concurrent");
		const begun = await Promise.all(clients.map((c) => c.registerBegin({ email: addr })));
		const results = await Promise.all(
			clients.map((c, i) =>
				c.post("/api/passkeys/register/finish", {
					session: begun[i]?.session,
					credential: c.authenticator.create(begun[i]?.options as never).response,
				}),
			),
		);
		assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 409, 409, 409]);
		const rows = await t.app.store.db.selectFrom("accounts").select("id").where("email", "=", addr).execute();
		assert.equal(rows.length, 1);
	});

	test("ceremony replayed: a second finish with the same session is refused", async () => {
		const c = new PasskeyClient(t.app);
		const begun = await c.registerBegin({ email: email("replay") });
		const credential = c.authenticator.create(begun.options).response;
		const ok = await c.post("/api/passkeys/register/finish", { session: begun.session, credential });
		assert.equal(ok.statusCode, 200, ok.body);
		const again = await c.post("/api/passkeys/register/finish", { session: begun.session, credential });
		assertProblem(again, 400, "passkey_ceremony_invalid");
	});

	test("ceremony answered once even when the answer was wrong", async () => {
		const c = new PasskeyClient(t.app);
		const begun = await c.registerBegin({ email: email("wrong-then-right") });
		const bad = c.authenticator.create(begun.options, { flags: FLAGS.UP | FLAGS.AT }).response;
		assertProblem(
			await c.post("/api/passkeys/register/finish", { session: begun.session, credential: bad }),
			400,
			"passkey_verification_failed",
		);
		const good = c.authenticator.create(begun.options).response;
		assertProblem(
			await c.post("/api/passkeys/register/finish", { session: begun.session, credential: good }),
			400,
			"passkey_ceremony_invalid",
		);
	});

	test("ceremony expiry: good at 5 min - 1 ms, refused at 5 min", async () => {
		const c = new PasskeyClient(t.app);
		const early = await c.registerBegin({ email: email("exp-ok") });
		const late = await c.registerBegin({ email: email("exp-late") });
		clock.advance(5 * 60 * 1000 - 1);
		const ok = await c.post("/api/passkeys/register/finish", {
			session: early.session,
			credential: c.authenticator.create(early.options).response,
		});
		assert.equal(ok.statusCode, 200, ok.body);
		clock.advance(1);
		const res = await c.post("/api/passkeys/register/finish", {
			session: late.session,
			credential: c.authenticator.create(late.options).response,
		});
		assertProblem(res, 400, "passkey_ceremony_invalid");
	});

	test("an unknown session is passkey_ceremony_invalid; a login session is not a registration", async () => {
		const c = new PasskeyClient(t.app);
		const begun = await c.registerBegin({ email: email("unknown") });
		const credential = c.authenticator.create(begun.options).response;
		assertProblem(
			await c.post("/api/passkeys/register/finish", { session: "nope", credential }),
			400,
			"passkey_ceremony_invalid",
		);
		const login = await c.loginBegin(pkce().challenge);
		assertProblem(
			await c.post("/api/passkeys/register/finish", { session: login.session, credential }),
			400,
			"passkey_ceremony_invalid",
		);
	});

	test("verification failed (400 at registration): no user verification, wrong RP, wrong challenge", async () => {
		const c = new PasskeyClient(t.app);
		for (const overrides of [
			{ flags: FLAGS.UP | FLAGS.AT },
			{ rpId: "evil.example" },
			{ challenge: "AAAA" },
		]) {
			const before = await counts(t.app);
			const res = await c.register({ email: email("verify") }, overrides);
			assertProblem(res, 400, "passkey_verification_failed");
			assert.deepEqual(await counts(t.app), before);
		}
	});

	test("wrong origin: a loopback IP host, another Origin, or a credential made elsewhere", async () => {
		const c = new PasskeyClient(t.app);
		const body = { email: email("origin") };
		assertProblem(
			await c.post("/api/passkeys/register/begin", body, {
				host: "127.0.0.1:8080",
				origin: "http://127.0.0.1:8080",
			}),
			400,
			"passkey_origin_invalid",
		);
		assertProblem(
			await c.post("/api/passkeys/register/begin", body, { origin: "https://evil.example" }),
			400,
			"passkey_origin_invalid",
		);
		assertProblem(
			await c.post("/api/passkeys/register/begin", body, { host: "evil.example" }),
			400,
			"passkey_origin_invalid",
		);
		const begun = await c.registerBegin(body);
		const elsewhere = c.authenticator.create(begun.options, { origin: "http://127.0.0.1:8080" }).response;
		assertProblem(
			await c.post("/api/passkeys/register/finish", { session: begun.session, credential: elsewhere }),
			400,
			"passkey_origin_invalid",
		);
		// That refusal spent nothing: the same ceremony still finishes with a proper answer.
		const ok = await c.post("/api/passkeys/register/finish", {
			session: begun.session,
			credential: c.authenticator.create(begun.options).response,
		});
		assert.equal(ok.statusCode, 200, ok.body);
	});

	test("malformed requests are passkey_request_invalid and change nothing", async () => {
		const c = new PasskeyClient(t.app);
		const before = await counts(t.app);
		const cases: [string, unknown][] = [
			["/api/passkeys/register/begin", { email: 5 }],
			["/api/passkeys/register/begin", { email: email("x"), challenge: "short" }],
			["/api/passkeys/register/begin", { email: email("x"), name: "  " }],
			["/api/passkeys/register/begin", { email: email("x"), extra: true }],
			["/api/passkeys/register/begin", []],
			["/api/passkeys/register/finish", { session: "s" }],
			[
				"/api/passkeys/register/finish",
				{ session: "s", credential: { id: "a", rawId: "a", type: "other", response: {} } },
			],
			["/api/passkeys/register/finish", { session: "s", credential: "x" }],
		];
		for (const [url, body] of cases) assertProblem(await c.post(url, body), 400, "passkey_request_invalid");
		const raw = await t.app.inject({
			method: "POST",
			url: "/api/passkeys/register/begin",
			headers: { ...c.headers(), "content-type": "application/json" },
			payload: "{nope",
		});
		assertProblem(raw, 400, "passkey_request_invalid");
		const begun = await c.registerBegin({ email: email("garbage-client-data") });
		const cred = c.authenticator.create(begun.options).response;
		cred.response.clientDataJSON = "bm90LWpzb24";
		assertProblem(
			await c.post("/api/passkeys/register/finish", { session: begun.session, credential: cred }),
			400,
			"passkey_request_invalid",
		);
		assert.deepEqual(await counts(t.app), before);
	});

	test("a credential registered twice is refused", async () => {
		const c = new PasskeyClient(t.app);
		const begun1 = await c.registerBegin({ email: email("dup1") });
		const created = c.authenticator.create(begun1.options).response;
		assert.equal(
			(await c.post("/api/passkeys/register/finish", { session: begun1.session, credential: created }))
				.statusCode,
			200,
		);
		// Replaying the same attestation to a fresh ceremony fails its challenge check.
		const begun2 = await c.registerBegin({ email: email("dup2") });
		assertProblem(
			await c.post("/api/passkeys/register/finish", { session: begun2.session, credential: created }),
			400,
			"passkey_verification_failed",
		);
	});
});

describe("registration with sign-ups off", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp({ allowSignups: false });
	});
	after(() => t.close());

	test("signups_disabled without a ticket, whatever the email", async () => {
		const c = new PasskeyClient(t.app);
		for (const body of [{ email: email("off") }, {}, { email: "bad" }]) {
			assertProblem(await c.post("/api/passkeys/register/begin", body), 403, "signups_disabled");
		}
		assert.deepEqual(await counts(t.app), {
			accounts: 0,
			passkeys: 0,
			sessions: 0,
			workspaces: 0,
			members: 0,
			tickets: 0,
		});
	});
});
