// Deleting an account in the console: refused while the account is the last owner of a shared
// workspace (the refusal names it and leads to its members), then, with that one handed over,
// confirmed with the passkey: the console leaves for the front page, the session is refused and the
// passkey no longer signs in. axe-core in English and German at desktop and phone width.
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
	operatorTicket,
	PHONE,
	type Server,
	screenReady,
	screenshot,
	sessionTokenOf,
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";

describe("deleting an account in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;
	let club: string;

	before(async () => {
		// The defaults (sign-ups off): the account is made in this browser from the operator's
		// one-time link, so this device holds its passkey.
		server = await startServer();
		browser = await launchBrowser();
		device = await Device.create(browser);
		page = await device.open(await operatorTicket(server, "ada@example.org"));
		await page.getByLabel("Your name (optional)").fill("Ada");
		await page.getByRole("button", { name: "Create a passkey" }).click();
		await page.getByRole("link", { name: "Open the console" }).click({ timeout: 60_000 });
		await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 60_000 });
		token = String(await sessionTokenOf(page));
		club = (
			(await (
				await apiCall(server, token, "POST", "/api/collections/workspaces/records", { name: "Chess club" })
			).json()) as { id: string }
		).id;
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("the last owner of a shared workspace is refused, told which one, and led to its members", async () => {
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
		await screenReady(page, "Account");
		assert.match(String(await page.locator("main dl").textContent()), /ada@example\.org/);
		await page.getByRole("button", { name: "Delete my account" }).click();
		await page.getByRole("dialog").getByRole("button", { name: "Confirm with a passkey" }).click();
		const alert = page.locator("main").getByRole("alert");
		await alert.waitFor({ timeout: 60_000 });
		assert.match(String(await alert.textContent()), /you are the last owner of these workspaces/);
		await screenshot(page, "account-last-owner");
		await alert.getByRole("button", { name: "Members of “Chess club”" }).click();
		await screenReady(page, "Members");
		assert.equal(await page.getByLabel("Workspace").inputValue(), club);
		assert.equal((await apiCall(server, token, "GET", "/api/auth/me")).status, 200, "nothing was deleted");
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	for (const [lang, viewport, size] of [
		["en", DESKTOP, "desktop"],
		["de", PHONE, "phone"],
	] as const) {
		test(`axe-core: no violations (${lang}, ${size})`, async () => {
			const { token: other } = await ticketAccount(server, `axe-${lang}@example.org`);
			const violations = await axeCheck(browser, `${server.origin}/app/account`, {
				token: other,
				lang,
				viewport,
				screenshot: "account",
			});
			assert.deepEqual(violations, [], describeViolations(violations));
			const confirming = await axeCheck(browser, `${server.origin}/app/account`, {
				token: other,
				lang,
				viewport,
				prepare: async (p) => {
					await p
						.getByRole("button", { name: lang === "de" ? "Mein Konto löschen" : "Delete my account" })
						.click();
					await p.getByRole("dialog").waitFor();
				},
			});
			assert.deepEqual(confirming, [], describeViolations(confirming));
		});
	}

	test("with the workspace handed over, the passkey confirms the deletion: signed out to the front page, the passkey no longer signs in", async () => {
		// Another owner for the club: then Ada is not its last.
		const bo = await ticketAccount(server, "bo@example.org");
		const invited = await fetch(`${server.api}/api/collections/invitations/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${token}`, "x-workspace": club, "content-type": "application/json" },
			body: JSON.stringify({ email: "bo@example.org", role: "owner" }),
		});
		assert.equal(invited.status, 200, await invited.clone().text());
		const accepted = await apiCall(server, bo.token, "POST", "/api/invitations/accept", {
			token: invited.headers.get("x-plain-token"),
		});
		assert.equal(accepted.status, 200);

		await page.goto(`${server.origin}/app/account`);
		await screenReady(page, "Account");
		await page.getByRole("button", { name: "Delete my account" }).click();
		await page.getByRole("dialog").getByRole("button", { name: "Confirm with a passkey" }).click();
		await page.waitForURL(`${server.origin}/`, { timeout: 60_000 });
		assert.equal(await sessionTokenOf(page), null, "the console forgot the session");
		assert.equal((await apiCall(server, token, "GET", "/api/auth/me")).status, 401, "the session is refused");
		const members = await fetch(`${server.api}/api/collections/members/records`, {
			headers: { authorization: `Bearer ${bo.token}`, "x-workspace": club },
		});
		const emails = ((await members.json()) as { items: { email: string }[] }).items.map((m) => m.email);
		assert.deepEqual(emails, ["bo@example.org"], "the shared workspace stays, without Ada");

		await page.goto(`${server.origin}/app/signin`);
		await screenReady(page, "Sign in");
		await page.getByRole("button", { name: "Sign in with a passkey" }).click();
		const alert = page.locator("main").getByRole("alert");
		await alert.waitFor({ timeout: 60_000 });
		assert.match(String(await alert.textContent()), /The passkey could not be verified/);
		assert.equal(await sessionTokenOf(page), null, "the deleted account's passkey does not sign in");
		assert.deepEqual(device.unexpectedErrors(), []);
	});
});
