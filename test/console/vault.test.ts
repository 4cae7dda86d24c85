// The vault screen in Chromium: an owner makes sections (a taken key is refused in words), reorders
// them, adds a text entry, a hidden entry (masked until shown) and an alias, edits a value, uploads
// a file through the file input (the progress bar reaches 100 %) and by a drop, downloads and
// replaces it, deletes what others alias (refused) and what they do not, and searches. Each step is
// checked through the API too. Then axe-core on the list and the dialogs (en and de, desktop and
// phone) and an entry created with the keyboard alone.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import fs from "node:fs";
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
	tabTo,
	ticketAccount,
} from "../helpers/browser.ts";

interface Rec {
	id: string;
	key: string;
	name: string;
	type: string;
	value: string | null;
	section: string | null;
	hidden: boolean;
	alias: string | null;
	file: { name: string; type: string; size: number } | null;
	version: number;
}
interface Sec {
	id: string;
	key: string;
	name: string;
	ordering: number;
}

describe("the vault screen", { timeout: 400_000 }, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "vera@example.org"));
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

	async function list<T>(name: string): Promise<T[]> {
		const res = await apiCall(server, token, "GET", `/api/collections/${name}/records?perPage=1000`);
		assert.equal(res.status, 200);
		return ((await res.json()) as { items: T[] }).items;
	}
	const byKey = async (key: string) => (await list<Rec>("records")).find((r) => r.key === key);
	const dialog = () => page.getByRole("dialog");
	const group = (name: string) => page.locator("main section", { has: page.getByRole("heading", { name }) });
	const row = (text: string) => page.locator("main tbody tr", { hasText: text });

	async function closed() {
		await dialog().waitFor({ state: "hidden", timeout: 60_000 });
	}

	test("sections: made from a name, a taken key refused in words, moved up", async () => {
		assert.match(String(await page.locator("main").textContent()), /Your vault is empty/);
		for (const name of ["Bank", "Home"]) {
			await page.getByRole("button", { name: "New section" }).click();
			await dialog().getByLabel("Name").fill(name);
			assert.equal(await dialog().getByLabel("Key").inputValue(), name.toLowerCase());
			await dialog().getByRole("button", { name: "Add the section" }).click();
			await closed();
			await page.getByRole("heading", { level: 2, name }).waitFor();
		}

		await page.getByRole("button", { name: "New section" }).click();
		await dialog().getByLabel("Name").fill("Banking");
		await dialog().getByLabel("Key").fill("bank");
		await dialog().getByRole("button", { name: "Add the section" }).click();
		const refusal = dialog().locator(".field-error");
		await refusal.waitFor({ timeout: 60_000 });
		assert.match(String(await refusal.textContent()), /A section with the key “bank” exists already/);
		// The code stays out of sight: people read the sentence.
		assert.equal(await dialog().getByRole("alert").getAttribute("data-code"), "conflict");
		assert.doesNotMatch(String(await dialog().getByRole("alert").textContent()), /conflict/);
		await dialog().getByRole("button", { name: "Cancel" }).click();
		await closed();

		await page.getByRole("button", { name: "Move up: section Home" }).click();
		await page.locator("main h2").first().filter({ hasText: "Home" }).waitFor({ timeout: 60_000 });
		const down = page.getByRole("button", { name: "Move down: section Home" });
		assert.equal((await focused(page)).text, "Move down", "focus stays on the moved section");
		assert.equal(await down.isEnabled(), true);
		const sections = (await list<Sec>("sections")).sort((a, b) => a.ordering - b.ordering);
		assert.deepEqual(
			sections.map((s) => s.key),
			["home", "bank"],
		);
	});

	test("a text entry, a hidden entry masked until shown, and an alias of the first", async () => {
		await page.getByRole("button", { name: "New entry" }).click();
		await dialog().getByLabel("Key").fill("iban");
		await dialog().getByLabel("Name").fill("IBAN");
		await dialog().getByLabel("Value").fill("DE00 1234");
		await dialog().getByLabel("Section").selectOption({ label: "Bank" });
		await dialog().getByRole("button", { name: "Add the entry" }).click();
		await closed();
		await group("Bank").locator("tbody tr", { hasText: "DE00 1234" }).waitFor();

		await page.getByRole("button", { name: "New entry" }).click();
		await dialog().getByLabel("Key").fill("pin");
		await dialog().getByLabel("Value").fill("4711");
		await dialog().getByLabel("Hidden").check();
		await dialog().getByRole("button", { name: "Add the entry" }).click();
		await closed();
		const pin = row("pin");
		await pin.waitFor();
		assert.doesNotMatch(String(await pin.textContent()), /4711/, "a hidden value is masked");
		assert.match(String(await pin.textContent()), /Hidden value/);
		await pin.getByRole("button", { name: "Show the value of pin" }).click();
		await pin.getByText("4711").waitFor();
		await pin.getByRole("button", { name: "Hide the value of pin" }).click();
		await pin.getByText("4711").waitFor({ state: "detached" });

		await page.getByRole("button", { name: "New entry" }).click();
		await dialog().getByLabel("Key").fill("payout-iban");
		await dialog().getByLabel("Alias").check();
		await dialog().getByRole("button", { name: "Add the entry" }).click();
		assert.match(String(await dialog().textContent()), /Choose the entry this alias shows/);
		await dialog().getByLabel("Entry it shows").selectOption({ label: "IBAN (iban)" });
		await dialog().getByRole("button", { name: "Add the entry" }).click();
		await closed();
		const alias = row("payout-iban");
		await alias.waitFor();
		assert.match(String(await alias.textContent()), /Value of “IBAN”.*DE00 1234/);

		const iban = await byKey("iban");
		const sections = await list<Sec>("sections");
		assert.equal(iban?.section, sections.find((s) => s.key === "bank")?.id);
		assert.equal(iban?.name, "IBAN");
		const stored = await byKey("pin");
		assert.equal(stored?.hidden, true);
		assert.equal(stored?.value, "4711");
		assert.equal(stored?.name, "pin", "the name defaults to the key");
		const payout = await byKey("payout-iban");
		assert.equal(payout?.alias, iban?.id);
		assert.equal(payout?.value, "DE00 1234");
	});

	test("a value edited shows at once, on the entry and its alias", async () => {
		await row("iban").first().getByRole("button", { name: "Edit IBAN" }).click();
		assert.equal(await dialog().getByLabel("Value").inputValue(), "DE00 1234");
		await dialog().getByLabel("Value").fill("DE99 9999");
		await dialog().getByRole("button", { name: "Save" }).click();
		await closed();
		await row("payout-iban").getByText("DE99 9999").waitFor();
		await group("Bank").getByText("DE99 9999").waitFor();
		const iban = await byKey("iban");
		assert.equal(iban?.value, "DE99 9999");
		assert.equal(iban?.version, 2);
	});

	test("a file: chosen with the file input, uploaded with progress, listed, downloaded, replaced", async () => {
		await page.getByRole("button", { name: "Add a file" }).click();
		await dialog()
			.getByLabel("Choose a file")
			.setInputFiles({
				name: "Lease 2025.txt",
				mimeType: "text/plain",
				buffer: Buffer.from("The lease, signed.\n"),
			});
		assert.equal(await dialog().getByLabel("Key").inputValue(), "lease-2025");
		await dialog().getByLabel("Section").selectOption({ label: "Home" });
		await dialog().getByRole("button", { name: "Upload" }).click();
		const progress = dialog().getByLabel("Upload progress");
		await dialog().getByText("“Lease 2025.txt” is in the vault.").waitFor({ timeout: 60_000 });
		assert.equal(await progress.getAttribute("value"), "100");
		assert.equal((await focused(page)).text, "Done", "Done takes the focus");
		await dialog().getByRole("button", { name: "Done" }).click();
		await closed();
		const lease = group("Home").locator("tbody tr", { hasText: "Lease 2025.txt" });
		await lease.waitFor();
		assert.match(String(await lease.textContent()), /Text file, 19 bytes/);

		const stored = await byKey("lease-2025");
		assert.equal(stored?.type, "file");
		assert.equal(stored?.file?.size, 19);
		assert.equal(stored?.section, (await list<Sec>("sections")).find((s) => s.key === "home")?.id);

		const [download] = await Promise.all([
			page.waitForEvent("download", { timeout: 60_000 }),
			lease.getByRole("button", { name: "Download Lease 2025.txt" }).click(),
		]);
		assert.equal(download.suggestedFilename(), "Lease 2025.txt");
		assert.equal(fs.readFileSync(await download.path(), "utf8"), "The lease, signed.\n");

		await lease.getByRole("button", { name: "Replace file of Lease 2025.txt" }).click();
		await dialog()
			.getByLabel("Choose a file")
			.setInputFiles({
				name: "lease-final.txt",
				mimeType: "text/plain",
				buffer: Buffer.from("The final lease.\n"),
			});
		await dialog().getByRole("button", { name: "Upload" }).click();
		await dialog().getByText("The file was replaced with “lease-final.txt”.").waitFor({ timeout: 60_000 });
		await dialog().getByRole("button", { name: "Done" }).click();
		await closed();
		await row("lease-final.txt").waitFor();
		const replaced = await byKey("lease-2025");
		assert.equal(replaced?.id, stored?.id);
		assert.equal(replaced?.file?.name, "lease-final.txt");
		assert.equal(replaced?.file?.size, 17);
	});

	test("a file dropped on the drop zone is chosen like one from the input", async () => {
		await page.getByRole("button", { name: "Add a file" }).click();
		const zone = dialog().locator("fieldset.vault-drop");
		const transfer = await page.evaluateHandle(`(() => {
			const t = new DataTransfer();
			t.items.add(new File(["dropped bytes"], "dropped.txt", { type: "text/plain" }));
			return t;
		})()`);
		await zone.dispatchEvent("dragenter", { dataTransfer: transfer });
		assert.match(String(await zone.textContent()), /Drop the file to choose it/);
		await zone.dispatchEvent("drop", { dataTransfer: transfer });
		await dialog().getByText("Chosen: dropped.txt (13 bytes)").waitFor();
		assert.equal(await dialog().getByLabel("Key").inputValue(), "dropped");
		await dialog().getByRole("button", { name: "Upload" }).click();
		await dialog().getByRole("button", { name: "Done" }).click();
		await closed();
		await row("dropped.txt").waitFor();
		assert.equal((await byKey("dropped"))?.file?.size, 13);
	});

	test("search by key or name narrows the list and says how many match", async () => {
		await page.getByLabel("Search by key or name").fill("PIN");
		await page.getByText("1 entry matches").waitFor();
		assert.equal(await page.locator("main tbody tr").count(), 1);
		await page.getByLabel("Search by key or name").fill("");
		await row("dropped.txt").waitFor();
	});

	test("deleting: an aliased entry is refused in words; the alias, then a section, go", async () => {
		await group("Bank").getByRole("button", { name: "Delete IBAN" }).click();
		await dialog().getByRole("button", { name: "Delete" }).click();
		const refusal = page.locator("main .alert-error").first();
		await refusal.waitFor({ timeout: 60_000 });
		assert.match(String(await refusal.textContent()), /Other entries are aliases of “IBAN”/);
		assert.ok(await byKey("iban"), "nothing was deleted");

		await row("payout-iban").getByRole("button", { name: "Delete payout-iban" }).click();
		await dialog().getByRole("button", { name: "Delete" }).click();
		await row("payout-iban").waitFor({ state: "detached", timeout: 60_000 });
		assert.equal(await byKey("payout-iban"), undefined);

		await page.getByRole("button", { name: "Delete section Bank" }).click();
		assert.match(String(await dialog().textContent()), /Its entries stay in the vault/);
		await dialog().getByRole("button", { name: "Delete" }).click();
		await page.getByRole("heading", { level: 2, name: "Bank" }).waitFor({ state: "detached" });
		await group("Without a section").getByText("DE99 9999").waitFor();
		assert.equal((await focused(page)).tag, "h1", "the heading takes the focus");
		assert.deepEqual(
			(await list<Sec>("sections")).map((s) => s.key),
			["home"],
		);
		assert.equal((await byKey("iban"))?.section, null);
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	test("an entry created with the keyboard alone", async () => {
		await page.reload();
		await screenReady(page, "Vault");
		assert.ok(await tabTo(page, page.getByRole("button", { name: "New entry" })));
		await page.keyboard.press("Enter");
		await dialog().getByLabel("Key").waitFor();
		assert.equal((await focused(page)).tag, "input", "focus moves into the dialog");
		await page.keyboard.type("phone");
		assert.ok(await tabTo(page, dialog().getByLabel("Value")));
		await page.keyboard.type("+49 30 123456");
		assert.ok(await tabTo(page, dialog().getByLabel("Hidden")));
		await page.keyboard.press("Space");
		assert.ok(await tabTo(page, dialog().getByRole("button", { name: "Add the entry" })));
		const outline = (await focused(page)).outlineStyle;
		assert.notEqual(outline, "none", "focus is visible");
		await page.keyboard.press("Enter");
		await closed();
		await row("phone").waitFor();
		const phone = await byKey("phone");
		assert.equal(phone?.value, "+49 30 123456");
		assert.equal(phone?.hidden, true);
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	const openDialog = (button: RegExp) => async (p: Page) => {
		await p.getByRole("button", { name: button }).first().click();
		await p.getByRole("dialog").waitFor();
	};
	const views = [
		{ name: "vault", prepare: undefined },
		{ name: "vault-entry", prepare: openDialog(/^(New entry|Neuer Eintrag)$/) },
		{ name: "vault-file", prepare: openDialog(/^(Add a file|Datei hinzufügen)$/) },
	];
	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const width = viewport === PHONE ? "phone" : "desktop";
			test(`axe finds no WCAG 2.2 AA violation on the vault and its dialogs (${lang}, ${width})`, async () => {
				const found: string[] = [];
				for (const v of views) {
					const violations = await axeCheck(browser, `${server.origin}/app/vault`, {
						token,
						lang,
						viewport,
						...(v.prepare ? { prepare: v.prepare } : {}),
						...(lang === "en" ? { screenshot: v.name } : {}),
					});
					if (violations.length > 0) found.push(`[${v.name}]:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}
});
