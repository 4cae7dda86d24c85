// Workspaces in the console end to end: the owner creates one, renames it, makes it active (the
// header's switcher follows and every call names it), and deletes it after typing its name (the
// personal workspace cannot be deleted, and becomes active again). axe-core on the list, the create
// dialog and the delete dialog, in English and German, desktop and phone.
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

interface Workspace {
	id: string;
	name: string;
	personal: boolean;
	role: string;
	active: boolean;
}

describe("workspaces in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;
	let device: Device;
	let page: Page;
	let personal: Workspace;
	let family: Workspace;

	async function json<T>(res: Response | Promise<Response>): Promise<T> {
		const r = await res;
		assert.ok(r.ok, `${r.status} ${r.url} ${r.ok ? "" : await r.clone().text()}`);
		return (await r.json()) as T;
	}

	async function listed(): Promise<Workspace[]> {
		return (
			await json<{ items: Workspace[] }>(apiCall(server, token, "GET", "/api/collections/workspaces/records"))
		).items;
	}

	const row = (name: string) =>
		page.locator("main tbody tr", {
			has: page.locator(".workspace-name", { hasText: new RegExp(`^${name}$`) }),
		});
	const switcher = () => page.locator("#workspace-select");

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "ada@example.org"));
		const [mine] = await listed();
		assert.ok(mine);
		personal = mine;
		await json(
			apiCall(server, token, "POST", "/api/collections/workspaces/records", { name: "Side project" }),
		);
		device = await Device.create(browser);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("lists the account's workspaces; the personal one cannot be deleted", async () => {
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/workspaces`);
		await screenReady(page, "Workspaces");
		const mine = row(personal.name);
		await mine.waitFor();
		const text = String(await mine.textContent());
		assert.match(text, /Personal/);
		assert.match(text, /Owner/);
		assert.match(text, /Active/);
		assert.equal(await mine.getByRole("button", { name: /^Delete/ }).count(), 0);
		assert.equal(await mine.getByRole("button", { name: `Rename ${personal.name}` }).count(), 1);
		assert.equal(await row("Side project").getByRole("button", { name: "Delete Side project" }).count(), 1);
		assert.equal(
			await row("Side project").getByRole("button", { name: "Make active: Side project" }).count(),
			1,
		);
	});

	test("creates a workspace; the header's switcher lists it", async () => {
		await page.locator("main .page-actions").getByRole("button", { name: "Create a workspace" }).click();
		const dialog = page.getByRole("dialog", { name: "Create a workspace" });
		await dialog.waitFor();
		await dialog.getByRole("button", { name: "Create a workspace" }).click();
		await dialog.locator(".field-error", { hasText: "Enter a name." }).waitFor();
		await dialog.getByLabel(/^Name/).fill("Family");
		await dialog.getByRole("button", { name: "Create a workspace" }).click();
		await dialog.waitFor({ state: "hidden", timeout: 30_000 });
		await row("Family").waitFor({ timeout: 30_000 });
		assert.match(String(await row("Family").textContent()), /Owner/);

		const made = (await listed()).find((w) => w.name === "Family");
		assert.ok(made, "it exists");
		assert.equal(made.personal, false);
		assert.equal(made.role, "owner");
		family = made;
		await switcher()
			.locator("option", { hasText: /^Family$/ })
			.waitFor({ state: "attached", timeout: 30_000 });
	});

	test("renames it; the switcher follows", async () => {
		await row("Family").getByRole("button", { name: "Rename Family" }).click();
		const dialog = page.getByRole("dialog", { name: "Rename the workspace" });
		await dialog.waitFor();
		const field = dialog.getByLabel(/^Name/);
		assert.equal(await field.inputValue(), "Family", "starts from the current name");
		await field.fill("Family & friends");
		await dialog.getByRole("button", { name: "Save" }).click();
		await dialog.waitFor({ state: "hidden", timeout: 30_000 });
		await row("Family & friends").waitFor({ timeout: 30_000 });
		const renamed = (await listed()).find((w) => w.id === family.id);
		assert.equal(renamed?.name, "Family & friends");
		await switcher()
			.locator("option", { hasText: /^Family & friends$/ })
			.waitFor({ state: "attached", timeout: 30_000 });
	});

	test("makes it active: the switcher shows it and the calls name it", async () => {
		await row("Family & friends").getByRole("button", { name: "Make active: Family & friends" }).click();
		await screenReady(page, "Workspaces");
		await row("Family & friends").locator(".badge", { hasText: "Active" }).waitFor({ timeout: 30_000 });
		assert.equal(await switcher().inputValue(), family.id);
		assert.equal(await page.evaluate<string | null>('sessionStorage.getItem("svc.workspace")'), family.id);
		// `active` is the server's word on the X-Workspace the page sent.
		assert.equal(
			await row(personal.name)
				.getByRole("button", { name: `Make active: ${personal.name}` })
				.count(),
			1,
		);
	});

	test("deletes it after its name is typed; the personal workspace becomes active", async () => {
		await row("Family & friends").getByRole("button", { name: "Delete Family & friends" }).click();
		const dialog = page.getByRole("dialog", { name: "Delete this workspace?" });
		await dialog.waitFor();
		assert.match(String(await dialog.textContent()), /revokes every identity it issued/);
		const confirm = dialog.getByLabel("Type the workspace's name to confirm");
		await confirm.fill("Family");
		await dialog.getByRole("button", { name: "Delete" }).click();
		await dialog.locator(".field-error", { hasText: "Type “Family & friends” exactly." }).waitFor();
		assert.ok(
			(await listed()).some((w) => w.id === family.id),
			"nothing deleted yet",
		);

		await confirm.fill("Family & friends");
		await dialog.getByRole("button", { name: "Delete" }).click();
		await screenReady(page, "Workspaces");
		await row(personal.name).locator(".badge", { hasText: "Active" }).waitFor({ timeout: 30_000 });
		assert.equal(await row("Family & friends").count(), 0);
		assert.equal(
			(await listed()).some((w) => w.id === family.id),
			false,
		);
		assert.equal(await switcher().inputValue(), personal.id);
		assert.equal(await switcher().locator("option", { hasText: "Family" }).count(), 0);
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const width = viewport === PHONE ? "phone" : "desktop";
			test(`axe finds no WCAG 2.2 AA violation on the workspace screens (${lang}, ${width})`, async () => {
				const screens: { name: string; prepare?: (p: Page) => Promise<void> }[] = [
					{ name: "workspaces" },
					{
						name: "workspaces-create",
						prepare: async (p) => {
							await p.locator("main .page-actions .btn-primary").click();
							await p.getByRole("dialog").waitFor();
							await p.locator("dialog input").fill("Family");
						},
					},
					{
						name: "workspaces-delete",
						prepare: async (p) => {
							await p
								.locator("main tbody tr", { hasText: "Side project" })
								.locator(".row-actions button")
								.last()
								.click();
							await p.getByRole("dialog").waitFor();
						},
					},
				];
				const found: string[] = [];
				for (const s of screens) {
					const violations = await axeCheck(browser, `${server.origin}/app/workspaces`, {
						lang,
						viewport,
						token,
						...(s.prepare ? { prepare: s.prepare } : {}),
						...(lang === "en" ? { screenshot: s.name } : {}),
					});
					if (violations.length > 0) found.push(`${s.name}:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}

	test("no console errors on the way (a CSP violation would be one)", () => {
		assert.deepEqual(device.unexpectedErrors(), []);
	});
});
