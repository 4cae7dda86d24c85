// Connected tools end to end through the HTTP API (spec "Connections", the Connection states, the
// connection rows of "Limits" and "Errors"): authorize, redeem by code and by polling, the token,
// the tool's view of its shares, revoke, disconnect, renewal and lapse on a controlled clock.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { App } from "../../src/app.ts";
import { createSession } from "../../src/features/accounts/service.ts";
import { checkCode } from "../../src/lib/app-links.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { createSection, createValue, LINKS, RECORDS, uploadFile } from "../shares/helpers.ts";
import { asTool, authorize, connect, pkce, REDIRECT, TOOL } from "./helpers.ts";

const DAY = 24 * 60 * 60 * 1000;
const MIN = 60 * 1000;
const TOKEN = "/api/connect/token";
const CONNECTIONS = "/api/collections/connections/records";

let t: TestApp;
let app: App;
const clock = new ManualClock(Date.parse("2026-03-01T10:00:00Z"));

before(async () => {
	t = await makeApp({ ratelimitConnectRequests: 1000 }, { clock });
	app = t.app;
});
after(() => t.close());

async function owner(): Promise<TestAccount> {
	return buildAccount(app);
}

/** The same person signed in again now (sessions last 30 days; these tests move months). */
async function signedInAgain(who: TestAccount): Promise<TestAccount> {
	const { token } = await createSession(app.store.db, who.accountId, clock.now());
	return { ...who, token, headers: { authorization: `Bearer ${token}` } };
}

function redeem(body: Record<string, unknown>, origin?: string) {
	return app.inject({
		method: "POST",
		url: TOKEN,
		headers: origin ? { origin } : {},
		payload: body,
	});
}

function toolGet(token: string) {
	return app.inject({ method: "GET", url: "/api/connection", headers: asTool(token) });
}

async function proposedLink(who: TestAccount, connection: string, extra: Record<string, unknown> = {}) {
	const res = await app.inject({
		method: "POST",
		url: LINKS,
		headers: who.headers,
		payload: { label: "For the tool", connection, ...extra },
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { id: string; slug: string; handedOver: boolean; connection: string };
}

describe("the check code", () => {
	test("both ends derive it: upper-case hex of the first three bytes of SHA-256 of the challenge, XXX-XXX", async () => {
		const { challenge } = pkce();
		const hex = crypto.createHash("sha256").update(challenge, "utf8").digest("hex").slice(0, 6).toUpperCase();
		assert.equal(await checkCode(challenge), `${hex.slice(0, 3)}-${hex.slice(3)}`);
		// RFC 7636 appendix B's challenge, computed by hand with sha256sum: 3c5d7a…
		assert.equal(
			await checkCode("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
			independent("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
		);
	});
});

function independent(challenge: string): string {
	const bytes = crypto.createHash("sha256").update(Buffer.from(challenge, "ascii")).digest();
	const hex = [bytes[0], bytes[1], bytes[2]]
		.map((b) => (b as number).toString(16).padStart(2, "0"))
		.join("")
		.toUpperCase();
	return `${hex.slice(0, 3)}-${hex.slice(3, 6)}`;
}

describe("authorize: who may, and what it checks", () => {
	test("needs a session: none is 401, an API key is 401 (every workspace role holds link:write)", async () => {
		const who = await owner();
		const none = await app.inject({
			method: "POST",
			url: "/api/connections/authorize",
			payload: { clientId: TOOL, redirectUri: REDIRECT, challenge: pkce().challenge, clientName: "T" },
		});
		assert.equal(none.statusCode, 401);
		const key = buildApiKey(app, who);
		const viaKey = await app.inject({
			method: "POST",
			url: "/api/connections/authorize",
			headers: key.headers,
			payload: { clientId: TOOL, redirectUri: REDIRECT, challenge: pkce().challenge, clientName: "T" },
		});
		assert.equal(viaKey.statusCode, 401);
		assert.equal(viaKey.json().code, "not_authenticated");
	});

	for (const [name, clientId, code] of [
		["plain http on a public host", "http://tool.example", "connection_client_invalid"],
		["an origin with a path", "https://tool.example/app", "connection_client_invalid"],
		["upper case host", "https://Tool.example", "connection_client_invalid"],
		["the default port written out", "https://tool.example:443", "connection_client_invalid"],
		["not a URL", "tool.example", "connection_client_invalid"],
		["null", "null", "connection_client_invalid"],
	] as const) {
		test(`clientId: ${name} is 400 ${code} and changes nothing`, async () => {
			const who = await owner();
			const res = await authorize(app, who, { clientId, clientName: "T", challenge: pkce().challenge });
			assert.equal(res.statusCode, 400, res.body);
			assert.equal(res.json().code, code);
			const list = await app.inject({ method: "GET", url: CONNECTIONS, headers: who.headers });
			assert.equal(list.json().totalItems, 0);
		});
	}

	test("loopback http origins are tools in development (DOMAIN=localhost)", async () => {
		const who = await owner();
		for (const clientId of ["http://127.0.0.1:4555", "http://localhost:4556"]) {
			const res = await authorize(app, who, {
				clientId,
				redirectUri: `${clientId}/back`,
				clientName: "Local",
				challenge: pkce().challenge,
			});
			assert.equal(res.statusCode, 200, res.body);
		}
	});

	for (const [name, redirectUri] of [
		["on another origin", "https://evil.example/connected"],
		["on another port", "https://tool.example:8443/connected"],
		["with a fragment", `${REDIRECT}#x`],
		// An empty fragment is a fragment (RFC 6749 3.1.2), as OIDC's authorize refuses it too.
		["with an empty fragment (a trailing #)", `${REDIRECT}#`],
		["with credentials", "https://user:pw@tool.example/connected"],
		["relative", "/connected"],
	] as const) {
		test(`redirectUri ${name} is 400 connection_redirect_invalid`, async () => {
			const who = await owner();
			const res = await authorize(app, who, { redirectUri, clientName: "T", challenge: pkce().challenge });
			assert.equal(res.statusCode, 400, res.body);
			assert.equal(res.json().code, "connection_redirect_invalid");
		});
	}

	for (const challenge of ["short", "a".repeat(44), `${"a".repeat(42)}=`, `${"a".repeat(42)}+`]) {
		test(`challenge ${JSON.stringify(challenge.slice(-3))}… (${challenge.length}) is 400 connection_challenge_invalid`, async () => {
			const who = await owner();
			const res = await authorize(app, who, { clientName: "T", challenge });
			assert.equal(res.statusCode, 400, res.body);
			assert.equal(res.json().code, "connection_challenge_invalid");
		});
	}

	test("a new tool needs a name (1 to 40 characters, one line)", async () => {
		const who = await owner();
		for (const clientName of [undefined, "  ", "x".repeat(41), "two\nlines"]) {
			const res = await authorize(app, who, { clientName, challenge: pkce().challenge });
			assert.equal(res.statusCode, 400, `${clientName}: ${res.body}`);
			assert.equal(res.json().code, "validation_failed");
			assert.equal(res.json().field, "body.clientName");
		}
		const list = await app.inject({ method: "GET", url: CONNECTIONS, headers: who.headers });
		assert.equal(list.json().totalItems, 0, "a refused authorization leaves no connection");
	});

	test("malformed bodies are 400 and never 500", async () => {
		const who = await owner();
		for (const payload of [
			{},
			{ clientId: 5 },
			{ clientId: TOOL, redirectUri: REDIRECT, challenge: pkce().challenge, extra: 1 },
		]) {
			const res = await app.inject({
				method: "POST",
				url: "/api/connections/authorize",
				headers: who.headers,
				payload,
			});
			assert.equal(res.statusCode, 400, res.body);
		}
	});
});

describe("connect by code", () => {
	test("a new connection starts without permissions, lives 90 days, and the token reads it", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who);
		const res = await toolGet(token);
		assert.equal(res.statusCode, 200, res.body);
		assert.deepEqual(res.json(), {
			id: connectionId,
			clientId: TOOL,
			clientName: "Tool",
			expiresAt: new Date(clock.now() + 90 * DAY).toISOString(),
			allowRevoke: false,
			allowHandOver: false,
			links: [],
		});
		const stored = await app.store.db.selectFrom("connection_tokens").selectAll().execute();
		assert.ok(
			stored.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(r.token_hash)),
			"only hashes are kept",
		);
	});

	test("the token response carries the connection; shown once and not cached", async () => {
		const who = await owner();
		const pair = pkce();
		const res = await authorize(app, who, {
			clientName: "Tool",
			challenge: pair.challenge,
			allowRevoke: true,
		});
		const { code, connectionId } = res.json() as { code: string; connectionId: string };
		const token = await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT });
		assert.equal(token.statusCode, 200);
		assert.equal(token.headers["cache-control"], "no-store");
		assert.deepEqual(token.json().connection, {
			id: connectionId,
			clientName: "Tool",
			expiresAt: new Date(clock.now() + 90 * DAY).toISOString(),
			allowRevoke: true,
			allowHandOver: false,
		});
	});

	test("code replayed: spent on first presentation", async () => {
		const who = await owner();
		const pair = pkce();
		const { code } = (await authorize(app, who, { clientName: "T", challenge: pair.challenge })).json() as {
			code: string;
		};
		assert.equal((await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT })).statusCode, 200);
		const again = await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT });
		assert.equal(again.statusCode, 400);
		assert.equal(again.json().code, "connection_grant_invalid");
	});

	test("a wrong verifier spends the code (right or wrong)", async () => {
		const who = await owner();
		const pair = pkce();
		const { code } = (await authorize(app, who, { clientName: "T", challenge: pair.challenge })).json() as {
			code: string;
		};
		const wrong = await redeem({ code, verifier: pkce().verifier, redirectUri: REDIRECT });
		assert.equal(wrong.json().code, "connection_grant_invalid");
		const right = await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT });
		assert.equal(right.statusCode, 400);
		assert.equal(right.json().code, "connection_grant_invalid");
	});

	test("another redirectUri, or a browser on another origin, is refused and spends the code", async () => {
		const who = await owner();
		for (const attempt of [
			{ redirectUri: `${TOOL}/elsewhere` },
			{ redirectUri: REDIRECT, origin: "https://evil.example" },
		]) {
			const pair = pkce();
			const { code } = (await authorize(app, who, { clientName: "T", challenge: pair.challenge })).json() as {
				code: string;
			};
			const res = await redeem(
				{ code, verifier: pair.verifier, redirectUri: attempt.redirectUri },
				attempt.origin,
			);
			assert.equal(res.statusCode, 400);
			assert.equal(res.json().code, "connection_grant_invalid");
			assert.equal((await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT })).statusCode, 400);
		}
	});

	test("the tool's own Origin may redeem its code from a browser", async () => {
		const who = await owner();
		const pair = pkce();
		const { code } = (await authorize(app, who, { clientName: "T", challenge: pair.challenge })).json() as {
			code: string;
		};
		const res = await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT }, TOOL);
		assert.equal(res.statusCode, 200, res.body);
	});

	test("a code works for five minutes: at exp-1 yes, at exp no", async () => {
		const who = await owner();
		for (const [age, status] of [
			[5 * MIN - 1, 200],
			[5 * MIN, 400],
			[5 * MIN + 1, 400],
		] as const) {
			const pair = pkce();
			const { code } = (await authorize(app, who, { clientName: "T", challenge: pair.challenge })).json() as {
				code: string;
			};
			clock.advance(age);
			const res = await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT });
			clock.advance(-age);
			assert.equal(res.statusCode, status, `at ${age} ms: ${res.body}`);
		}
	});

	test("unknown codes and malformed bodies are 400 connection_grant_invalid or validation_failed, never 500", async () => {
		const unknown = await redeem({ code: "nope", verifier: pkce().verifier, redirectUri: REDIRECT });
		assert.equal(unknown.json().code, "connection_grant_invalid");
		for (const payload of [
			{},
			{ verifier: 5, redirectUri: REDIRECT },
			{ code: "", verifier: "x", redirectUri: REDIRECT },
		]) {
			const res = await redeem(payload);
			assert.equal(res.statusCode, 400, res.body);
		}
	});
});

describe("connect by polling", () => {
	test("202 until the owner answers, then the answer once, only to the tool's Origin", async () => {
		const who = await owner();
		const pair = pkce();
		// A poll asks with its verifier alone (spec "Connections"): no redirectUri.
		const body = { verifier: pair.verifier };
		const before = await redeem(body, TOOL);
		assert.equal(before.statusCode, 202);
		assert.deepEqual(before.json(), { pending: true });

		const res = await authorize(app, who, { clientName: "Poller", challenge: pair.challenge, poll: true });
		assert.equal(res.statusCode, 200, res.body);

		const noOrigin = await redeem(body);
		assert.equal(noOrigin.statusCode, 400);
		assert.equal(noOrigin.json().code, "connection_grant_invalid");
		const otherOrigin = await redeem(body, "https://evil.example");
		assert.equal(otherOrigin.statusCode, 400);
		assert.equal(otherOrigin.json().code, "connection_grant_invalid");

		const answer = await redeem(body, TOOL);
		assert.equal(answer.statusCode, 200, answer.body);
		assert.equal(answer.json().connection.clientName, "Poller");
		assert.equal((await toolGet(answer.json().token)).statusCode, 200);

		const again = await redeem(body, TOOL);
		assert.equal(again.statusCode, 202, "handed out once");
	});

	test("a polled answer is kept five minutes", async () => {
		const who = await owner();
		for (const [age, status] of [
			[5 * MIN - 1, 200],
			[5 * MIN, 202],
		] as const) {
			const pair = pkce();
			await authorize(app, who, { clientName: "P", challenge: pair.challenge, poll: true });
			clock.advance(age);
			const res = await redeem({ verifier: pair.verifier }, TOOL);
			clock.advance(-age);
			assert.equal(res.statusCode, status, `at ${age}: ${res.body}`);
		}
	});

	test("an answer issued as a code is never found by polling", async () => {
		const who = await owner();
		const pair = pkce();
		const { code } = (await authorize(app, who, { clientName: "T", challenge: pair.challenge })).json() as {
			code: string;
		};
		const polled = await redeem({ verifier: pair.verifier, redirectUri: REDIRECT }, TOOL);
		assert.equal(polled.statusCode, 202);
		assert.equal((await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT })).statusCode, 200);
	});

	test("the code of a polled answer redeems the same answer: whichever comes first spends it", async () => {
		const who = await owner();
		const pair = pkce();
		const { code } = (
			await authorize(app, who, { clientName: "T", challenge: pair.challenge, poll: true })
		).json() as {
			code: string;
		};
		assert.equal((await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT })).statusCode, 200);
		assert.equal((await redeem({ verifier: pair.verifier, redirectUri: REDIRECT }, TOOL)).statusCode, 202);
	});

	test("a poll giving a redirectUri must give the authorized one", async () => {
		const who = await owner();
		const pair = pkce();
		await authorize(app, who, { clientName: "P", challenge: pair.challenge, poll: true });
		const wrong = await redeem({ verifier: pair.verifier, redirectUri: `${REDIRECT}/other` }, TOOL);
		assert.equal(wrong.statusCode, 400, wrong.body);
		assert.equal(wrong.json().code, "connection_grant_invalid");
		const right = pkce();
		await authorize(app, who, { clientName: "P", challenge: right.challenge, poll: true });
		const ok = await redeem({ verifier: right.verifier, redirectUri: REDIRECT }, TOOL);
		assert.equal(ok.statusCode, 200, ok.body);
	});

	test("a code without redirectUri is spent and refused with connection_grant_invalid", async () => {
		const who = await owner();
		const pair = pkce();
		const { code } = (await authorize(app, who, { clientName: "T", challenge: pair.challenge })).json() as {
			code: string;
		};
		const bare = await redeem({ code, verifier: pair.verifier });
		assert.equal(bare.statusCode, 400, bare.body);
		assert.equal(bare.json().code, "connection_grant_invalid");
		const again = await redeem({ code, verifier: pair.verifier, redirectUri: REDIRECT });
		assert.equal(again.json().code, "connection_grant_invalid", "the code was spent");
	});

	test("a malformed verifier is 400 connection_grant_invalid", async () => {
		const res = await redeem({ verifier: "short", redirectUri: REDIRECT }, TOOL);
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().code, "connection_grant_invalid");
	});
});

describe("renewal, reuse and lapse", () => {
	test("authorizing again renews for 90 days; permissions left out are kept, given ones change", async () => {
		const who = await owner();
		const first = await connect(app, who, { allowRevoke: true, allowHandOver: true });
		clock.advance(30 * DAY);
		const later = await signedInAgain(who);
		const again = await connect(app, later, { clientName: "Tool v2" });
		assert.equal(again.connectionId, first.connectionId, "one connection per origin");
		const seen = (await toolGet(first.token)).json();
		assert.equal(seen.expiresAt, new Date(clock.now() + 90 * DAY).toISOString());
		assert.equal(seen.allowRevoke, true);
		assert.equal(seen.allowHandOver, true);
		assert.equal(seen.clientName, "Tool v2");
		await connect(app, later, { allowRevoke: false });
		const changed = (await toolGet(first.token)).json();
		assert.equal(changed.allowRevoke, false);
		assert.equal(changed.allowHandOver, true);
		clock.advance(-30 * DAY);
	});

	test("reuse: 409 without a connection; with one, a code only, and nothing else changes", async () => {
		const who = await owner();
		const none = await authorize(app, who, { challenge: pkce().challenge, reuse: true });
		assert.equal(none.statusCode, 409);
		assert.equal(none.json().code, "connection_not_connected");

		const first = await connect(app, who, { allowRevoke: true });
		const before = (await toolGet(first.token)).json();
		clock.advance(10 * DAY);
		const reused = await connect(app, who, {
			reuse: true,
			clientName: "Renamed?",
			allowRevoke: false,
			allowHandOver: true,
		});
		assert.equal(reused.connectionId, first.connectionId);
		const after = (await toolGet(reused.token)).json();
		assert.equal(after.expiresAt, before.expiresAt, "expiry unchanged");
		assert.equal(after.clientName, "Tool");
		assert.equal(after.allowRevoke, true);
		assert.equal(after.allowHandOver, false);
		clock.advance(-10 * DAY);
	});

	test("lapse at 90 days: the token answers connection_expired; reuse is refused; connecting again deletes the old tokens", async () => {
		const who = await owner();
		const first = await connect(app, who, { allowRevoke: true });
		clock.advance(90 * DAY - 1);
		assert.equal((await toolGet(first.token)).statusCode, 200, "at exp-1");
		clock.advance(1);
		const lapsed = await toolGet(first.token);
		assert.equal(lapsed.statusCode, 401, "at exp");
		assert.equal(lapsed.json().code, "connection_expired");
		clock.advance(1);
		assert.equal((await toolGet(first.token)).json().code, "connection_expired", "at exp+1");
		const revoke = await app.inject({
			method: "POST",
			url: "/api/connection/links/x/revoke",
			headers: asTool(first.token),
		});
		assert.equal(revoke.json().code, "connection_expired");

		const later = await signedInAgain(who);
		const list = (await app.inject({ method: "GET", url: CONNECTIONS, headers: later.headers })).json();
		assert.equal(list.items[0].state, "lapsed");

		const reuse = await authorize(app, later, { challenge: pkce().challenge, reuse: true });
		assert.equal(reuse.json().code, "connection_not_connected");

		const back = await connect(app, later);
		assert.equal(back.connectionId, first.connectionId);
		const old = await toolGet(first.token);
		assert.equal(old.statusCode, 401);
		assert.equal(old.json().code, "connection_unauthorized", "the lapsed token is deleted, not revived");
		const fresh = (await toolGet(back.token)).json();
		assert.equal(fresh.expiresAt, new Date(clock.now() + 90 * DAY).toISOString());
		assert.equal(fresh.allowRevoke, true, "permissions kept");
		clock.advance(-(90 * DAY + 1));
	});

	test("tokens: missing, empty or unknown is connection_unauthorized", async () => {
		for (const headers of [{}, { "x-svc-connection": "" }, { "x-svc-connection": "nope" }]) {
			const res = await app.inject({ method: "GET", url: "/api/connection", headers });
			assert.equal(res.statusCode, 401);
			assert.equal(res.json().code, "connection_unauthorized");
		}
		const who = await owner();
		const bearer = await app.inject({ method: "GET", url: "/api/connection", headers: who.headers });
		assert.equal(bearer.json().code, "connection_unauthorized", "a session is not a connection");
	});

	test("a connection token opens no collection", async () => {
		const who = await owner();
		const { token } = await connect(app, who);
		const res = await app.inject({ method: "GET", url: LINKS, headers: asTool(token) });
		assert.equal(res.statusCode, 401);
	});
});

describe("shares made for a tool", () => {
	test("links: newest first; url only on a handed-over active share while allowHandOver is set", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who, { allowHandOver: true });
		await createValue(app, who, { key: "email", value: "a@example.org" });
		const kept = await proposedLink(who, connectionId, { ref: "r1" });
		clock.advance(1000);
		const handed = await proposedLink(who, connectionId, { handedOver: true, ref: "r2" });
		clock.advance(1000);
		assert.equal(handed.handedOver, true);
		assert.equal(handed.connection, connectionId);
		const seen = (await toolGet(token)).json();
		assert.deepEqual(
			seen.links.map((l: { id: string }) => l.id),
			[handed.id, kept.id],
		);
		assert.equal(seen.links[0].url, `http://localhost:${app.config.port}/s/${handed.slug}`);
		assert.equal(seen.links[0].ref, "r2");
		assert.equal(seen.links[1].url, undefined, "not handed over");
		assert.deepEqual(Object.keys(seen.links[1]).sort(), [
			"created",
			"expiresAt",
			"handedOver",
			"id",
			"label",
			"maxViews",
			"ref",
			"status",
			"viewCount",
		]);

		await app.inject({
			method: "PATCH",
			url: `${LINKS}/${handed.id}`,
			headers: who.headers,
			payload: { status: "paused" },
		});
		assert.equal((await toolGet(token)).json().links[0].url, undefined, "paused: no address");
		await app.inject({
			method: "PATCH",
			url: `${LINKS}/${handed.id}`,
			headers: who.headers,
			payload: { status: "active" },
		});
		assert.ok((await toolGet(token)).json().links[0].url);

		const perm = await app.inject({
			method: "POST",
			url: `/api/connections/${connectionId}/permissions`,
			headers: who.headers,
			payload: { allowHandOver: false },
		});
		assert.deepEqual(perm.json(), { allowRevoke: false, allowHandOver: false });
		assert.equal((await toolGet(token)).json().links[0].url, undefined, "hand-over withdrawn");
		clock.advance(-2000);
	});

	test("handedOver needs the connection's allowHandOver, and never carries a hidden record or a file", async () => {
		const who = await owner();
		const { connectionId } = await connect(app, who);
		const plain = await createValue(app, who, { key: "name", value: "Ann" });
		const denied = await app.inject({
			method: "POST",
			url: LINKS,
			headers: who.headers,
			payload: { connection: connectionId, handedOver: true, records: [plain.id] },
		});
		assert.equal(denied.statusCode, 403);
		assert.equal(denied.json().code, "link_hand_over_not_allowed");

		await connect(app, who, { allowHandOver: true });
		const hidden = await createValue(app, who, { key: "iban", value: "DE00", hidden: true });
		const file = await uploadFile(
			app,
			who,
			{ key: "passport" },
			{ bytes: Buffer.from("%PDF-1.4\n"), name: "p.pdf" },
		);
		for (const records of [[plain.id, hidden.id], [file.id]]) {
			const res = await app.inject({
				method: "POST",
				url: LINKS,
				headers: who.headers,
				payload: { connection: connectionId, handedOver: true, records },
			});
			assert.equal(res.statusCode, 403, res.body);
			assert.equal(res.json().code, "link_hand_over_not_allowed");
		}
		const all = (await app.inject({ method: "GET", url: LINKS, headers: who.headers })).json();
		assert.equal(all.totalItems, 0, "a refused create leaves nothing");

		const ok = await proposedLink(who, connectionId, { handedOver: true, records: [plain.id] });
		const patch = await app.inject({
			method: "PATCH",
			url: `${LINKS}/${ok.id}`,
			headers: who.headers,
			payload: { records: [plain.id, hidden.id] },
		});
		assert.equal(
			patch.json().code,
			"link_hand_over_not_allowed",
			"a handed-over share cannot come to hold one",
		);
	});

	test("a handed-over share that later comes to hold a hidden record or a file loses its address while it does", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who, { allowHandOver: true });
		const section = await createSection(app, who, "contact");
		const email = await createValue(app, who, { key: "email", value: "a@example.org", section: section.id });
		const phone = await createValue(app, who, { key: "phone", value: "+49 30 1" });
		const bySection = await proposedLink(who, connectionId, { handedOver: true, sections: [section.id] });
		const byRecord = await proposedLink(who, connectionId, { handedOver: true, records: [phone.id] });
		const urls = async () => {
			const links = (await toolGet(token)).json().links as { id: string; url?: string }[];
			return Object.fromEntries(links.map((l) => [l.id, l.url ?? null]));
		};
		const both = await urls();
		assert.ok(both[bySection.id] && both[byRecord.id], "both handed over with their address");

		// The owner hides a record the share names: its address is withheld, the other stays.
		const hide = await app.inject({
			method: "PATCH",
			url: `${RECORDS}/${phone.id}`,
			headers: who.headers,
			payload: { hidden: true },
		});
		assert.equal(hide.statusCode, 200, hide.body);
		assert.deepEqual(await urls(), { [bySection.id]: both[bySection.id], [byRecord.id]: null });

		// A file lands in the granted section: that share's address is withheld too.
		const file = await uploadFile(
			app,
			who,
			{ key: "passport", section: section.id },
			{ bytes: Buffer.from("%PDF-1.4\n"), name: "p.pdf" },
		);
		assert.deepEqual(await urls(), { [bySection.id]: null, [byRecord.id]: null });

		// Undone, both come back: the share itself never changed.
		await app.inject({ method: "DELETE", url: `${RECORDS}/${file.id}`, headers: who.headers });
		await app.inject({
			method: "PATCH",
			url: `${RECORDS}/${phone.id}`,
			headers: who.headers,
			payload: { hidden: false },
		});
		assert.deepEqual(await urls(), both);
		assert.ok(email.id);
	});

	test("a handed-over share naming a section that holds a file is refused at create", async () => {
		const who = await owner();
		const { connectionId } = await connect(app, who, { allowHandOver: true });
		const section = await createSection(app, who, "papers");
		await uploadFile(
			app,
			who,
			{ key: "passport", section: section.id },
			{ bytes: Buffer.from("x"), name: "p.txt" },
		);
		const res = await app.inject({
			method: "POST",
			url: LINKS,
			headers: who.headers,
			payload: { connection: connectionId, handedOver: true, sections: [section.id] },
		});
		assert.equal(res.statusCode, 403, res.body);
		assert.equal(res.json().code, "link_hand_over_not_allowed");
	});

	test("handedOver without connection, another workspace's connection, a lapsed one; connection is create-only", async () => {
		const who = await owner();
		const other = await owner();
		const { connectionId: theirs } = await connect(app, other);
		const noConn = await app.inject({
			method: "POST",
			url: LINKS,
			headers: who.headers,
			payload: { handedOver: true },
		});
		assert.equal(noConn.statusCode, 400);
		assert.equal(noConn.json().field, "body.handedOver");
		const foreign = await app.inject({
			method: "POST",
			url: LINKS,
			headers: who.headers,
			payload: { connection: theirs },
		});
		assert.equal(foreign.statusCode, 400);
		assert.equal(foreign.json().field, "body.connection");

		const { connectionId } = await connect(app, who);
		const link = await proposedLink(who, connectionId);
		const patch = await app.inject({
			method: "PATCH",
			url: `${LINKS}/${link.id}`,
			headers: who.headers,
			payload: { connection: connectionId },
		});
		assert.equal(patch.statusCode, 400);

		clock.advance(90 * DAY);
		const later = await signedInAgain(who);
		const lapsed = await app.inject({
			method: "POST",
			url: LINKS,
			headers: later.headers,
			payload: { connection: connectionId },
		});
		assert.equal(lapsed.statusCode, 409);
		assert.equal(lapsed.json().code, "connection_not_connected");
		clock.advance(-90 * DAY);

		const filtered = await app.inject({
			method: "GET",
			url: `${LINKS}?filter=${encodeURIComponent(`connection='${connectionId}'`)}`,
			headers: who.headers,
		});
		assert.deepEqual(
			filtered.json().items.map((l: { id: string }) => l.id),
			[link.id],
		);
	});
});

describe("the tool revokes", () => {
	test("without allowRevoke: 403 connection_revoke_not_allowed, and the share stays", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who);
		const link = await proposedLink(who, connectionId);
		const res = await app.inject({
			method: "POST",
			url: `/api/connection/links/${link.id}/revoke`,
			headers: asTool(token),
		});
		assert.equal(res.statusCode, 403);
		assert.equal(res.json().code, "connection_revoke_not_allowed");
		const seen = (
			await app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: who.headers })
		).json();
		assert.equal(seen.status, "active");
	});

	test("with allowRevoke: revoked, again succeeds, another's share is 404, and the owner is told which tool", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who, { allowRevoke: true, allowHandOver: true });
		const link = await proposedLink(who, connectionId, { handedOver: true });
		const own = await app.inject({
			method: "POST",
			url: LINKS,
			headers: who.headers,
			payload: { label: "mine" },
		});

		const res = await app.inject({
			method: "POST",
			url: `/api/connection/links/${link.id}/revoke`,
			headers: asTool(token),
		});
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().status, "revoked");
		assert.equal(res.json().url, undefined);
		const again = await app.inject({
			method: "POST",
			url: `/api/connection/links/${link.id}/revoke`,
			headers: asTool(token),
		});
		assert.equal(again.statusCode, 200);
		assert.equal(again.json().status, "revoked");

		for (const id of [own.json().id, "nope", "x".repeat(64)]) {
			const miss = await app.inject({
				method: "POST",
				url: `/api/connection/links/${id}/revoke`,
				headers: asTool(token),
			});
			assert.equal(miss.statusCode, 404);
			assert.equal(miss.json().code, "link_not_found");
		}

		const probe = await app.inject({ method: "GET", url: `/api/public/links/${link.slug}` });
		assert.equal(probe.json().status, "revoked");
		const notes = (
			await app.inject({ method: "GET", url: "/api/collections/notifications/records", headers: who.headers })
		).json();
		const note = notes.items.find((n: { kind: string }) => n.kind === "link_revoked");
		assert.ok(note, "the owner is notified");
		assert.deepEqual(note.data, {
			link: link.id,
			label: "For the tool",
			by: "tool",
			tool: TOOL,
			toolName: "Tool",
		});
		assert.match(note.body, /by the tool Tool \(https:\/\/tool\.example\)/);
		assert.equal(notes.items.filter((n: { kind: string }) => n.kind === "link_revoked").length, 1, "once");
	});

	test("a tool revokes an expired or paused share of its own", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who, { allowRevoke: true });
		const paused = await proposedLink(who, connectionId);
		await app.inject({
			method: "PATCH",
			url: `${LINKS}/${paused.id}`,
			headers: who.headers,
			payload: { status: "paused" },
		});
		const expiring = await proposedLink(who, connectionId, {
			expiresAt: new Date(clock.now() + DAY).toISOString(),
		});
		clock.advance(DAY);
		for (const id of [paused.id, expiring.id]) {
			const res = await app.inject({
				method: "POST",
				url: `/api/connection/links/${id}/revoke`,
				headers: asTool(token),
			});
			assert.equal(res.statusCode, 200, res.body);
			assert.equal(res.json().status, "revoked");
		}
		clock.advance(-DAY);
	});
});

describe("disconnecting and the owner's side", () => {
	test("DELETE /api/connection: 204, the token stops working, the owner's shares remain and no longer name the tool", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who);
		const link = await proposedLink(who, connectionId);
		const res = await app.inject({ method: "DELETE", url: "/api/connection", headers: asTool(token) });
		assert.equal(res.statusCode, 204);
		assert.equal((await toolGet(token)).json().code, "connection_unauthorized");
		const again = await app.inject({ method: "DELETE", url: "/api/connection", headers: asTool(token) });
		assert.equal(again.statusCode, 401);
		const seen = (
			await app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: who.headers })
		).json();
		assert.equal(seen.status, "active");
		assert.equal(seen.connection, null);
		const list = (await app.inject({ method: "GET", url: CONNECTIONS, headers: who.headers })).json();
		assert.equal(list.totalItems, 0);
	});

	test("the collection lists name, origin, permissions, expiry, state and shares; delete revokes", async () => {
		const who = await owner();
		const { token, connectionId } = await connect(app, who, { allowRevoke: true });
		await proposedLink(who, connectionId);
		const list = (await app.inject({ method: "GET", url: CONNECTIONS, headers: who.headers })).json();
		assert.equal(list.totalItems, 1);
		const item = list.items[0];
		assert.deepEqual(
			{ ...item, created: undefined, updated: undefined },
			{
				id: connectionId,
				workspace: who.workspaceId,
				clientId: TOOL,
				clientName: "Tool",
				allowRevoke: true,
				allowHandOver: false,
				expiresAt: new Date(clock.now() + 90 * DAY).toISOString(),
				state: "connected",
				linkCount: 1,
				created: undefined,
				updated: undefined,
			},
		);

		const other = await owner();
		const foreign = await app.inject({
			method: "DELETE",
			url: `${CONNECTIONS}/${connectionId}`,
			headers: other.headers,
		});
		assert.equal(foreign.statusCode, 404);
		const foreignPerm = await app.inject({
			method: "POST",
			url: `/api/connections/${connectionId}/permissions`,
			headers: other.headers,
			payload: { allowRevoke: false },
		});
		assert.equal(foreignPerm.statusCode, 404);
		const key = buildApiKey(app, who);
		const viaKey = await app.inject({ method: "GET", url: CONNECTIONS, headers: key.headers });
		assert.equal(viaKey.statusCode, 403, "sessions only");
		const create = await app.inject({ method: "POST", url: CONNECTIONS, headers: who.headers, payload: {} });
		assert.equal(create.statusCode, 405);

		const del = await app.inject({
			method: "DELETE",
			url: `${CONNECTIONS}/${connectionId}`,
			headers: who.headers,
		});
		assert.equal(del.statusCode, 204);
		assert.equal((await toolGet(token)).json().code, "connection_unauthorized");
	});

	test("permissions: a field left out stays; unknown id is 404", async () => {
		const who = await owner();
		const { connectionId } = await connect(app, who, { allowRevoke: true });
		const url = `/api/connections/${connectionId}/permissions`;
		const one = await app.inject({
			method: "POST",
			url,
			headers: who.headers,
			payload: { allowHandOver: true },
		});
		assert.deepEqual(one.json(), { allowRevoke: true, allowHandOver: true });
		const none = await app.inject({ method: "POST", url, headers: who.headers, payload: {} });
		assert.deepEqual(none.json(), { allowRevoke: true, allowHandOver: true });
		const miss = await app.inject({
			method: "POST",
			url: "/api/connections/nope/permissions",
			headers: who.headers,
			payload: {},
		});
		assert.equal(miss.statusCode, 404);
		const bad = await app.inject({
			method: "POST",
			url,
			headers: who.headers,
			payload: { allowRevoke: "yes" },
		});
		assert.equal(bad.statusCode, 400);
	});
});

describe("CORS: the token endpoint only", () => {
	test("a preflight from a tool origin is answered with that origin; from any other origin with no CORS header", async () => {
		const ok = await app.inject({
			method: "OPTIONS",
			url: TOKEN,
			headers: {
				origin: TOOL,
				"access-control-request-method": "POST",
				"access-control-request-headers": "content-type",
			},
		});
		assert.equal(ok.statusCode, 204);
		assert.equal(ok.headers["access-control-allow-origin"], TOOL);
		assert.equal(ok.headers["access-control-allow-methods"], "POST");
		assert.equal(ok.headers["access-control-allow-headers"], "content-type");
		assert.equal(ok.headers["access-control-allow-credentials"], undefined);
		for (const origin of ["http://evil.example", "null", "https://tool.example:443"]) {
			const res = await app.inject({
				method: "OPTIONS",
				url: TOKEN,
				headers: { origin, "access-control-request-method": "POST" },
			});
			assert.equal(res.headers["access-control-allow-origin"], undefined, origin);
			assert.equal(res.headers["access-control-allow-methods"], undefined, origin);
		}
	});

	test("the call carries the origin, errors and 202 included; no other route answers CORS", async () => {
		const pending = await redeem({ verifier: pkce().verifier, redirectUri: REDIRECT }, TOOL);
		assert.equal(pending.headers["access-control-allow-origin"], TOOL);
		const bad = await redeem({ code: "x", verifier: pkce().verifier, redirectUri: REDIRECT }, TOOL);
		assert.equal(bad.statusCode, 400);
		assert.equal(bad.headers["access-control-allow-origin"], TOOL);
		for (const [method, url] of [
			["GET", "/api/connection"],
			["OPTIONS", "/api/connection"],
			["GET", "/api/server"],
			["POST", "/api/connections/authorize"],
			["OPTIONS", "/api/passkeys/token"],
		] as const) {
			const res = await app.inject({ method, url, headers: { origin: TOOL } });
			assert.equal(res.headers["access-control-allow-origin"], undefined, `${method} ${url}`);
		}
	});
});

describe("rate limit", () => {
	test("RATELIMIT_CONNECT_REQUESTS per minute per IP, then 429 rate_limited with the CORS header", async () => {
		const limited = await makeApp({ ratelimitConnectRequests: 3 }, { clock: new ManualClock() });
		try {
			const body = { verifier: pkce().verifier, redirectUri: REDIRECT };
			for (let i = 0; i < 3; i++) {
				const res = await limited.app.inject({
					method: "POST",
					url: TOKEN,
					headers: { origin: TOOL },
					payload: body,
				});
				assert.equal(res.statusCode, 202);
			}
			const res = await limited.app.inject({
				method: "POST",
				url: TOKEN,
				headers: { origin: TOOL },
				payload: body,
			});
			assert.equal(res.statusCode, 429);
			assert.equal(res.json().code, "rate_limited");
			assert.equal(res.headers["access-control-allow-origin"], TOOL);
		} finally {
			await limited.close();
		}
	});
});
