// The console end to end in headless Chromium with a virtual authenticator: the operator's ticket
// link signs a new owner up and lands them in the console, sign out and in, a passkey added from a
// second device and removed again, an API key whose token is shown exactly once, a notification
// marked read, and the language switched. No console error (a CSP violation would be one).
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
	apiCall,
	Device,
	launchBrowser,
	operatorTicket,
	type Server,
	screenReady,
	sessionTokenOf,
	startServer,
} from "../helpers/browser.ts";

describe("the console in Chromium", { timeout: 280_000 }, () => {
	let server: Server;
	let browser: Browser;
	let laptop: Device;
	let page: Page;
	const email = "ada@example.org";

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		laptop = await Device.create(browser);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	async function nav(name: string | RegExp) {
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();
		await screenReady(page, name);
	}

	test("the operator's ticket link signs the owner up and lands them signed in", async () => {
		const url = await operatorTicket(server, email);
		assert.match(url, /\/passkey\?mode=signup&ticket=/);
		page = await laptop.open(url);
		await page.getByLabel("Your name (optional)").fill("Ada");
		await page.getByRole("button", { name: "Create a passkey" }).click();
		const open = page.getByRole("link", { name: "Open the console" });
		await open.waitFor({ state: "visible", timeout: 60_000 });
		assert.match(String(await page.locator("#result-text").textContent()), /passkey is saved/);
		await open.click();
		await screenReady(page);
		assert.match(String(await page.locator("header").textContent()), /Signed in as ada@example\.org/);
		const token = await sessionTokenOf(page);
		assert.ok(token, "the session token is kept in sessionStorage");
		const me = await apiCall(server, token, "GET", "/api/auth/me");
		assert.equal(me.status, 200);
		assert.equal(((await me.json()) as { record: { email: string } }).record.email, email);
	});

	test("signs out, and signs in again with the passkey on the console's own page", async () => {
		const before = await sessionTokenOf(page);
		await page.getByRole("button", { name: "Sign out" }).click();
		await screenReady(page, "Sign in");
		assert.match(String(await page.locator("main").textContent()), /You are signed out/);
		assert.equal(await sessionTokenOf(page), null);
		assert.equal(
			(await apiCall(server, String(before), "GET", "/api/auth/me")).status,
			401,
			"the session ended",
		);

		await page.getByRole("button", { name: "Sign in with a passkey" }).click();
		await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 60_000 });
		assert.notEqual(await sessionTokenOf(page), null);
		assert.match(page.url(), /\/app\/[a-z]+/);
	});

	test("passkeys: a second device joins with a one-time link, then is removed; the last one stays", async () => {
		await nav("Passkeys");
		assert.equal(await page.locator("main tbody tr").count(), 1);

		// This device holds a passkey for the account already: the browser refuses, the console says so.
		await page.getByRole("button", { name: "Add a passkey on this device" }).click();
		await page.getByRole("dialog").getByRole("button", { name: "Create the passkey" }).click();
		await page.getByRole("dialog").getByRole("alert").waitFor({ timeout: 60_000 });
		assert.match(String(await page.getByRole("dialog").getByRole("alert").textContent()), /already holds/);
		await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

		await page.getByRole("button", { name: "Add a passkey on another device" }).click();
		const link = String(await page.getByRole("dialog").locator("code").textContent());
		assert.match(link, /\/passkey\?mode=signup&ticket=/);
		await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();

		const phone = await Device.create(browser, { viewport: { width: 390, height: 844 } });
		const phonePage = await phone.open(link);
		assert.match(String(await phonePage.locator("main").textContent()), /ada@example\.org/);
		await phonePage.getByRole("button", { name: "Create a passkey" }).click();
		await phonePage.getByRole("link", { name: "Open the console" }).click();
		// On a phone the controls sit behind the Menu button.
		await phonePage.getByRole("button", { name: /^Menu/ }).waitFor({ timeout: 60_000 });
		assert.equal(await phone.passkeyCount(), 1);
		assert.deepEqual(phone.unexpectedErrors(), []);
		await phone.close();

		await page.reload();
		await screenReady(page, "Passkeys");
		const rows = page.locator("main tbody tr");
		assert.equal(await rows.count(), 2);
		await rows
			.nth(1)
			.getByRole("button", { name: /^Remove/ })
			.click();
		await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
		await page.getByRole("dialog").waitFor({ state: "hidden" });
		await page.locator("main tbody tr").nth(1).waitFor({ state: "detached" });
		assert.equal(await page.locator("main tbody tr").count(), 1);

		// The last one stays: its Remove is off, with the reason beside it (never the code).
		const last = page
			.locator("main tbody tr")
			.first()
			.getByRole("button", { name: /^Remove/ });
		assert.equal(await last.getAttribute("aria-disabled"), "true");
		await last.click({ force: true });
		assert.equal(await page.getByRole("dialog").count(), 0, "nothing asks to remove it");
		assert.match(String(await page.locator("main tbody tr").first().textContent()), /only passkey/);
		assert.doesNotMatch(String(await page.locator("main").textContent()), /passkey_last/);
	});

	test("API keys: the token is shown once, works, and stops working when revoked", async () => {
		await nav("API keys");
		await page.getByRole("button", { name: "Create an API key" }).click();
		const dialog = page.getByRole("dialog");
		await dialog.getByRole("button", { name: "Create an API key" }).click();
		assert.match(String(await dialog.textContent()), /Enter a name/);
		assert.match(String(await dialog.textContent()), /Choose at least one permission/);
		await dialog.getByLabel("Name").fill("CRM sync");
		await dialog.getByLabel("Read shares").check();
		await dialog.getByRole("button", { name: "Create an API key" }).click();

		const shown = page.getByRole("dialog", { name: "Your new API key" });
		await shown.waitFor();
		const token = String(await shown.locator("code").textContent());
		assert.match(token, /^svc_[A-Za-z0-9_-]{43}$/);
		const used = await fetch(`${server.api}/api/collections/links/records`, {
			headers: { "x-api-key": token },
		});
		assert.equal(used.status, 200, "the token shown is the key");
		await shown.getByRole("button", { name: "I have copied it" }).click();
		await shown.waitFor({ state: "hidden" });
		assert.ok(!(await page.content()).includes(token), "the token is gone once the dialog closes");
		const row = page.locator("main tbody tr", { hasText: "CRM sync" });
		assert.match(String(await row.textContent()), /Read shares/);

		await row.getByRole("button", { name: "Revoke CRM sync" }).click();
		await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
		await row.waitFor({ state: "detached" });
		const refused = await fetch(`${server.api}/api/collections/links/records`, {
			headers: { "x-api-key": token },
		});
		assert.equal(refused.status, 401);
	});

	test("notifications: a revoked share raises one; the header counts it until it is marked read", async () => {
		const token = String(await sessionTokenOf(page));
		const made = await apiCall(server, token, "POST", "/api/collections/links/records", { label: "Lease" });
		assert.equal(made.status, 200);
		const { id } = (await made.json()) as { id: string };
		assert.equal(
			(await apiCall(server, token, "PATCH", `/api/collections/links/records/${id}`, { status: "revoked" }))
				.status,
			200,
		);

		// Notifications are linked once, in the header, with the unread count.
		await page
			.locator("header")
			.getByRole("link", { name: /^Notifications/ })
			.click();
		await screenReady(page, "Notifications");
		const counter = page.locator("header").getByRole("link", { name: "Notifications 1 unread" });
		await counter.waitFor();
		const item = page.locator("main li.card").first();
		assert.match(String(await item.textContent()), /A share was revoked/);
		await item.getByRole("button", { name: "Mark as read" }).click();
		await item.getByRole("button", { name: "Mark as unread" }).waitFor();
		await page.locator("header").getByRole("link", { name: "Notifications", exact: true }).waitFor();
	});

	test("German from the language switch, remembered across a reload; dates in German", async () => {
		await page.getByLabel("Language").selectOption("de");
		await page
			.getByRole("navigation", { name: "Hauptmenü" })
			.getByRole("link", { name: "API-Schlüssel" })
			.waitFor();
		await page.reload();
		await screenReady(page, "Benachrichtigungen");
		assert.equal(await page.locator("html").getAttribute("lang"), "de");
		const when = String(await page.locator("main time").first().textContent());
		assert.match(when, /\d{1,2}\.\d{2}\.\d{4}|\d{1,2}\. [A-Za-zä]+\.? \d{4}/, `a German date: ${when}`);
		await page.getByLabel("Sprache").selectOption("en");
	});

	test("no console errors on the way (a CSP violation would be one)", () => {
		assert.deepEqual(laptop.unexpectedErrors(), []);
	});
});
