// The templates screen in Chromium: an owner creates a template with three fields (keys made from
// the labels, types and required chosen), sees it listed, edits it (renames, moves a field up,
// removes one), is told in words when two fields share a key, and deletes it; each step is checked
// through the API. Then axe-core on the list and the editor (en and de, desktop and phone).
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

interface Tpl {
	id: string;
	name: string;
	items: { key: string; label: string; type: string; required: boolean; description?: string }[];
}

describe("the templates screen", { timeout: 300_000 }, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "tom@example.org"));
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/templates`);
		await screenReady(page, "Templates");
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	async function stored(): Promise<Tpl[]> {
		const res = await apiCall(server, token, "GET", "/api/collections/templates/records");
		assert.equal(res.status, 200);
		return ((await res.json()) as { items: Tpl[] }).items;
	}
	const field = (n: number) => page.locator("main li.tpl-item").nth(n);

	test("a template with three fields is created and listed", async () => {
		assert.match(String(await page.locator("main").textContent()), /No templates yet/);
		await page.getByRole("link", { name: "New template" }).click();
		await screenReady(page, "New template");
		await page.getByRole("button", { name: "Create the template" }).click();
		assert.match(String(await page.locator("main").textContent()), /Enter a name\./);
		assert.equal((await focused(page)).tag, "input", "the first invalid field takes the focus");

		await page.getByLabel("Name", { exact: false }).first().fill("Tenant application");
		await field(0).getByLabel("Label").fill("Full name");
		assert.equal(await field(0).getByLabel("Key").inputValue(), "full_name");
		await field(0).getByLabel("Required", { exact: true }).check();
		await page.getByRole("button", { name: "Add a field" }).click();
		assert.equal((await focused(page)).tag, "input", "the new field's label takes the focus");
		await page.keyboard.type("Email");
		await field(1).getByLabel("Type").selectOption({ label: "Email address" });
		await page.getByRole("button", { name: "Add a field" }).click();
		await field(2).getByLabel("Label").fill("Payslip");
		await field(2).getByLabel("Type").selectOption("file");
		await field(2).getByLabel("Description (optional)").fill("The last three months.");
		await page.getByRole("button", { name: "Create the template" }).click();
		await screenReady(page, "Templates");
		const row = page.locator("main tbody tr", { hasText: "Tenant application" });
		await row.waitFor();
		assert.match(String(await row.textContent()), /3 fields.*Full name, Email, Payslip/);

		const [tpl] = await stored();
		assert.equal(tpl?.name, "Tenant application");
		assert.deepEqual(tpl?.items, [
			{ key: "full_name", label: "Full name", type: "text", required: true },
			{ key: "email", label: "Email", type: "email", required: false },
			{
				key: "payslip",
				label: "Payslip",
				type: "file",
				required: false,
				description: "The last three months.",
			},
		]);
	});

	test("edited: renamed, a field moved up and one removed; a repeated key refused in words", async () => {
		await page.getByRole("link", { name: "Edit Tenant application" }).click();
		await screenReady(page, "Edit “Tenant application”");
		await page.getByLabel("Name", { exact: false }).first().fill("Tenancy");
		await field(1).getByLabel("Key").fill("full_name");
		await page.getByRole("button", { name: "Save" }).click();
		await field(1).getByText("Field 1 has this key already").waitFor();
		await field(1).getByLabel("Key").fill("email");

		await page.getByRole("button", { name: "Move up: Field 3: Payslip" }).click();
		assert.equal((await focused(page)).text, "Move up", "focus stays on the moved field's button");
		await page.getByRole("button", { name: "Remove Field 1: Full name" }).click();
		await page.getByRole("button", { name: "Save" }).click();
		await screenReady(page, "Templates");
		await page.locator("main tbody tr", { hasText: "Tenancy" }).waitFor();
		const [tpl] = await stored();
		assert.equal(tpl?.name, "Tenancy");
		assert.deepEqual(
			tpl?.items.map((i) => i.key),
			["payslip", "email"],
		);
	});

	test("deleted after a confirmation", async () => {
		await page.getByRole("button", { name: "Delete Tenancy" }).click();
		assert.match(String(await page.getByRole("dialog").textContent()), /keep their fields/);
		await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
		await page.getByText("No templates yet").waitFor({ timeout: 60_000 });
		assert.equal((await focused(page)).tag, "h1");
		assert.deepEqual(await stored(), []);
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	test("axe finds no WCAG 2.2 AA violation on the list and the editor (en and de, desktop and phone)", async () => {
		await apiCall(server, token, "POST", "/api/collections/templates/records", {
			name: "Tenant application",
			items: [
				{ key: "full_name", label: "Full name", type: "text", required: true },
				{ key: "iban", label: "IBAN", type: "text", required: false, description: "For the deposit." },
			],
		});
		const [tpl] = await stored();
		const found: string[] = [];
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				for (const [name, path] of [
					["templates", "/app/templates"],
					["templates-edit", `/app/templates/${tpl?.id}`],
				] as const) {
					const violations = await axeCheck(browser, `${server.origin}${path}`, {
						token,
						lang,
						viewport,
						...(lang === "en" ? { screenshot: name } : {}),
					});
					if (violations.length > 0)
						found.push(`${path} (${lang}, ${viewport.width}):\n${describeViolations(violations)}`);
				}
			}
		}
		assert.deepEqual(found, [], found.join("\n\n"));
	});
});
