// Connections in the console end to end: the owner pastes a tool's `svc://connect` link, sees the
// tool's origin, its claimed name and the check code the tool shows, allows revoking, connects;
// the browser returns to the tool (on its own loopback origin), which redeems the code. The list
// then shows name, origin, permissions, expiry and state, and revoking ends the tool's token.
// axe-core on the list, the link dialog and the consent, in English and German, desktop and phone.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { checkCode } from "../../src/lib/app-links.ts";
import { startToolServer, type ToolServer } from "../connections/tool-server.ts";
import {
	axeCheck,
	DESKTOP,
	Device,
	describeViolations,
	freePort,
	launchBrowser,
	PHONE,
	type Server,
	screenReady,
	setSessionToken,
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";
import { differences, snapshot, tableNames } from "../helpers/db-snapshot.ts";

/** No column moves while a refused link is shown and cancelled. */
const NOTHING_IGNORED: ReadonlySet<string> = new Set();

describe("connections in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let tool: ToolServer;
	let token: string;
	let device: Device;
	let page: Page;
	const verifier = crypto.randomBytes(32).toString("base64url");
	const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
	let link: string;

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		tool = await startToolServer("127.0.0.1", await freePort(), server.api);
		({ token } = await ticketAccount(server, "owner@example.org"));
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		// Percent-encoded with %20 for a space, as the spec writes app links (URLSearchParams would write +).
		const params = {
			client: tool.origin,
			name: "Flat finder",
			redirect: `${tool.origin}/back`,
			state: "st1",
			challenge,
		};
		link = `svc://connect?${Object.entries(params)
			.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
			.join("&")}`;
	});
	after(async () => {
		await device?.close();
		await browser?.close();
		await tool?.close();
		await server?.close();
	});

	test("a refused link names the parameter at fault and changes nothing", async () => {
		await page.goto(`${server.origin}/app/connections`);
		await screenReady(page, "Connections");
		await page.getByText("No tools connected").waitFor();
		// What "nothing" means: every row of every table (test/helpers/db-snapshot.ts), and the
		// connections the owner's API lists.
		const { app } = server.t;
		const tables = await tableNames(app);
		const before = await snapshot(app, tables, NOTHING_IGNORED);
		const listed = async () => {
			const res = await app.inject({
				method: "GET",
				url: "/api/collections/connections/records",
				headers: { authorization: `Bearer ${token}` },
			});
			assert.equal(res.statusCode, 200, res.body);
			return (res.json() as { items: unknown[] }).items;
		};
		assert.deepEqual(await listed(), []);

		await page.getByRole("button", { name: "Open an app link" }).click();
		await page
			.getByRole("textbox", { name: "App link" })
			.fill(link.replace("state=st1", "state=no%20spaces"));
		await page.getByRole("button", { name: "Continue" }).click();
		await page.getByText("This link is refused: state").waitFor();
		await page.getByRole("button", { name: "Cancel" }).click();
		await page.getByText("No tools connected").waitFor();

		assert.deepEqual(differences(before, await snapshot(app, tables, NOTHING_IGNORED)), []);
		assert.deepEqual(await listed(), [], "no connection was made");
	});

	test("consent shows origin, claimed name and the check code; connecting returns to the tool with a code", async () => {
		// The tool page keeps its verifier, as a real tool would before opening the link.
		const toolPage = await device.context.newPage();
		await toolPage.goto(tool.origin);
		await toolPage.evaluate(`localStorage.setItem("verifier", ${JSON.stringify(verifier)})`);
		await toolPage.close();

		await page.getByRole("button", { name: "Open an app link" }).click();
		await page.getByRole("textbox", { name: "App link" }).fill(link);
		await page.getByRole("button", { name: "Continue" }).click();
		await page.getByRole("heading", { name: "Connect a tool" }).waitFor();
		const code = await checkCode(challenge);
		await page.getByText(code, { exact: true }).waitFor();
		await page.getByText(tool.origin, { exact: true }).waitFor();
		await page.getByText("Calls itself “Flat finder”").waitFor();
		await page.getByLabel("Allow it to revoke the shares its proposals became").check();
		await page.getByRole("button", { name: "Connect", exact: true }).click();
		await page.waitForURL((url) => url.origin === tool.origin && url.pathname === "/back");
		const url = new URL(page.url());
		assert.equal(url.searchParams.get("state"), "st1");
		assert.equal(url.searchParams.get("status"), "connected");
		assert.equal(url.searchParams.get("server"), server.origin);
		const redeemed = await page.evaluate(
			() =>
				(globalThis as unknown as { redeemed: Promise<{ status: number; body: { token: string } }> })
					.redeemed,
		);
		assert.equal(redeemed.status, 200, JSON.stringify(redeemed));
		const status = await fetch(`${server.api}/api/connection`, {
			headers: { "x-svc-connection": redeemed.body.token },
		});
		assert.equal(status.status, 200);
		assert.equal(((await status.json()) as { allowRevoke: boolean }).allowRevoke, true);

		await page.goto(`${server.origin}/app/connections`);
		await screenReady(page, "Connections");
		const row = page.locator("main tbody tr", { hasText: "Flat finder" });
		await row.getByText(tool.origin).waitFor();
		await row.getByText("May revoke its shares").waitFor();
		await row.getByText("Connected", { exact: true }).waitFor();

		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				const shot = lang === "en" ? "connections" : undefined;
				const list = await axeCheck(browser, `${server.origin}/app/connections`, {
					token,
					lang,
					viewport,
					...(shot ? { screenshot: shot } : {}),
				});
				assert.deepEqual(list, [], describeViolations(list));
				const consent = await axeCheck(
					browser,
					`${server.origin}/app/connections/connect?${new URLSearchParams({ link })}`,
					// The first-time consent's screenshot is test/console/proposals.test.ts's; this is the
					// consent of a tool already connected (its permissions as they stand).
					{ token, lang, viewport },
				);
				assert.deepEqual(consent, [], describeViolations(consent));
				const dialog = await axeCheck(browser, `${server.origin}/app/connections`, {
					token,
					lang,
					viewport,
					prepare: async (p) => {
						await p.locator("header + * button.btn-primary, main .page-actions button").first().click();
						await p.locator("dialog[open]").waitFor();
					},
				});
				assert.deepEqual(dialog, [], describeViolations(dialog));
			}
		}

		await row.getByRole("button", { name: "Revoke Flat finder" }).click();
		await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
		await page.getByText("No tools connected").waitFor();
		const after = await fetch(`${server.api}/api/connection`, {
			headers: { "x-svc-connection": redeemed.body.token },
		});
		assert.equal(after.status, 401);
		assert.deepEqual(device.unexpectedErrors(), []);
	});
});
