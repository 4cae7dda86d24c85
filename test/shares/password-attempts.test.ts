// Password attempts are counted per share and client across every route that checks a share's
// password (issue 35.6): the resolve, the page's GET and HEAD (HTTP Basic) and its form POST share
// one counter of 30 a minute, so spreading guesses over the four routes buys nothing, and HEAD
// (which takes no view) counts too. Another client, or the same client at another share, is not
// held back. With REDIS_URL two nodes count together.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import { type App, buildApp } from "../../src/app.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue } from "./helpers.ts";

const PASSWORD = "open sesame";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const basic = (password: string) => `Basic ${Buffer.from(`anyone:${password}`).toString("base64")}`;

/** One password check on each route, by the client at `ip`. */
const ROUTES = {
	resolve: (app: App, slug: string, ip: string, password: string) =>
		app.inject({
			method: "POST",
			url: `/api/public/links/${slug}`,
			remoteAddress: ip,
			payload: { password },
		}),
	csv: (app: App, slug: string, ip: string, password: string) =>
		app.inject({
			method: "GET",
			url: `/s/${slug}?format=csv`,
			remoteAddress: ip,
			headers: { authorization: basic(password) },
		}),
	head: (app: App, slug: string, ip: string, password: string) =>
		app.inject({
			method: "HEAD",
			url: `/s/${slug}?format=csv`,
			remoteAddress: ip,
			headers: { authorization: basic(password) },
		}),
	form: (app: App, slug: string, ip: string, password: string) =>
		app.inject({
			method: "POST",
			url: `/s/${slug}`,
			remoteAddress: ip,
			headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
			payload: new URLSearchParams({ password }).toString(),
		}),
};
const WRONG: Record<keyof typeof ROUTES, number> = { resolve: 401, csv: 401, head: 401, form: 403 };

async function passwordShare(app: App, who: TestAccount): Promise<string> {
	const record = await createValue(app, who, {
		key: `email${crypto.randomInt(1e9)}`,
		value: "ann@example.org",
	});
	return (await createLink(app, who, { label: "Locked", records: [record.id], password: PASSWORD })).slug;
}

/**
 * 30 wrong guesses spread over the routes, `nodes` taking turns, all at once: the window is a real
 * minute (Redis keeps it), and one at a time, thirty scrypt checks on a loaded two-core machine
 * once took longer than that, so the first guesses had left the window before the 31st came.
 */
async function guessThirty(nodes: App[], slug: string, ip: string): Promise<void> {
	const names = Object.keys(ROUTES) as (keyof typeof ROUTES)[];
	await Promise.all(
		Array.from({ length: 30 }, async (_, i) => {
			const name = names[i % names.length] as keyof typeof ROUTES;
			const node = nodes[i % nodes.length] as App;
			const res = await ROUTES[name](node, slug, ip, `guess ${i}`);
			assert.equal(res.statusCode, WRONG[name], `guess ${i} at ${name}: ${res.body}`);
		}),
	);
}

function assertLimited(res: {
	statusCode: number;
	headers: Record<string, unknown>;
	json(): { code: string };
}) {
	assert.equal(res.statusCode, 429);
	assert.equal(res.json().code, "rate_limited");
	assert.ok(Number(res.headers["retry-after"]) > 0);
}

describe("one counter of password attempts per share and client", () => {
	let t: TestApp;
	let owner: TestAccount;
	before(async () => {
		t = await makeApp();
		owner = await buildAccount(t.app);
	});
	after(() => t.close());

	test("30 wrong passwords over four routes: the 31st attempt is 429 on every route, even the right password", async () => {
		const slug = await passwordShare(t.app, owner);
		const ip = "203.0.113.31";
		await guessThirty([t.app], slug, ip);
		assertLimited(await ROUTES.resolve(t.app, slug, ip, PASSWORD));
		assertLimited(await ROUTES.csv(t.app, slug, ip, PASSWORD));
		const head = await ROUTES.head(t.app, slug, ip, "guess");
		assert.equal(head.statusCode, 429);
		assert.ok(Number(head.headers["retry-after"]) > 0);
		const page = await ROUTES.form(t.app, slug, ip, PASSWORD);
		assert.equal(page.statusCode, 429);
		// Another client opens it; the same client opens another share.
		const other = await ROUTES.resolve(t.app, slug, "203.0.113.32", PASSWORD);
		assert.equal(other.statusCode, 200, other.body);
		const second = await ROUTES.resolve(t.app, await passwordShare(t.app, owner), ip, PASSWORD);
		assert.equal(second.statusCode, 200, second.body);
	});

	test("a read without a password is no attempt", async () => {
		const slug = await passwordShare(t.app, owner);
		const ip = "203.0.113.33";
		for (let i = 0; i < 10; i++) {
			const res = await t.app.inject({
				method: "POST",
				url: `/api/public/links/${slug}`,
				remoteAddress: ip,
				payload: {},
			});
			assert.equal(res.json().code, "link_password_required");
		}
		await guessThirty([t.app], slug, ip);
		assertLimited(await ROUTES.resolve(t.app, slug, ip, PASSWORD));
	});
});

describe("with REDIS_URL two nodes count the attempts together", () => {
	test("15 guesses on each node: the 31st is 429 on either", async (t) => {
		const probe = new Redis(REDIS_URL, {
			lazyConnect: true,
			maxRetriesPerRequest: 0,
			retryStrategy: () => null,
		});
		const up = await probe.connect().then(
			() => true,
			() => false,
		);
		probe.disconnect();
		if (!up)
			assert.fail(`no Redis at ${REDIS_URL}: start redis-server on 127.0.0.1:6379 or set TEST_REDIS_URL`);
		const a = await makeApp({ redisUrl: REDIS_URL });
		t.after(() => a.close());
		const b = await buildApp(a.env.config);
		t.after(() => b.close());
		const owner = await buildAccount(a.app);
		const slug = await passwordShare(a.app, owner);
		const ip = `198.51.100.${crypto.randomInt(1, 250)}`;
		await guessThirty([a.app, b], slug, ip);
		assertLimited(await ROUTES.resolve(b, slug, ip, PASSWORD));
		assertLimited(await ROUTES.csv(a.app, slug, ip, PASSWORD));
	});
});
