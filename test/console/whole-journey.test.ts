// The whole product in a browser, as a new owner meets it (issue 19's journey): the operator's
// ticket signs the owner up in Chromium; two entries and a file go into the vault through the
// vault screen; a share of them with a password and a view cap is made on the shares screen; a
// second browser context reads it through the API; the owner sees the view count and the read log
// move, pauses and revokes it; a request made on the requests screen is answered by a second
// account in its own browser, and the owner sees the answer; an API key's token is shown once.
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

describe("the whole journey in the console", { timeout: 600_000 }, () => {
	let server: Server;
	let browser: Browser;
	let owner: Device;
	let page: Page;
	let token: string;
	let slug: string;
	let answerLink: string;

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		owner = await Device.create(browser);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	const dialog = () => page.getByRole("dialog");
	async function nav(name: string) {
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();
		await screenReady(page, name);
	}

	test("the operator's ticket signs the owner up and lands them in the console", async () => {
		page = await owner.open(await operatorTicket(server, "olga@example.org"));
		await page.getByRole("button", { name: "Create a passkey" }).click();
		await page.getByRole("link", { name: "Open the console" }).click();
		await screenReady(page);
		token = String(await sessionTokenOf(page));
		assert.equal((await apiCall(server, token, "GET", "/api/auth/me")).status, 200);
	});

	test("two entries and a file go into the vault", async () => {
		await nav("Vault");
		for (const [key, name, value] of [
			["iban", "IBAN", "DE89 3704 0044 0532 0130 00"],
			["email", "Email", "olga@example.org"],
		]) {
			await page.getByRole("button", { name: "New entry" }).click();
			await dialog()
				.getByLabel("Key")
				.fill(key as string);
			await dialog()
				.getByLabel("Name")
				.fill(name as string);
			await dialog()
				.getByLabel("Value")
				.fill(value as string);
			await dialog().getByRole("button", { name: "Add the entry" }).click();
			await dialog().waitFor({ state: "hidden", timeout: 60_000 });
			await page.locator("main tbody tr", { hasText: value as string }).waitFor();
		}
		await page.getByRole("button", { name: "Add a file" }).click();
		await dialog()
			.getByLabel("Choose a file")
			.setInputFiles({ name: "payslip.txt", mimeType: "text/plain", buffer: Buffer.from("net 3100\n") });
		await dialog().getByRole("button", { name: "Upload" }).click();
		await dialog().getByText("“payslip.txt” is in the vault.").waitFor({ timeout: 60_000 });
		await dialog().getByRole("button", { name: "Done" }).click();
		await page.locator("main tbody tr", { hasText: "payslip.txt" }).waitFor();

		const records = (await (
			await apiCall(server, token, "GET", "/api/collections/records/records")
		).json()) as {
			items: { key: string }[];
		};
		assert.deepEqual(records.items.map((r) => r.key).sort(), ["email", "iban", "payslip"]);
	});

	test("a share of them with a password and a view cap; a second browser reads it; views and the read log move", async () => {
		await nav("Shares");
		await page.getByRole("link", { name: "New share" }).click();
		await screenReady(page, "New share");
		await page.getByLabel("Label").fill("Landlord");
		await page.getByLabel("IBAN", { exact: true }).check();
		await page.getByLabel("Email", { exact: true }).check();
		await page.getByLabel(/payslip/).check();
		await page.getByLabel("Password (optional)").fill("s3cret pass");
		await page.getByLabel("View cap (optional)").fill("3");
		await page.getByRole("button", { name: "Create the share" }).click();
		await screenReady(page, "Landlord");
		const link = String(await page.locator("main .copy-field-value").first().textContent());
		slug = link.slice(link.lastIndexOf("/") + 1);
		assert.match(String(await page.locator(".share-views").textContent()), /^0 of 3$/);

		// Someone else, in a browser of their own, reads the share through the API.
		const reader = await browser.newContext();
		const refused = await reader.request.post(`${server.api}/api/public/links/${slug}`, { data: {} });
		assert.equal(refused.status(), 401);
		const read = await reader.request.post(`${server.api}/api/public/links/${slug}`, {
			data: { password: "s3cret pass" },
		});
		assert.equal(read.status(), 200);
		const body = (await read.json()) as { viewCount: number; records: { key: string; value?: string }[] };
		assert.equal(body.viewCount, 1);
		assert.equal(body.records.find((r) => r.key === "iban")?.value, "DE89 3704 0044 0532 0130 00");
		await reader.close();

		await page.getByRole("button", { name: "Refresh" }).click();
		await page.locator(".share-views", { hasText: /^1 of 3$/ }).waitFor({ timeout: 30_000 });
		const log = page.getByRole("table", { name: "Reads of this share" });
		await log.waitFor({ timeout: 30_000 });
		assert.equal(await log.locator("tbody tr").count(), 1);
		assert.match(String(await log.locator("tbody tr").textContent()), /API/);
	});

	test("the owner pauses, then revokes the share; the reader is refused", async () => {
		await page.getByRole("button", { name: "Pause" }).click();
		await page.getByRole("button", { name: "Resume" }).waitFor({ timeout: 30_000 });
		let res = await fetch(`${server.api}/api/public/links/${slug}`, { method: "POST" });
		assert.equal(((await res.json()) as { code: string }).code, "link_paused");

		await page.getByRole("button", { name: "Revoke" }).click();
		await page
			.getByRole("dialog", { name: "Revoke this share?" })
			.getByRole("button", { name: "Revoke" })
			.click();
		await page.locator("main").getByText("Revoked").first().waitFor({ timeout: 30_000 });
		res = await fetch(`${server.api}/api/public/links/${slug}`, { method: "POST" });
		assert.equal(((await res.json()) as { code: string }).code, "link_revoked");
	});

	test("a request made in the console is answered by a second account in its own browser", async () => {
		const template = await apiCall(server, token, "POST", "/api/collections/templates/records", {
			name: "Tenant",
			items: [{ key: "full-name", label: "Full name", type: "text", required: true }],
		});
		assert.equal(template.status, 200, await template.text());

		await nav("Requests");
		await page.getByRole("link", { name: "New request" }).click();
		await screenReady(page, "New request");
		await page.getByLabel(/^Label/).fill("Flat 3B");
		await page.getByLabel(/^Template/).selectOption({ label: "Tenant" });
		await page.getByRole("button", { name: "Create the request" }).click();
		await screenReady(page, "Flat 3B");
		answerLink = String(await page.locator(".copy-field-value").textContent());

		// The responder has an account of their own on this server, made with a ticket of their own.
		const responder = await Device.create(browser);
		const bobPage = await responder.open(await operatorTicket(server, "bob@example.org"));
		await bobPage.getByRole("button", { name: "Create a passkey" }).click();
		await bobPage.getByRole("link", { name: "Open the console" }).click();
		await screenReady(bobPage);
		await bobPage.goto(answerLink);
		await screenReady(bobPage, "Flat 3B");
		await bobPage.getByLabel("Full name").fill("Bob Builder");
		await bobPage.getByRole("button", { name: "Share my answer" }).click();
		await bobPage.getByRole("heading", { name: "Your answer is shared" }).waitFor({ timeout: 30_000 });
		assert.deepEqual(responder.unexpectedErrors(), []);
		await responder.close();

		await page.getByRole("button", { name: "Refresh" }).click();
		const values = page.getByRole("table", { name: /^Current values/ });
		await values.getByText("Bob Builder").waitFor({ timeout: 30_000 });
	});

	test("an API key's token is shown once", async () => {
		await nav("API keys");
		await page.getByRole("button", { name: "Create an API key" }).click();
		await dialog().getByLabel("Name").fill("Scripts");
		await dialog().getByLabel("Read shares").check();
		await dialog().getByRole("button", { name: "Create an API key" }).click();
		const shown = page.getByRole("dialog", { name: "Your new API key" });
		await shown.waitFor({ timeout: 30_000 });
		const key = String(await shown.locator("code").textContent()).trim();
		const listed = await fetch(`${server.api}/api/collections/links/records`, {
			headers: { "x-api-key": key },
		});
		assert.equal(listed.status, 200, "the token shown works");
		await shown.getByRole("button", { name: "I have copied it" }).click();
		await page.reload();
		await screenReady(page, "API keys");
		assert.doesNotMatch(String(await page.locator("main").textContent()), new RegExp(key));
		assert.deepEqual(owner.unexpectedErrors(), []);
	});
});
