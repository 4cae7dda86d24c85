// The owner's notices in the console (issue 40 item 8), in Chromium: a share used up, a request
// answered, a share revoked, each said in the reader's language with a link that opens the thing
// it is about; the way from the notifications screen to the account's settings, where a kind is
// turned off (saved at once, announced, kept across a reload) and then raises nothing. axe-core
// in English and German at 1280 and 390 px on both screens, with notices on them.
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

describe("notices in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;
	let responder: string;
	let usedUp: string;

	const api = async (method: string, url: string, body?: unknown, as = token) => {
		const res = await apiCall(server, as, method, url, body);
		assert.ok(res.ok, `${method} ${url}: ${res.status} ${await res.clone().text()}`);
		return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
	};

	/** A share of one entry, capped at one view, and that view taken: it is used up. */
	async function spentShare(label: string): Promise<string> {
		const rec = await api("POST", "/api/collections/records/records", { key: `k${Date.now()}`, value: "v" });
		const link = await api("POST", "/api/collections/links/records", {
			records: [rec.id],
			maxViews: 1,
			label,
		});
		const read = await fetch(`${server.api}/api/public/links/${link.slug}`, { method: "POST" });
		assert.equal(read.status, 200);
		return String(link.id);
	}

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		token = (await ticketAccount(server, "olivia@example.org")).token;
		responder = (await ticketAccount(server, "sam@example.org")).token;

		usedUp = await spentShare("Payslips for the flat");
		const req = await api("POST", "/api/collections/requests/records", {
			label: "Tenant application",
			items: [{ key: "name", label: "Name", type: "text", required: true }],
		});
		await api(
			"POST",
			`/api/public/requests/${req.slug}`,
			{ values: { name: "Sam" }, senderName: "Sam" },
			responder,
		);
		const revoked = await api("POST", "/api/collections/links/records", { label: "Old lease" });
		await api("PATCH", `/api/collections/links/records/${revoked.id}`, { status: "revoked" });

		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("each notice says what happened and links to the thing it is about", async () => {
		await page.goto(`${server.origin}/app/notifications`);
		await screenReady(page, "Notifications");
		const cards = page.locator("main li.card");
		assert.equal(await cards.count(), 3);
		const text = String(await page.locator("main ul").textContent());
		assert.match(text, /A share ran out of views or expired/);
		assert.match(text, /The one view of “Payslips for the flat” was taken/);
		assert.match(text, /A request was answered/);
		assert.match(text, /Sam answered “Tenant application”/);
		assert.match(text, /“Old lease” was revoked/);
		assert.doesNotMatch(text, /link_expired|request_answered|link_revoked/, "no raw codes");

		const card = cards.filter({ hasText: "Payslips for the flat" });
		await card.getByRole("link", { name: "Open the share" }).click();
		await page.waitForURL(`${server.origin}/app/shares/${usedUp}`);
		await screenReady(page, "Payslips for the flat");
		assert.deepEqual(device.unexpectedErrors(), []);

		await page.goto(`${server.origin}/app/notifications`);
		await screenReady(page, "Notifications");
		await cards
			.filter({ hasText: "Tenant application" })
			.getByRole("link", { name: "Open the request" })
			.click();
		await screenReady(page, "Tenant application");
	});

	test("turned off in the account: saved at once, kept on reload, and nothing of that kind is raised", async () => {
		await page.goto(`${server.origin}/app/notifications`);
		await screenReady(page, "Notifications");
		await page.getByRole("link", { name: "Choose which notifications you get" }).click();
		await screenReady(page, "Account");
		const heading = page.getByRole("heading", { level: 2, name: "Notifications" });
		await heading.waitFor();
		assert.equal(
			await page.evaluate<boolean>('document.activeElement?.id === "account-notices-title"'),
			true,
			"the settings have focus",
		);

		const box = page.getByRole("checkbox", { name: "A share ran out of views or expired" });
		assert.equal(await box.isChecked(), true, "on by default");
		await box.uncheck();
		await page
			.locator("[aria-live]")
			.filter({ hasText: "You will no longer be notified: A share ran out of views or expired" })
			.waitFor();
		await page.reload();
		await screenReady(page, "Account");
		assert.equal(
			await page.getByRole("checkbox", { name: "A share ran out of views or expired" }).isChecked(),
			false,
		);
		assert.equal(await page.getByRole("checkbox", { name: "A request was answered" }).isChecked(), true);
		const settings = await api("GET", "/api/notifications/settings");
		assert.equal((settings.inApp as Record<string, boolean>).link_expired, false);

		const quiet = await spentShare("Quiet share");
		const list = (await api("GET", "/api/collections/notifications/records?perPage=100")) as {
			items: { data: { link?: string } }[];
		};
		assert.equal(list.items.filter((n) => n.data.link === quiet).length, 0);
		assert.equal(list.items.filter((n) => n.data.link === usedUp).length, 1, "those already raised stay");

		await page.getByRole("checkbox", { name: "A share ran out of views or expired" }).check();
		await page.locator("[aria-live]").filter({ hasText: "You will be notified" }).waitFor();
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const size = viewport === PHONE ? "phone" : "desktop";
			test(`axe-core: no violations on the notifications and the account screens (${lang}, ${size})`, async () => {
				const found: string[] = [];
				for (const [path, name] of [
					["/app/notifications", "notifications-list"],
					["/app/account#notices", "account-notices"],
				] as const) {
					const violations = await axeCheck(browser, `${server.origin}${path}`, {
						token,
						lang,
						viewport,
						prepare: async (p) => {
							if (lang === "de") {
								const text = String(await p.locator("main").textContent());
								assert.doesNotMatch(text, /A share|Open the|Tell me when/, "no English left");
							}
						},
						screenshot: `${name}-${lang}`,
					});
					if (violations.length > 0) found.push(`${path}:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}
});
