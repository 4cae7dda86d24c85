import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { assertProblem, counts, PasskeyClient } from "../helpers/passkeys.ts";
import { FLAGS, pkce } from "../helpers/webauthn.ts";

const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 8)}@example.org`;

describe("passkey login", () => {
	let t: TestApp;
	const clock = new ManualClock(Date.UTC(2026, 0, 1));
	before(async () => {
		t = await makeApp({ allowSignups: true }, { clock });
	});
	after(() => t.close());

	async function member() {
		const c = new PasskeyClient(t.app);
		const signed = await c.signup(email("login"));
		return { c, ...signed };
	}

	test("sign-in: the code redeems for a session token that authenticates", async () => {
		const { c, record } = await member();
		const { verifier, challenge } = pkce();
		const begun = await c.loginBegin(challenge);
		assert.equal((begun.options as { userVerification?: string }).userVerification, "required");
		assert.equal((begun.options as { allowCredentials?: unknown[] }).allowCredentials, undefined);
		const finish = await c.post("/api/passkeys/login/finish", {
			session: begun.session,
			credential: c.authenticator.get(begun.options),
		});
		assert.equal(finish.statusCode, 200, finish.body);
		const { code } = finish.json();
		const token = await c.post("/api/passkeys/token", { code, verifier });
		assert.equal(token.statusCode, 200, token.body);
		const body = token.json();
		assert.deepEqual(Object.keys(body.record).sort(), ["created", "email", "id", "name", "updated"]);
		assert.equal(body.record.id, record.id);
		const me = await c.request("GET", "/api/auth/me", undefined, c.as(body.token));
		assert.equal(me.statusCode, 200);
		assert.equal(me.json().record.id, record.id);
		const pk = await t.app.store.db
			.selectFrom("passkeys")
			.selectAll()
			.where("account", "=", record.id)
			.executeTakeFirstOrThrow();
		assert.equal(pk.counter, 1);
		assert.equal(pk.last_used, clock.now());
	});

	test("the code, the ceremony handle and the session token are stored only as hashes", async () => {
		const { c } = await member();
		const { verifier, challenge } = pkce();
		const begun = await c.loginBegin(challenge);
		const ceremonies = await t.app.store.db.selectFrom("passkey_ceremonies").select("hash").execute();
		assert.ok(ceremonies.every((r) => r.hash !== begun.session && /^[0-9a-f]{64}$/.test(r.hash)));
		const { code } = (
			await c.post("/api/passkeys/login/finish", {
				session: begun.session,
				credential: c.authenticator.get(begun.options),
			})
		).json();
		const codes = await t.app.store.db.selectFrom("passkey_codes").select("hash").execute();
		assert.ok(codes.every((r) => r.hash !== code));
		const { token } = await c.redeem(code, verifier);
		const sessions = await t.app.store.db.selectFrom("sessions").select("token_hash").execute();
		assert.ok(sessions.every((r) => r.token_hash !== token));
	});

	test("wrong verifier: passkey_grant_invalid, and the code is spent", async () => {
		const { c } = await member();
		const { verifier, challenge } = pkce();
		const { code } = (await c.login(challenge)).json();
		const sessions = (await counts(t.app)).sessions;
		assertProblem(
			await c.post("/api/passkeys/token", { code, verifier: pkce().verifier }),
			400,
			"passkey_grant_invalid",
		);
		assertProblem(await c.post("/api/passkeys/token", { code, verifier }), 400, "passkey_grant_invalid");
		assert.equal((await counts(t.app)).sessions, sessions);
	});

	test("a verifier that is not RFC 7636 spends the code too", async () => {
		const { c } = await member();
		const { verifier, challenge } = pkce();
		const { code } = (await c.login(challenge)).json();
		assertProblem(
			await c.post("/api/passkeys/token", { code, verifier: "short" }),
			400,
			"passkey_grant_invalid",
		);
		assertProblem(await c.post("/api/passkeys/token", { code, verifier }), 400, "passkey_grant_invalid");
	});

	test("code replayed: the second redemption is refused", async () => {
		const { c } = await member();
		const { verifier, challenge } = pkce();
		const { code } = (await c.login(challenge)).json();
		assert.ok((await c.redeem(code, verifier)).token);
		assertProblem(await c.post("/api/passkeys/token", { code, verifier }), 400, "passkey_grant_invalid");
	});

	test("code redeemed concurrently: exactly one session", async () => {
		const { c } = await member();
		const { verifier, challenge } = pkce();
		const { code } = (await c.login(challenge)).json();
		const results = await Promise.all(
			[0, 1, 2, 3, 4].map(() => c.post("/api/passkeys/token", { code, verifier })),
		);
		assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 400, 400, 400, 400]);
	});

	test("code expiry: good at 2 min - 1 ms, refused at 2 min", async () => {
		const { c } = await member();
		const a = pkce();
		const b = pkce();
		const codeA = (await c.login(a.challenge)).json().code;
		const codeB = (await c.login(b.challenge)).json().code;
		clock.advance(2 * 60 * 1000 - 1);
		assert.ok((await c.redeem(codeA, a.verifier)).token);
		clock.advance(1);
		assertProblem(
			await c.post("/api/passkeys/token", { code: codeB, verifier: b.verifier }),
			400,
			"passkey_grant_invalid",
		);
	});

	test("unknown code and malformed token bodies are passkey_grant_invalid", async () => {
		const c = new PasskeyClient(t.app);
		for (const body of [
			{ code: "nope", verifier: pkce().verifier },
			{ code: "x" },
			{ code: 1, verifier: "y" },
			{},
		]) {
			assertProblem(await c.post("/api/passkeys/token", body), 400, "passkey_grant_invalid");
		}
	});

	test("ceremony replayed: the same assertion twice", async () => {
		const { c } = await member();
		const begun = await c.loginBegin(pkce().challenge);
		const credential = c.authenticator.get(begun.options);
		assert.equal(
			(await c.post("/api/passkeys/login/finish", { session: begun.session, credential })).statusCode,
			200,
		);
		assertProblem(
			await c.post("/api/passkeys/login/finish", { session: begun.session, credential }),
			400,
			"passkey_ceremony_invalid",
		);
	});

	test("ceremony answered once: a failed assertion spends it", async () => {
		const { c } = await member();
		const begun = await c.loginBegin(pkce().challenge);
		const bad = c.authenticator.get(begun.options, { badSignature: true });
		assertProblem(
			await c.post("/api/passkeys/login/finish", { session: begun.session, credential: bad }),
			401,
			"passkey_verification_failed",
		);
		const good = c.authenticator.get(begun.options);
		assertProblem(
			await c.post("/api/passkeys/login/finish", { session: begun.session, credential: good }),
			400,
			"passkey_ceremony_invalid",
		);
	});

	test("ceremony expiry: good at 5 min - 1 ms, refused at 5 min", async () => {
		const { c } = await member();
		const early = await c.loginBegin(pkce().challenge);
		const late = await c.loginBegin(pkce().challenge);
		clock.advance(5 * 60 * 1000 - 1);
		assert.equal(
			(
				await c.post("/api/passkeys/login/finish", {
					session: early.session,
					credential: c.authenticator.get(early.options),
				})
			).statusCode,
			200,
		);
		clock.advance(1);
		assertProblem(
			await c.post("/api/passkeys/login/finish", {
				session: late.session,
				credential: c.authenticator.get(late.options),
			}),
			400,
			"passkey_ceremony_invalid",
		);
	});

	test("a registration ceremony cannot finish a login", async () => {
		const { c } = await member();
		const reg = await c.registerBegin({ email: email("cross") });
		const credential = c.authenticator.get({ challenge: reg.options.challenge, rpId: "localhost" });
		assertProblem(
			await c.post("/api/passkeys/login/finish", { session: reg.session, credential }),
			400,
			"passkey_ceremony_invalid",
		);
	});

	test("verification failed (401): unknown passkey, bad signature, no user verification, wrong RP, wrong challenge, stale counter, foreign user handle", async () => {
		const { c } = await member();
		await c.signin(); // the stored counter is now 1
		const other = await member();
		const stranger = new PasskeyClient(t.app);
		stranger.authenticator.create({ challenge: "AA", rp: { id: "localhost" }, user: { id: "bm9ib2R5" } });
		const cases = [
			() => stranger.login(pkce().challenge),
			() => c.login(pkce().challenge, { badSignature: true }),
			() => c.login(pkce().challenge, { flags: FLAGS.UP }),
			() => c.login(pkce().challenge, { rpId: "evil.example" }),
			() => c.login(pkce().challenge, { challenge: "AAAA" }),
			() => c.login(pkce().challenge, { signCount: 1 }),
			() => c.login(pkce().challenge, { userHandle: Buffer.from(other.record.id).toString("base64url") }),
		];
		for (const run of cases) {
			const before = await counts(t.app);
			assertProblem(await run(), 401, "passkey_verification_failed");
			assert.deepEqual(await counts(t.app), before);
		}
	});

	test("wrong origin: loopback IP, another host or Origin, or an assertion made elsewhere", async () => {
		const { c } = await member();
		const { challenge } = pkce();
		assertProblem(
			await c.post(
				"/api/passkeys/login/begin",
				{ challenge },
				{ host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080" },
			),
			400,
			"passkey_origin_invalid",
		);
		assertProblem(
			await c.post("/api/passkeys/login/begin", { challenge }, { host: "[::1]:8080" }),
			400,
			"passkey_origin_invalid",
		);
		assertProblem(
			await c.post("/api/passkeys/login/begin", { challenge }, { origin: "http://localhost:9999" }),
			400,
			"passkey_origin_invalid",
		);
		assertProblem(
			await c.post("/api/passkeys/login/begin", { challenge }, { origin: "null" }),
			400,
			"passkey_origin_invalid",
		);
		const begun = await c.loginBegin(challenge);
		const credential = c.authenticator.get(begun.options);
		assertProblem(
			await c.post(
				"/api/passkeys/login/finish",
				{ session: begun.session, credential },
				{ host: "127.0.0.1:8080" },
			),
			400,
			"passkey_origin_invalid",
		);
		const elsewhere = c.authenticator.get(begun.options, { origin: "https://evil.example" });
		assertProblem(
			await c.post("/api/passkeys/login/finish", { session: begun.session, credential: elsewhere }),
			400,
			"passkey_origin_invalid",
		);
		// Neither refusal answered the ceremony.
		assert.equal(
			(
				await c.post("/api/passkeys/login/finish", {
					session: begun.session,
					credential: c.authenticator.get(begun.options),
				})
			).statusCode,
			200,
		);
	});

	test("malformed requests are passkey_request_invalid", async () => {
		const c = new PasskeyClient(t.app);
		const cases: [string, unknown][] = [
			["/api/passkeys/login/begin", {}],
			["/api/passkeys/login/begin", { challenge: "not-s256" }],
			["/api/passkeys/login/begin", { challenge: 42 }],
			["/api/passkeys/login/begin", { challenge: `${"a".repeat(42)}=` }],
			["/api/passkeys/login/finish", { session: "x", credential: {} }],
			["/api/passkeys/login/finish", { session: 1, credential: {} }],
			["/api/passkeys/login/finish", null],
		];
		for (const [url, body] of cases) assertProblem(await c.post(url, body), 400, "passkey_request_invalid");
		const { c: m } = await member();
		const begun = await m.loginBegin(pkce().challenge);
		const cred = m.authenticator.get(begun.options, { type: "webauthn.create" });
		assertProblem(
			await m.post("/api/passkeys/login/finish", { session: begun.session, credential: cred }),
			400,
			"passkey_request_invalid",
		);
	});

	test("login is rate-limited per IP", async () => {
		const c = new PasskeyClient(t.app);
		const { challenge } = pkce();
		let last = 0;
		for (let i = 0; i < 31; i++) last = (await c.post("/api/passkeys/login/begin", { challenge })).statusCode;
		assert.equal(last, 429);
		const res = await c.post("/api/passkeys/login/begin", { challenge });
		assertProblem(res, 429, "rate_limited");
		assert.ok(res.headers["retry-after"]);
		// Another client is not affected.
		assert.equal(
			(await new PasskeyClient(t.app).post("/api/passkeys/login/begin", { challenge })).statusCode,
			200,
		);
	});
});
