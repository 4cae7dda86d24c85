import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { buildApp } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import { issueOperatorTicket } from "../../src/features/passkeys/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp, testEnv } from "../helpers/app.ts";
import { assertProblem, counts, PasskeyClient } from "../helpers/passkeys.ts";
import { entryArgs, REPO_ROOT } from "../helpers/root.ts";
import { pkce } from "../helpers/webauthn.ts";

const email = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 8)}@example.org`;
const ticketOf = (url: string) => new URL(url).searchParams.get("ticket") as string;

describe("tickets", () => {
	let t: TestApp;
	const clock = new ManualClock(Date.UTC(2026, 0, 1));
	before(async () => {
		// Sign-ups off: accounts exist only through operator tickets.
		t = await makeApp({ allowSignups: false }, { clock });
	});
	after(() => t.close());

	async function owner() {
		const c = new PasskeyClient(t.app);
		const addr = email("owner");
		const issued = await issueOperatorTicket(t.app.store.db, addr, clock.now());
		assert.equal(issued.kind, "signup");
		const { verifier, challenge } = pkce();
		const res = await c.register({ ticket: issued.ticket, challenge, name: "Owner" });
		assert.equal(res.statusCode, 200, res.body);
		return { c, ...(await c.redeem(res.json().code, verifier)) };
	}

	test("an operator signup ticket creates the account named by the ticket; email in the body is ignored", async () => {
		const c = new PasskeyClient(t.app);
		const addr = email("op");
		const issued = await issueOperatorTicket(t.app.store.db, addr, clock.now());
		const { verifier, challenge } = pkce();
		const res = await c.register({ ticket: issued.ticket, email: "someone-else@example.org", challenge });
		assert.equal(res.statusCode, 200, res.body);
		const { record } = await c.redeem(res.json().code, verifier);
		assert.equal(record.email, addr);
		const other = await t.app.store.db
			.selectFrom("accounts")
			.select("id")
			.where("email", "=", "someone-else@example.org")
			.executeTakeFirst();
		assert.equal(other, undefined);
	});

	test("an operator ticket for an existing account adds a passkey to it", async () => {
		const { record } = await owner();
		const issued = await issueOperatorTicket(t.app.store.db, record.email.toUpperCase(), clock.now());
		assert.equal(issued.kind, "add");
		const laptop = new PasskeyClient(t.app);
		const res = await laptop.register({ ticket: issued.ticket, name: "Laptop" });
		assert.equal(res.statusCode, 200, res.body);
		const rows = await t.app.store.db
			.selectFrom("passkeys")
			.select(["name"])
			.where("account", "=", record.id)
			.orderBy("created")
			.execute();
		assert.equal(rows.length, 2);
		assert.ok(rows.some((r) => r.name === "Laptop"));
		assert.equal((await laptop.signin()).record.id, record.id);
	});

	test("POST /api/passkeys/tickets: a signed-in user gets a one-time URL that adds a passkey", async () => {
		const { c, token, record } = await owner();
		const res = await c.post("/api/passkeys/tickets", undefined, c.as(token));
		assert.equal(res.statusCode, 200, res.body);
		const { url, expiresAt } = res.json();
		const parsed = new URL(url);
		assert.equal(parsed.origin, "http://localhost:8080");
		assert.equal(parsed.pathname, "/passkey");
		assert.equal(parsed.searchParams.get("mode"), "signup");
		assert.equal(Date.parse(expiresAt), clock.now() + 15 * 60 * 1000);
		const phone = new PasskeyClient(t.app);
		const { verifier, challenge } = pkce();
		const reg = await phone.register({ ticket: ticketOf(url), challenge });
		assert.equal(reg.statusCode, 200, reg.body);
		assert.equal((await phone.redeem(reg.json().code, verifier)).record.id, record.id);
		// The ticket is stored hashed.
		const stored = await t.app.store.db.selectFrom("passkey_tickets").select("hash").execute();
		assert.ok(stored.every((r) => r.hash !== ticketOf(url)));
	});

	test("ticket spent: a second registration with it is refused at begin and at finish", async () => {
		const { c, token } = await owner();
		const ticket = ticketOf((await c.post("/api/passkeys/tickets", undefined, c.as(token))).json().url);
		const a = new PasskeyClient(t.app);
		const b = new PasskeyClient(t.app);
		const begunA = await a.registerBegin({ ticket });
		const begunB = await b.registerBegin({ ticket });
		const finishA = await a.post("/api/passkeys/register/finish", {
			session: begunA.session,
			credential: a.authenticator.create(begunA.options).response,
		});
		assert.equal(finishA.statusCode, 200, finishA.body);
		const before = await counts(t.app);
		const finishB = await b.post("/api/passkeys/register/finish", {
			session: begunB.session,
			credential: b.authenticator.create(begunB.options).response,
		});
		assertProblem(finishB, 400, "passkey_ticket_invalid");
		assert.deepEqual(await counts(t.app), before);
		assertProblem(await b.post("/api/passkeys/register/begin", { ticket }), 400, "passkey_ticket_invalid");
	});

	test("ticket expiry: good at 15 min - 1 ms, refused at 15 min (begin and finish)", async () => {
		const { c, token } = await owner();
		const first = ticketOf((await c.post("/api/passkeys/tickets", undefined, c.as(token))).json().url);
		const second = ticketOf((await c.post("/api/passkeys/tickets", undefined, c.as(token))).json().url);
		const third = ticketOf((await c.post("/api/passkeys/tickets", undefined, c.as(token))).json().url);
		// A fresh device each time: an authenticator refuses to register twice for one account.
		const d = new PasskeyClient(t.app);
		const begunThird = await d.registerBegin({ ticket: third });
		clock.advance(15 * 60 * 1000 - 1);
		assert.equal((await new PasskeyClient(t.app).register({ ticket: first })).statusCode, 200);
		const begunSecond = await d.registerBegin({ ticket: second });
		clock.advance(1);
		assertProblem(
			await d.post("/api/passkeys/register/begin", { ticket: second }),
			400,
			"passkey_ticket_invalid",
		);
		// Begun in time, finished after the ticket lapsed.
		const late = await d.post("/api/passkeys/register/finish", {
			session: begunSecond.session,
			credential: d.authenticator.create(begunSecond.options).response,
		});
		assertProblem(late, 400, "passkey_ticket_invalid");
		// The ceremony begun 15 minutes ago has lapsed first.
		const older = await d.post("/api/passkeys/register/finish", {
			session: begunThird.session,
			credential: d.authenticator.create(begunThird.options).response,
		});
		assertProblem(older, 400, "passkey_ceremony_invalid");
	});

	test("an unknown ticket is passkey_ticket_invalid", async () => {
		const c = new PasskeyClient(t.app);
		assertProblem(
			await c.post("/api/passkeys/register/begin", { ticket: "made-up" }),
			400,
			"passkey_ticket_invalid",
		);
	});

	test("a signup ticket whose email got an account meanwhile: passkey_email_taken", async () => {
		const addr = email("twice");
		const one = await issueOperatorTicket(t.app.store.db, addr, clock.now());
		const two = await issueOperatorTicket(t.app.store.db, addr, clock.now());
		const c = new PasskeyClient(t.app);
		const begunTwo = await c.registerBegin({ ticket: two.ticket });
		assert.equal((await c.register({ ticket: one.ticket })).statusCode, 200);
		const before = await counts(t.app);
		const res = await c.post("/api/passkeys/register/finish", {
			session: begunTwo.session,
			credential: c.authenticator.create(begunTwo.options).response,
		});
		assertProblem(res, 409, "passkey_email_taken");
		assert.deepEqual(await counts(t.app), before, "the ticket is not spent by the refusal");
		assertProblem(
			await c.post("/api/passkeys/register/begin", { ticket: two.ticket }),
			409,
			"passkey_email_taken",
		);
	});

	test("tickets need a session: no credential, a stale token or an API key (either header) is 401", async () => {
		const { record } = await owner();
		const c = new PasskeyClient(t.app);
		// A live API key of this account, as the API-key feature resolves one.
		const key = "svc_key_for_ticket_test";
		t.app.authResolvers.apiKey = async (hash) =>
			hash === sha256Hex(key)
				? { kind: "apiKey", accountId: record.id, workspaceId: "w", scopes: ["link:*"], credentialId: "k" }
				: undefined;
		const before = (await counts(t.app)).tickets;
		assertProblem(await c.post("/api/passkeys/tickets"), 401, "not_authenticated");
		assertProblem(
			await c.post("/api/passkeys/tickets", undefined, c.as("not-a-session")),
			401,
			"not_authenticated",
		);
		assertProblem(
			await c.post("/api/passkeys/tickets", undefined, { "x-api-key": "$API_KEY" }),
			401,
			"not_authenticated",
		);
		assertProblem(
			await c.post("/api/passkeys/tickets", undefined, { "x-api-key": key }),
			401,
			"not_authenticated",
		);
		assertProblem(await c.post("/api/passkeys/tickets", undefined, c.as(key)), 401, "not_authenticated");
		assertProblem(
			await c.post("/api/passkeys/tickets", undefined, { "x-api-key": "svc_unknown" }),
			401,
			"invalid_api_key",
		);
		assert.equal((await counts(t.app)).tickets, before);
	});

	test("the add-passkey creation options exclude the account's passkeys", async () => {
		const { c, token } = await owner();
		const ticket = ticketOf((await c.post("/api/passkeys/tickets", undefined, c.as(token))).json().url);
		const begun = await c.registerBegin({ ticket });
		const excluded = (begun.options as unknown as { excludeCredentials: { id: string }[] })
			.excludeCredentials;
		assert.deepEqual(
			excluded.map((e) => e.id),
			c.authenticator.credentials.map((x) => x.id.toString("base64url")),
		);
	});
});

describe("svc admin ticket", () => {
	let config: Config;
	let dispose: () => Promise<void>;
	before(() => {
		const env = testEnv({ allowSignups: false });
		config = env.config;
		dispose = env.dispose;
	});
	after(() => dispose());

	function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
		const root = REPO_ROOT;
		const child = spawn(process.execPath, [...entryArgs("cli/svc.ts"), ...args], {
			cwd: root,
			env: {
				...process.env,
				DATA_DIR: config.dataDir,
				DATABASE_URL: config.databaseUrl,
				DATABASE_SCHEMA: config.databaseSchema,
				DOMAIN: config.domain,
				PORT: String(config.port),
				LOG_LEVEL: "silent",
			},
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
		});
		return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
	}

	test("prints a signup URL for a new email, then an add-passkey URL once the account exists", async () => {
		const addr = email("cli");
		const first = await cli("admin", "ticket", "--email", addr);
		assert.equal(first.code, 0, first.stderr);
		const url = first.stdout.trim();
		assert.match(url, /^http:\/\/localhost:8080\/passkey\?mode=signup&ticket=[A-Za-z0-9_-]{43}$/);
		assert.match(first.stderr, /creates the account/);

		const app = await buildApp(config);
		try {
			const c = new PasskeyClient(app);
			const page = await c.request("GET", new URL(url).pathname + new URL(url).search);
			assert.equal(page.statusCode, 200);
			assert.match(page.body, new RegExp(addr.replace(".", "\\.")));
			const { verifier, challenge } = pkce();
			const res = await c.register({ ticket: ticketOf(url), challenge });
			assert.equal(res.statusCode, 200, res.body);
			assert.equal((await c.redeem(res.json().code, verifier)).record.email, addr);

			const second = await cli("admin", "ticket", "--email", addr);
			assert.equal(second.code, 0, second.stderr);
			assert.match(second.stderr, /adds a passkey/);
			const phone = new PasskeyClient(app);
			assert.equal((await phone.register({ ticket: ticketOf(second.stdout.trim()) })).statusCode, 200);
			assert.equal((await counts(app)).passkeys, 2);
		} finally {
			await app.close();
		}
	});

	test("refuses a bad email and a missing flag", async () => {
		const bad = await cli("admin", "ticket", "--email", "not-an-email");
		assert.equal(bad.code, 1);
		assert.match(bad.stderr, /valid email/);
		const missing = await cli("admin", "ticket");
		assert.equal(missing.code, 2);
		assert.equal(missing.stdout, "");
	});
});
