// A new tab of the same browser picks up the signed-in session from an open tab (a BroadcastChannel
// hand-off), the token never reaches localStorage, another browser profile does not get it, and a
// sign-out in one tab ends the session in every tab that holds it.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
	apiCall,
	launchBrowser,
	type Server,
	screenReady,
	sessionTokenOf,
	setSessionToken,
	signedUpAccount,
	startServer,
} from "../helpers/browser.ts";

async function localStorageKeys(page: Page): Promise<string[]> {
	return page.evaluate<string[]>("Object.keys(localStorage)");
}

describe("the session across tabs of one browser", { timeout: 300_000 }, () => {
	let server: Server;
	let browser: Browser;
	let context: BrowserContext;
	let first: Page;
	let token: string;

	before(async () => {
		server = await startServer({ allowSignups: true });
		browser = await launchBrowser();
		context = await browser.newContext({ locale: "en-US" });
		({ token } = await signedUpAccount(server, "ada@example.org"));
		first = await context.newPage();
		await first.goto(`${server.origin}/app/`);
		await screenReady(first);
		await setSessionToken(first, token);
		await first.goto(`${server.origin}/app/vault`);
		await screenReady(first, "Vault");
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("a new tab opens signed in, on the screen it was opened at, without a passkey", async () => {
		const second = await context.newPage();
		await second.goto(`${server.origin}/app/account`);
		await screenReady(second, "Account");
		assert.match(String(await second.locator("main dl").textContent()), /ada@example\.org/);
		assert.equal(await sessionTokenOf(second), token, "the tab keeps the session in its own sessionStorage");
		for (const page of [first, second]) {
			assert.ok(
				(await localStorageKeys(page)).every((key) => key !== "svc.session"),
				"no session token in localStorage",
			);
			assert.ok(!JSON.stringify(await page.evaluate("({ ...localStorage })")).includes(token));
		}
		await second.close();
	});

	test("another browser profile gets no session: it shows the sign-in screen", async () => {
		const other = await browser.newContext({ locale: "en-US" });
		try {
			const page = await other.newPage();
			await page.goto(`${server.origin}/app/vault`);
			await page.getByRole("button", { name: "Sign in with a passkey" }).waitFor({ timeout: 30_000 });
			assert.equal(await sessionTokenOf(page), null);
			assert.match(page.url(), /\/app\/signin\?next=%2Fvault$/);
		} finally {
			await other.close();
		}
	});

	test("signing out in one tab signs every tab of the session out", async () => {
		const second = await context.newPage();
		await second.goto(`${server.origin}/app/vault`);
		await screenReady(second, "Vault");
		await second.getByRole("button", { name: "Sign out" }).click();
		await second.getByRole("button", { name: "Sign in with a passkey" }).waitFor({ timeout: 30_000 });
		// The first tab hears of it at once, without an API call of its own.
		await first.getByText("You are signed out.").waitFor({ timeout: 10_000 });
		assert.equal(await sessionTokenOf(first), null);
		assert.equal(
			(await apiCall(server, token, "GET", "/api/auth/me")).status,
			401,
			"the server ended it too",
		);
		// A tab opened now finds no session to take.
		const third = await context.newPage();
		await third.goto(`${server.origin}/app/vault`);
		await third.getByRole("button", { name: "Sign in with a passkey" }).waitFor({ timeout: 30_000 });
		assert.equal(await sessionTokenOf(third), null);
	});
});
