// WCAG 2.2 AA: axe-core finds no violation on any console screen (the front page and the operator's
// ticket page too), in English and German, at desktop and phone width; the console works by
// keyboard with a visible focus.
// With SCREENSHOTS=1 it also writes docs/screenshots/console-<screen>-<desktop|phone>.png.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
	addAuthenticator,
	apiCall,
	axeCheck,
	DESKTOP,
	Device,
	describeViolations,
	focused,
	launchBrowser,
	operatorTicket,
	PHONE,
	type Server,
	screenReady,
	setSessionToken,
	signedUpAccount,
	startServer,
	tabTo,
} from "../helpers/browser.ts";

describe("console accessibility", { timeout: 280_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;

	before(async () => {
		server = await startServer({ allowSignups: true });
		browser = await launchBrowser();
		({ token } = await signedUpAccount(server, "grace@example.org"));
		// Something in every list: an API key and a notification (a revoked share raises one).
		await apiCall(server, token, "POST", "/api/collections/apiKeys/records", {
			name: "CRM sync",
			permissions: ["links:read", "requests:read"],
		});
		const share = (await (
			await apiCall(server, token, "POST", "/api/collections/links/records", { label: "Lease" })
		).json()) as { id: string };
		await apiCall(server, token, "PATCH", `/api/collections/links/records/${share.id}`, {
			status: "revoked",
		});
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	const openDialog = (button: RegExp) => async (page: Page) => {
		await page.getByRole("button", { name: button }).first().click();
		await page.getByRole("dialog").waitFor();
		await page.locator("dialog .loading").waitFor({ state: "detached" });
	};

	const screens: {
		name: string;
		path: string;
		signedIn: boolean;
		prepare?: (page: Page) => Promise<void>;
	}[] = [
		{ name: "front", path: "/", signedIn: false },
		{ name: "signin", path: "/app/signin", signedIn: false },
		{ name: "signup", path: "/app/signup", signedIn: false },
		{ name: "passkeys", path: "/app/passkeys", signedIn: true },
		{
			name: "passkeys-add",
			path: "/app/passkeys",
			signedIn: true,
			prepare: openDialog(/another device|anderen Gerät/),
		},
		{ name: "apikeys", path: "/app/keys", signedIn: true },
		{
			name: "apikeys-create",
			path: "/app/keys",
			signedIn: true,
			prepare: openDialog(/^(Create an API key|API-Schlüssel erstellen)$/),
		},
		{ name: "notifications", path: "/app/notifications", signedIn: true },
		{ name: "not-found", path: "/app/nowhere", signedIn: true },
	];

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const width = viewport === PHONE ? "phone" : "desktop";
			test(`axe finds no WCAG 2.2 AA violation (${lang}, ${width})`, async () => {
				const found: string[] = [];
				for (const s of screens) {
					const violations = await axeCheck(browser, `${server.origin}${s.path}`, {
						lang,
						viewport,
						...(s.signedIn ? { token } : {}),
						...(s.prepare ? { prepare: s.prepare } : {}),
						// Screenshots in English only: one picture per screen and width.
						...(lang === "en" ? { screenshot: s.name } : {}),
					});
					if (violations.length > 0) found.push(`${s.path} [${s.name}]:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}

	test("the operator's ticket page (/passkey, README step 1): no violation before and after the passkey (en, de; desktop, phone)", async () => {
		// The browser's language (Accept-Language) picks the page's: English or German.
		const words = {
			en: { name: "Your name (optional)", create: "Create a passkey", console: "Open the console" },
			de: { name: "Ihr Name (optional)", create: "Passkey erstellen", console: "Konsole öffnen" },
		};
		const ready = (lang: "en" | "de") => async (page: Page) => {
			await page.locator("#start:not([disabled])").waitFor();
			assert.equal(await page.locator("html").getAttribute("lang"), lang);
		};
		const created = (lang: "en" | "de") => async (page: Page) => {
			await ready(lang)(page);
			await addAuthenticator(page);
			await page.getByLabel(words[lang].name).fill("Ada");
			await page.getByRole("button", { name: words[lang].create }).click();
			await page.getByRole("link", { name: words[lang].console }).waitFor({ timeout: 60_000 });
		};
		const found: string[] = [];
		// A ticket is spent by its passkey: each account made here has an address of its own.
		const made = ["example.org", "example.net", "example.com", "example.de"].map((d) => `ada@${d}`);
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				for (const [name, prepare] of [
					["passkey-ticket", ready(lang)],
					["passkey-ticket-done", created(lang)],
				] as const) {
					const email = name === "passkey-ticket-done" ? String(made.shift()) : "you@example.org";
					const violations = await axeCheck(browser, await operatorTicket(server, email), {
						lang,
						viewport,
						prepare,
						...(lang === "en" ? { screenshot: name } : {}),
					});
					if (violations.length > 0)
						found.push(`${name} (${lang}, ${viewport.width} px):\n${describeViolations(violations)}`);
				}
			}
		}
		assert.deepEqual(found, [], found.join("\n\n"));
	});

	test("by keyboard alone: skip link, navigation, and an API key created without a mouse", async () => {
		const device = await Device.create(browser);
		const page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/notifications`);
		await screenReady(page);

		// The first Tab reaches the skip link, visibly; Enter moves to the main content.
		await page.keyboard.press("Tab");
		const skip = await focused(page);
		assert.equal(skip.text, "Skip to content");
		assert.notEqual(skip.outlineStyle, "none", "focus is visible");
		assert.ok(skip.top >= 0, "the focused skip link is on screen");
		await page.keyboard.press("Enter");
		assert.equal((await focused(page)).id, "main");

		// Tab from the top reaches every navigation link, each with a visible focus outline.
		await page.reload();
		await screenReady(page);
		const reached: string[] = [];
		for (let i = 0; i < 30; i++) {
			await page.keyboard.press("Tab");
			const el = await focused(page);
			if (el.inNav) {
				reached.push(el.text);
				assert.notEqual(el.outlineStyle, "none", `focus visible on ${el.text}`);
			}
			if (el.text === "API keys" && el.inNav) break;
		}
		assert.ok(reached.includes("API keys"), `navigation by Tab: ${reached.join(", ")}`);
		await page.keyboard.press("Enter");
		await screenReady(page, "API keys");
		assert.equal((await focused(page)).tag, "h1", "focus moves to the new screen's heading");

		// Create a key: Tab to the button, Enter, type, Space to tick, Tab to submit, Enter.
		assert.ok(await tabTo(page, page.getByRole("button", { name: "Create an API key" })));
		await page.keyboard.press("Enter");
		const dialog = page.getByRole("dialog");
		await dialog.getByLabel("Name").waitFor();
		assert.equal((await focused(page)).tag, "input", "focus moves into the dialog");
		await page.keyboard.type("Keyboard key");
		const box = dialog.getByLabel("Read shares");
		assert.ok(await tabTo(page, box));
		await page.keyboard.press("Space");
		assert.equal(await box.isChecked(), true);
		assert.ok(await tabTo(page, dialog.getByRole("button", { name: "Create an API key" })));
		await page.keyboard.press("Enter");
		const shown = page.getByRole("dialog", { name: "Your new API key" });
		await shown.waitFor();
		assert.match(String(await shown.locator("code").textContent()), /^svc_/);
		await page.keyboard.press("Escape");
		await shown.waitFor({ state: "hidden" });
		await page.locator("main tbody tr", { hasText: "Keyboard key" }).waitFor();
		assert.deepEqual(device.unexpectedErrors(), []);
		await device.close();
	});
});
