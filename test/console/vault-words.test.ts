// The vault's dialogs as a person meets them (issue 40.5, 40.6), with the defaults (sign-ups off):
// New entry asks the name first and makes the key from it (the key stays editable, and once typed
// the name no longer changes it); Escape and Cancel in New entry, Add a file and New section give
// the focus back to the button that opened them; files are listed by type in words with a proper
// plural ("Text file, 54 bytes", "PDF document", "Textdatei, 54 Byte"). axe-core on the vault with
// files and on the named entry dialog, in English and German, at 1280 and 390 px.
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
	focused,
	launchBrowser,
	PHONE,
	type Server,
	screenReady,
	setSessionToken,
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";

describe("the vault's dialogs and words", { timeout: 400_000 }, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;

	async function upload(name: string, type: string, bytes: Buffer) {
		const form = new FormData();
		form.append("key", name.replace(/\W+/g, "-").toLowerCase());
		form.append("file", new Blob([new Uint8Array(bytes)], { type }), name);
		const res = await fetch(`${server.api}/api/collections/records/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${token}` },
			body: form,
		});
		assert.equal(res.status, 200, await res.clone().text());
	}

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "vera@example.org"));
		await upload("notes.txt", "text/plain", Buffer.alloc(54, "a"));
		await upload("one.txt", "text/plain", Buffer.from("x"));
		await upload("lease.pdf", "application/pdf", Buffer.from("%PDF-1.4\n%%EOF\n"));
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/vault`);
		await screenReady(page, "Vault");
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	const dialog = () => page.getByRole("dialog");

	test("New entry: the name comes first, the key is made from it and stays editable", async () => {
		await page.getByRole("button", { name: "New entry" }).click();
		await dialog().waitFor();
		const labels = await dialog().locator("form label").allTextContents();
		assert.equal(labels[0], "Name");
		assert.match(String(labels[1]), /^Key/);
		assert.equal(
			(await focused(page)).id,
			await dialog().getByLabel("Name").getAttribute("id"),
			"Name has the focus",
		);
		await page.keyboard.type("Bank details");
		assert.equal(await dialog().getByLabel("Key").inputValue(), "bank-details");
		await dialog().getByLabel("Name").fill("Straße & Nr.");
		assert.equal(await dialog().getByLabel("Key").inputValue(), "strasse-nr");
		// A key of one's own: the name no longer changes it.
		await dialog().getByLabel("Key").fill("street");
		await dialog().getByLabel("Name").fill("Street and number");
		assert.equal(await dialog().getByLabel("Key").inputValue(), "street");
		await dialog().getByLabel("Value").fill("Main Street 1");
		await dialog().getByRole("button", { name: "Add the entry" }).click();
		await dialog().waitFor({ state: "hidden" });
		const res = await apiCall(
			server,
			token,
			"GET",
			"/api/collections/records/records?filter=key%3D%22street%22",
		);
		const items = ((await res.json()) as { items: { name: string; value: string }[] }).items;
		assert.deepEqual(
			items.map((r) => [r.name, r.value]),
			[["Street and number", "Main Street 1"]],
		);
	});

	for (const [button, how] of [
		["New entry", "Escape"],
		["New entry", "Cancel"],
		["Add a file", "Escape"],
		["Add a file", "Cancel"],
		["New section", "Escape"],
		["New section", "Cancel"],
	] as const) {
		test(`${button}: ${how} gives the focus back to the button that opened it`, async () => {
			const opener = page.locator("main .page-actions").getByRole("button", { name: button });
			await opener.click();
			await dialog().waitFor();
			assert.equal((await focused(page)).tag, "input", "the focus is in the dialog");
			if (how === "Escape") await page.keyboard.press("Escape");
			else await dialog().getByRole("button", { name: "Cancel" }).click();
			await dialog().waitFor({ state: "hidden" });
			const now = await focused(page);
			assert.equal(now.tag, "button");
			assert.equal(now.text, button);
		});
	}

	test("files are listed by their type in words, with a proper plural, in English and German", async () => {
		const row = (name: string) => page.locator("main tbody tr", { hasText: name });
		assert.match(String(await row("notes.txt").textContent()), /Text file, 54 bytes/);
		assert.match(String(await row("one.txt").textContent()), /Text file, 1 byte(?!s)/);
		assert.match(String(await row("lease.pdf").textContent()), /PDF document, 15 bytes/);
		assert.doesNotMatch(String(await page.locator("main").textContent()), /text\/plain|application\/pdf/);
		await page.locator("#lang-select").selectOption("de");
		await screenReady(page, "Tresor");
		assert.match(String(await row("notes.txt").textContent()), /Textdatei, 54 Byte/);
		assert.match(String(await row("lease.pdf").textContent()), /PDF-Dokument, 15 Byte/);
		await page.locator("#lang-select").selectOption("en");
		await screenReady(page, "Vault");
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	const named = (lang: "en" | "de") => async (p: Page) => {
		await p.getByRole("button", { name: lang === "de" ? "Neuer Eintrag" : "New entry" }).click();
		await p.getByRole("dialog").waitFor();
		await p.keyboard.type(lang === "de" ? "Bankverbindung" : "Bank details");
	};
	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const size = viewport === PHONE ? "phone" : "desktop";
			test(`axe-core: the vault with files and the entry dialog named first (${lang}, ${size})`, async () => {
				const found: string[] = [];
				for (const [name, prepare] of [
					["vault-files", undefined],
					["vault-entry-named", named(lang)],
				] as const) {
					const violations = await axeCheck(browser, `${server.origin}/app/vault`, {
						token,
						lang,
						viewport,
						...(prepare ? { prepare } : {}),
						...(lang === "en" ? { screenshot: name } : {}),
					});
					if (violations.length > 0) found.push(`${name}:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}
});
