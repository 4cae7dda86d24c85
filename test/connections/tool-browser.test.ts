// A tool played by a page on a second loopback origin (http://127.0.0.1:<port>, the console being
// at http://localhost:<port>) in headless Chromium: it connects once by polling and once with a
// code, gets 202 and then its answer, reads the status of its shares and revokes one through its
// backend; a page on an origin that is no tool's gets no CORS answer.
//
// Runs once, not per database: a tool's page in Chromium (CORS, polling); connecting and a tool's reads run on both databases in connections/*.test.ts.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { checkCode } from "../../src/lib/app-links.ts";
import { freePort, launchBrowser, type Server, startServer } from "../helpers/browser.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createValue, LINKS } from "../shares/helpers.ts";
import { startToolServer, type ToolServer } from "./tool-server.ts";

let server: Server;
let browser: Browser;
let tool: ToolServer;
let stranger: ToolServer;
let owner: TestAccount;

before(async () => {
	server = await startServer();
	browser = await launchBrowser();
	tool = await startToolServer("127.0.0.1", await freePort(), server.api);
	// 127.0.0.2 is loopback too, but not a tool origin (only localhost and 127.0.0.1 are, in development).
	stranger = await startToolServer("127.0.0.2", await freePort(), server.api);
	owner = await buildAccount(server.t.app);
});
after(async () => {
	await browser?.close();
	await tool?.close();
	await stranger?.close();
	await server?.close();
});

/** The owner's app consenting: what the console does after showing the check code. */
async function consent(body: Record<string, unknown>): Promise<{ code: string; connectionId: string }> {
	const res = await fetch(`${server.api}/api/connections/authorize`, {
		method: "POST",
		headers: { ...owner.headers, "content-type": "application/json" },
		body: JSON.stringify({ clientId: tool.origin, redirectUri: `${tool.origin}/back`, ...body }),
	});
	assert.equal(res.status, 200, await res.clone().text());
	return (await res.json()) as { code: string; connectionId: string };
}

async function toolPage(origin: string, path = "/"): Promise<Page> {
	const context = await browser.newContext();
	const page = await context.newPage();
	await page.goto(`${origin}${path}`);
	return page;
}

test("connects by polling: 202 while the owner has not answered, then the answer", async () => {
	const page = await toolPage(tool.origin);
	const { challenge, checkCode: shown } = await page.evaluate(() =>
		(
			globalThis as unknown as { tool: { start(): Promise<{ challenge: string; checkCode: string }> } }
		).tool.start(),
	);
	assert.equal(shown, await checkCode(challenge), "the page and the app show the same check code");

	// A poll asks with its verifier alone (spec "Connections").
	await page.evaluate((origin) => {
		void (globalThis as unknown as { tool: { poll(a: string): Promise<void> } }).tool.poll(origin);
	}, server.origin);
	await page.waitForFunction(
		() => (globalThis as unknown as { tool: { statuses: number[] } }).tool.statuses.length >= 2,
	);
	await consent({ clientName: "Flat finder", challenge, poll: true, allowRevoke: true, allowHandOver: true });
	await page.waitForFunction(
		() => (globalThis as unknown as { tool: { answer: unknown } }).tool.answer !== null,
	);
	const { statuses, answer } = await page.evaluate(() => {
		const t = (
			globalThis as unknown as {
				tool: { statuses: number[]; answer: { token: string; connection: unknown } };
			}
		).tool;
		return { statuses: t.statuses, answer: t.answer };
	});
	assert.ok(statuses.length >= 3, String(statuses));
	assert.ok(
		statuses.slice(0, -1).every((s) => s === 202),
		String(statuses),
	);
	assert.equal(statuses.at(-1), 200);
	assert.equal(typeof answer.token, "string");
	assert.deepEqual(
		{ ...(answer.connection as Record<string, unknown>), id: undefined, expiresAt: undefined },
		{
			id: undefined,
			clientName: "Flat finder",
			expiresAt: undefined,
			allowRevoke: true,
			allowHandOver: true,
		},
	);
	await page.context().close();
});

test("connects with a code, reads the status of its shares and revokes one; the API answers it no CORS elsewhere", async () => {
	const start = await toolPage(tool.origin);
	const { challenge } = await start.evaluate(() =>
		(globalThis as unknown as { tool: { start(): Promise<{ challenge: string }> } }).tool.start(),
	);
	// Reuse: the tool is connected from the first test; no new consent, only a code.
	const { code, connectionId } = await consent({ challenge, reuse: true });

	// The app opens the tool's return address with the answer (spec `svc://connect`).
	const back = new URL(`${tool.origin}/back`);
	back.search = new URLSearchParams({
		state: "s1",
		status: "connected",
		server: server.origin,
		code,
	}).toString();
	await start.goto(back.toString());
	const redeemed = await start.evaluate(
		() =>
			(globalThis as unknown as { redeemed: Promise<{ status: number; body: { token: string } }> }).redeemed,
	);
	assert.equal(redeemed.status, 200, JSON.stringify(redeemed));
	const token = redeemed.body.token;

	// The owner makes two shares for the tool from its proposal; one handed over.
	const record = await createValue(server.t.app, owner, { key: "email", value: "ann@example.org" });
	const make = async (label: string, handedOver: boolean) => {
		const res = await server.t.app.inject({
			method: "POST",
			url: LINKS,
			headers: owner.headers,
			payload: { label, records: [record.id], connection: connectionId, handedOver },
		});
		assert.equal(res.statusCode, 200, res.body);
		return res.json() as { id: string; slug: string };
	};
	const first = await make("Application", true);
	const second = await make("Viewing", false);

	const status = await start.evaluate(
		(t) =>
			(globalThis as never as { tool: { backend(p: string, b: unknown): Promise<unknown> } }).tool.backend(
				"/tool/status",
				{ token: t },
			),
		token,
	);
	const seen = status as { status: number; body: { links: { id: string; status: string; url?: string }[] } };
	assert.equal(seen.status, 200);
	assert.deepEqual(
		seen.body.links.map((l) => [l.id, l.status, l.url]),
		[
			[second.id, "active", undefined],
			[first.id, "active", `${server.origin}/s/${first.slug}`],
		],
	);

	const revoked = (await start.evaluate(
		([t, id]) =>
			(globalThis as never as { tool: { backend(p: string, b: unknown): Promise<unknown> } }).tool.backend(
				"/tool/revoke",
				{ token: t, id },
			),
		[token, first.id],
	)) as { status: number; body: { status: string } };
	assert.equal(revoked.status, 200);
	assert.equal(revoked.body.status, "revoked");
	const probe = await server.t.app.inject({ method: "GET", url: `/api/public/links/${first.slug}` });
	assert.equal(probe.json().status, "revoked");

	// From the page itself, only the token endpoint answers cross-origin: /api/connection does not.
	const direct = await start.evaluate(
		([s, t]) =>
			(globalThis as never as { tool: { direct(a: string, b: string): Promise<string> } }).tool.direct(
				s as string,
				t as string,
			),
		[server.origin, token],
	);
	assert.equal(direct, "blocked");
	await start.context().close();

	// A page on an origin that is no tool's (127.0.0.2) is refused by the preflight: no CORS headers.
	const other = await toolPage(stranger.origin);
	const fromStranger = await other.evaluate(
		(s) => (globalThis as never as { tool: { directToken(a: string): Promise<string> } }).tool.directToken(s),
		server.origin,
	);
	assert.equal(fromStranger, "blocked");
	await other.context().close();
	const preflight = await fetch(`${server.api}/api/connect/token`, {
		method: "OPTIONS",
		headers: { origin: stranger.origin, "access-control-request-method": "POST" },
	});
	assert.equal(preflight.headers.get("access-control-allow-origin"), null);
	const fromTool = await fetch(`${server.api}/api/connect/token`, {
		method: "OPTIONS",
		headers: { origin: tool.origin, "access-control-request-method": "POST" },
	});
	assert.equal(fromTool.headers.get("access-control-allow-origin"), tool.origin);
});
