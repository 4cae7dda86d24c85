// The Export & import screen in Chromium: the owner downloads the export (a real download the
// browser saves; `unzip -t` checks it), brings contacts in from a vCard file (a bad card is listed
// by number and line and nothing can be imported; the fixed file is previewed and imported, then
// checked through the API), and in German a CSV's bad line is named "Zeile 3". Then axe-core on
// the screen, empty and with a preview, in English and German at 1280 and 390 px (screenshots with
// SCREENSHOTS=1).
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
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

const run = promisify(execFile);

const GOOD = [
	"BEGIN:VCARD",
	"VERSION:4.0",
	"FN:Ada Lovelace",
	"EMAIL;TYPE=work:ada@example.org",
	"END:VCARD",
	"BEGIN:VCARD",
	"VERSION:3.0",
	"FN:Charles Babbage",
	"TEL:+44 20 7946 0000",
	"END:VCARD",
	"",
].join("\r\n");
const BAD = GOOD.replace("FN:Charles Babbage\r\n", "");
const file = (name: string, text: string) => ({ name, mimeType: "text/plain", buffer: Buffer.from(text) });

describe("the export and import screen", { timeout: 300_000 }, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;
	let dir: string;

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "ada@example.org"));
		await apiCall(server, token, "POST", "/api/collections/records/records", {
			key: "iban",
			value: "DE89 3704",
		});
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/transfer`);
		await screenReady(page, "Export & import");
		dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-console-export-"));
	});
	after(async () => {
		await browser?.close();
		await server?.close();
		if (dir) fs.rmSync(dir, { recursive: true, force: true });
	});

	const records = async () =>
		(
			(await (
				await apiCall(server, token, "GET", "/api/collections/records/records?perPage=100")
			).json()) as {
				items: { key: string; value: string }[];
			}
		).items;

	test("the export downloads as a zip that unzip -t accepts", async () => {
		const [download] = await Promise.all([
			page.waitForEvent("download"),
			page.getByRole("button", { name: "Download the export" }).click(),
		]);
		assert.match(download.suggestedFilename(), /^vault-\d{4}-\d{2}-\d{2}\.zip$/);
		const saved = path.join(dir, "export.zip");
		await download.saveAs(saved);
		assert.match((await run("unzip", ["-t", saved])).stdout, /No errors detected/);
		const doc = JSON.parse((await run("unzip", ["-p", saved, "vault.json"])).stdout);
		assert.equal(doc.entries[0].value, "DE89 3704");
		await page
			.locator("main .alert-success")
			.filter({ hasText: /The export was downloaded as vault-/ })
			.waitFor();
	});

	test("contacts: a bad card is named and blocks the import; the fixed file is previewed and imported", async () => {
		await page.getByLabel("What the file is").selectOption("vcard");
		await page.getByRole("button", { name: "Check the file" }).click();
		assert.match(String(await page.locator("main").textContent()), /Choose a file\./);

		await page.getByLabel("File", { exact: true }).setInputFiles(file("contacts.vcf", BAD));
		await page.getByRole("button", { name: "Check the file" }).click();
		const alert = page.getByRole("alert").filter({ hasText: "nothing can be imported" });
		await alert.waitFor();
		assert.match(String(await alert.textContent()), /Contact 2 \(line 6\): has no name/);
		assert.equal(await page.getByRole("button", { name: /^Import \d/ }).count(), 0);

		await page.getByLabel("File", { exact: true }).setInputFiles(file("contacts.vcf", GOOD));
		await page.getByRole("button", { name: "Check the file" }).click();
		await page.getByRole("heading", { name: "What the import will make" }).waitFor();
		const main = String(await page.locator("main").textContent());
		assert.match(main, /4 entries \(0 files, 0 bytes\), 2 new sections, 0 templates\./);
		assert.match(main, /Ada Lovelace \(new\)/);
		assert.equal((await records()).length, 1, "a preview writes nothing");

		await page.getByRole("button", { name: "Import 4 entries" }).click();
		await page.getByText("4 entries were imported.").first().waitFor();
		const keys = (await records()).map((r) => r.key).sort();
		assert.deepEqual(keys, ["email", "iban", "name", "name", "phone"]);
		await page.getByRole("link", { name: "Open the vault" }).click();
		await screenReady(page, "Vault");
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	test("in German a CSV's bad line is named in German words", async () => {
		const de = await Device.create(browser, { locale: "de-DE" });
		try {
			const p = await de.open(`${server.origin}/app/signin`);
			await setSessionToken(p, token);
			await p.evaluate('localStorage.setItem("svc.lang", "de")');
			await p.goto(`${server.origin}/app/transfer`);
			await screenReady(p, "Export & Import");
			await p.getByLabel("Art der Datei").selectOption("csv");
			await p
				.getByLabel("Datei", { exact: true })
				.setInputFiles(file("liste.csv", "key,value\nok,1\nNicht Gut,2\n"));
			await p.getByRole("button", { name: "Datei prüfen" }).click();
			const alert = p.getByRole("alert").filter({ hasText: "Es kann nichts importiert werden" });
			await alert.waitFor();
			assert.match(String(await alert.textContent()), /Zeile 3: key "Nicht Gut"/);
		} finally {
			await de.close();
		}
	});

	test("axe finds no WCAG 2.2 AA violation, empty and with a preview (en and de, desktop and phone)", async () => {
		const preview = async (p: Page) => {
			await p.locator("main select").selectOption("vcard");
			await p.locator("main input[type=file]").setInputFiles(file("contacts.vcf", GOOD));
			await p.locator("main form button[type=submit]").click();
			await p.locator("main h3").waitFor();
		};
		const refused = async (p: Page) => {
			await p.locator("main select").selectOption("vcard");
			await p.locator("main input[type=file]").setInputFiles(file("contacts.vcf", BAD));
			await p.locator("main form button[type=submit]").click();
			await p.locator("main .transfer-refusals").waitFor();
		};
		const found: string[] = [];
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				for (const [name, prepare] of [
					["transfer", undefined],
					["transfer-preview", preview],
					["transfer-refused", refused],
				] as const) {
					const violations = await axeCheck(browser, `${server.origin}/app/transfer`, {
						token,
						lang,
						viewport,
						...(prepare ? { prepare } : {}),
						...(lang === "en" ? { screenshot: name } : {}),
					});
					if (violations.length > 0)
						found.push(`${name} (${lang}, ${viewport.width}):\n${describeViolations(violations)}`);
				}
			}
		}
		assert.deepEqual(found, []);
	});
});
