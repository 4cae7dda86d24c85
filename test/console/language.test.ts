// The console's language from the browser (docs/console.md "Catalogs"): with no choice stored
// (`svc.lang`), a browser whose language is German (navigator.languages and Accept-Language) gets
// the console in German, signed out and signed in, and the front page too; an English browser gets
// English. Choosing a language is journeys.test.ts.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import {
	Device,
	launchBrowser,
	type Server,
	screenReady,
	setSessionToken,
	signedUpAccount,
	startServer,
} from "../helpers/browser.ts";

describe("the console's language from the browser", { timeout: 120_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;

	before(async () => {
		server = await startServer({ allowSignups: true });
		browser = await launchBrowser();
		({ token } = await signedUpAccount(server, "greta@example.org"));
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("a German browser with no stored choice gets German: the front page, sign-in, and the signed-in console", async () => {
		const device = await Device.create(browser, { locale: "de-DE" });
		const accepted: string[] = [];
		device.context.on("request", (r) => {
			if (new URL(r.url()).pathname === "/") accepted.push(String(r.headers()["accept-language"]));
		});
		const page = await device.open(`${server.origin}/`);
		assert.match(accepted[0] ?? "", /^de\b/, "the browser asks for German");
		assert.equal(await page.locator("html").getAttribute("lang"), "de");
		await page.getByRole("link", { name: "Anmelden" }).first().waitFor();

		await page.goto(`${server.origin}/app/signin`);
		await screenReady(page, "Anmelden");
		assert.equal(
			await page.evaluate<string | null>('localStorage.getItem("svc.lang")'),
			null,
			"nothing stored",
		);
		assert.equal(await page.evaluate<string>("navigator.language"), "de-DE");
		assert.equal(await page.locator("html").getAttribute("lang"), "de");
		await page.getByRole("button", { name: "Mit Passkey anmelden" }).waitFor();

		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/notifications`);
		await screenReady(page, "Benachrichtigungen");
		assert.equal(await page.locator("html").getAttribute("lang"), "de");
		await page
			.getByRole("navigation", { name: "Hauptmenü" })
			.getByRole("link", { name: "API-Schlüssel" })
			.waitFor();
		assert.equal(await page.getByLabel("Sprache").inputValue(), "de", "the switch shows the language in use");
		assert.equal(
			await page.evaluate<string | null>('localStorage.getItem("svc.lang")'),
			null,
			"still nothing stored",
		);
		assert.deepEqual(device.unexpectedErrors(), []);
		await device.close();
	});

	test("an English browser with no stored choice gets English", async () => {
		const device = await Device.create(browser, { locale: "en-US" });
		const page = await device.open(`${server.origin}/app/signin`);
		await screenReady(page, "Sign in");
		assert.equal(await page.locator("html").getAttribute("lang"), "en");
		await page.getByRole("button", { name: "Sign in with a passkey" }).waitFor();
		await device.close();
	});
});
