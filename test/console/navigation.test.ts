// The console's frame on a phone and on a wide screen (issue 40.10), with the defaults (sign-ups
// off): at 390 px the header is one row (the name and a Menu button) and the first screen is the
// screen's own content; the Menu button is a disclosure (aria-expanded, aria-controls) that opens
// the controls and the navigation, by mouse and by keyboard, closes on Escape with the focus back
// on it and after a move, and carries the unread count. "Notifications" is linked once. At 1280 px
// the header stays one row with a long workspace name and a long address. axe-core with the menu
// closed and open, in English and German, at 1280 and 390 px.
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
	tabTo,
	ticketAccount,
} from "../helpers/browser.ts";

const LONG_NAME = "Lovelace & Babbage Analytical Engine Society of Greater London";

describe("the console's frame: a Menu button on phones, one header row on wide screens", {
	timeout: 300_000,
}, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "augusta.ada.king.countess.of.lovelace@example.org"));
		const mine = (await (
			await apiCall(server, token, "GET", "/api/collections/workspaces/records")
		).json()) as {
			items: { id: string }[];
		};
		const personal = mine.items[0]?.id;
		assert.ok(personal);
		const renamed = await apiCall(server, token, "PATCH", `/api/collections/workspaces/records/${personal}`, {
			name: LONG_NAME,
		});
		assert.equal(renamed.status, 200, await renamed.clone().text());
		// One unread notification: a revoked share raises one.
		const share = (await (
			await apiCall(server, token, "POST", "/api/collections/links/records", { label: "Old" })
		).json()) as { id: string };
		await apiCall(server, token, "PATCH", `/api/collections/links/records/${share.id}`, {
			status: "revoked",
		});
		device = await Device.create(browser, { viewport: PHONE });
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/shares`);
		await screenReady(page, "Shares");
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	const menu = () => page.getByRole("button", { name: /^Menu/ });
	const nav = () => page.getByRole("navigation", { name: "Main" });
	const notificationLinks = () => page.getByRole("link", { name: /^Notifications/ });

	test("390 px: one header row, the screen's heading on the first screen, the menu folded", async () => {
		const header = await page.locator("header.topbar").boundingBox();
		assert.ok(header && header.height <= 72, `header height ${header?.height}`);
		const heading = await page.locator("main h1").boundingBox();
		assert.ok(heading && heading.y < 160, `the heading starts at ${heading?.y}`);
		assert.equal(await nav().isVisible(), false);
		assert.equal(await menu().getAttribute("aria-expanded"), "false");
		assert.deepEqual((await menu().getAttribute("aria-controls"))?.split(" "), [
			"console-controls",
			"console-nav",
		]);
		// The unread count rides on the Menu button, named for screen readers.
		await menu().locator(".count").waitFor();
		assert.match(String(await menu().textContent()), /Menu\s*1\s*unread notifications/);
		assert.equal(await notificationLinks().count(), 0, "no Notifications link while folded");
	});

	test("390 px: the menu by keyboard: open, a link, Escape gives the focus back; a move folds it", async () => {
		assert.ok(await tabTo(page, menu()));
		await page.keyboard.press("Enter");
		assert.equal(await menu().getAttribute("aria-expanded"), "true");
		await nav().waitFor();
		assert.equal(await notificationLinks().count(), 1, "Notifications linked once");
		assert.equal(await page.getByLabel("Workspace").isVisible(), true);
		assert.equal(await page.getByRole("button", { name: "Sign out" }).isVisible(), true);
		assert.ok(await tabTo(page, nav().getByRole("link", { name: "Vault" })));
		await page.keyboard.press("Escape");
		assert.equal(await menu().getAttribute("aria-expanded"), "false");
		assert.equal((await focused(page)).text.startsWith("Menu"), true, "the focus is back on Menu");
		assert.equal(await nav().isVisible(), false);

		await menu().click();
		await nav().getByRole("link", { name: "Vault" }).click();
		await screenReady(page, "Vault");
		assert.equal(await menu().getAttribute("aria-expanded"), "false", "a move folds the menu");
		assert.equal(await nav().isVisible(), false);
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	test("1280 px: one header row with a long workspace name; no Menu button; Notifications once", async () => {
		await page.setViewportSize(DESKTOP);
		await nav().waitFor();
		assert.equal(await menu().isVisible(), false);
		const header = await page.locator("header.topbar").boundingBox();
		assert.ok(header && header.height <= 64, `header height ${header?.height}`);
		const boxes = await page.evaluate<{ top: number; bottom: number; name: string }[]>(`
			[...document.querySelectorAll("header.topbar .brand, header.topbar .control, header.topbar .notif-link, header.topbar .account")]
				.map((el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, name: el.className }; })`);
		const tops = boxes.map((b) => b.top);
		assert.ok(Math.max(...tops) - Math.min(...tops) < 20, `one row: ${JSON.stringify(boxes)}`);
		const select = page.getByLabel("Workspace");
		assert.match(String(await select.locator("option:checked").textContent()), /Lovelace & Babbage/);
		const right = await page.evaluate<number>(
			'Math.max(...[...document.querySelectorAll("header.topbar *")].map((e) => e.getBoundingClientRect().right))',
		);
		assert.ok(right <= DESKTOP.width, `nothing overflows the header: ${right}`);
		assert.equal(await notificationLinks().count(), 1, "Notifications linked once");
		await page.setViewportSize(PHONE);
	});

	const opened = async (p: Page) => {
		await p.getByRole("button", { name: /^(Menu|Menü)/ }).click();
		await p.getByRole("navigation").waitFor();
	};
	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const size = viewport === PHONE ? "phone" : "desktop";
			test(`axe-core: the frame, and on a phone with the menu open (${lang}, ${size})`, async () => {
				const found: string[] = [];
				const views =
					viewport === PHONE
						? ([
								["shell", undefined],
								["shell-menu", opened],
							] as const)
						: ([["shell", undefined]] as const);
				for (const [name, prepare] of views) {
					const violations = await axeCheck(browser, `${server.origin}/app/shares`, {
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
