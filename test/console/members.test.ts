// Members in the console: the owner of a shared workspace sees its members with their roles,
// invites someone (the one-time link is shown once), changes a role and withdraws an invitation.
// axe-core on the screen in English and German, desktop and phone.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
	apiCall,
	axeCheck,
	DESKTOP,
	Device,
	describeViolations,
	launchBrowser,
	PHONE,
	type Server,
	screenReady,
	setSessionToken,
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";

describe("members in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;
	let device: Device;
	let page: Page;
	let ws: string;

	const inWs = (tok: string, method: string, url: string, body?: unknown) =>
		fetch(`${server.api}${url}`, {
			method,
			headers: {
				authorization: `Bearer ${tok}`,
				"x-workspace": ws,
				...(body === undefined ? {} : { "content-type": "application/json" }),
			},
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
		});

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "olivia@example.org"));
		ws = (
			(await (
				await apiCall(server, token, "POST", "/api/collections/workspaces/records", { name: "Family" })
			).json()) as { id: string }
		).id;
		const mia = await ticketAccount(server, "mia@example.org");
		const invited = await inWs(token, "POST", "/api/collections/invitations/records", {
			email: "mia@example.org",
			role: "member",
		});
		assert.equal(invited.status, 200, await invited.clone().text());
		const accepted = await apiCall(server, mia.token, "POST", "/api/invitations/accept", {
			token: invited.headers.get("x-plain-token"),
		});
		assert.equal(accepted.status, 200, await accepted.clone().text());
		await inWs(token, "POST", "/api/collections/invitations/records", {
			email: "leo@example.org",
			role: "admin",
		});
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.evaluate(`sessionStorage.setItem("svc.workspace", ${JSON.stringify(ws)})`);
	});
	after(async () => {
		await device?.close();
		await browser?.close();
		await server?.close();
	});

	test("lists members and invitations; invites with a one-time link; changes a role; withdraws", async () => {
		await page.goto(`${server.origin}/app/members`);
		await screenReady(page, "Members");
		const members = page.locator("main table").first();
		await members.getByText("Olivia (you)").waitFor();
		await members.getByText("mia@example.org").waitFor();
		await page.getByText("leo@example.org").waitFor();

		await page.getByRole("button", { name: "Invite someone" }).click();
		await page.getByLabel("Email").fill("zoe@example.org");
		await page.getByRole("button", { name: "Create invitation" }).click();
		const link = page.locator("dialog .copy-field-value");
		await link.waitFor();
		assert.match((await link.textContent()) ?? "", /\/app\/invite#[A-Za-z0-9_-]{43}$/);
		await page.getByRole("button", { name: "Done" }).click();
		await page.getByText("zoe@example.org").waitFor();

		await page.getByLabel("Role of mia").selectOption("admin");
		await page.getByText("Role changed").waitFor({ state: "attached" });
		const listed = (await (await inWs(token, "GET", "/api/collections/members/records")).json()) as {
			items: { email: string; role: string }[];
		};
		assert.equal(listed.items.find((m) => m.email === "mia@example.org")?.role, "admin");

		await page.getByRole("button", { name: "Withdraw the invitation for leo@example.org" }).click();
		await page.getByRole("dialog").getByRole("button", { name: "Withdraw" }).click();
		await page.getByRole("cell", { name: "leo@example.org", exact: true }).waitFor({ state: "detached" });
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	for (const [lang, viewport, size] of [
		["en", DESKTOP, "desktop"],
		["de", PHONE, "phone"],
	] as const) {
		test(`axe-core: no violations (${lang}, ${size})`, async () => {
			const violations = await axeCheck(browser, `${server.origin}/app/members`, {
				token,
				lang,
				viewport,
				// The shared workspace, not the personal one the console opens first.
				prepare: async (p) => {
					await p.evaluate(`sessionStorage.setItem("svc.workspace", ${JSON.stringify(ws)})`);
					await p.reload();
					await screenReady(p);
					await p.getByText("mia@example.org").first().waitFor();
				},
				screenshot: "members",
			});
			assert.deepEqual(violations, [], describeViolations(violations));
		});
	}
});
