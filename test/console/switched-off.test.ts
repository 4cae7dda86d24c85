// What is off says so up front, and refusals are words, not codes (issue 40.11), with the defaults
// (sign-ups off, attestations off): the attestations screen says issuing is off before anything is
// filled in and offers no form (an attestation can still not be issued through the API); the only
// passkey's Remove is disabled with the reason beside it, and a second passkey makes both
// removable; no raw error code (`passkey_last`, `attestations_disabled`) is shown anywhere.
// axe-core on both screens in English and German, at 1280 and 390 px, with screenshots.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { issueOperatorTicket } from "../../src/features/passkeys/service.ts";
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
import { PasskeyClient } from "../helpers/passkeys.ts";

const CODES = /passkey_last|attestations_disabled|_[a-z]+_/;

describe("switched off and refused, said in words", { timeout: 300_000 }, () => {
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "grace@example.org"));
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("attestations off (the default): said first, no New attestation, no form; the API refuses too", async () => {
		await page.goto(`${server.origin}/app/attestations`);
		await screenReady(page, "Attestations");
		const main = page.locator("main");
		await main.getByText("Issuing attestations is turned off on this server.").waitFor();
		assert.match(String(await main.textContent()), /ALLOW_ATTESTATIONS=true/);
		assert.equal(await page.getByRole("button", { name: "New attestation" }).count(), 0);
		assert.equal(await page.getByRole("dialog").count(), 0);
		const notice = await page.locator("main .alert").first().boundingBox();
		const heading = await page.locator("main h1").boundingBox();
		assert.ok(notice && heading && notice.y < heading.y + 200, "the notice is up front");
		assert.doesNotMatch(String(await main.textContent()), CODES);
		const mine = (await (
			await apiCall(server, token, "GET", "/api/collections/workspaces/records")
		).json()) as {
			items: { id: string }[];
		};
		const refused = await apiCall(server, token, "POST", "/api/collections/attestations/records", {
			workspace: mine.items[0]?.id,
			type: "membership",
			claims: { member: true },
		});
		assert.equal(refused.status, 403);
		assert.equal(((await refused.json()) as { code: string }).code, "attestations_disabled");

		await page.locator("#lang-select").selectOption("de");
		await screenReady(page, "Bescheinigungen");
		await main.getByText("Das Ausstellen von Bescheinigungen ist auf diesem Server abgeschaltet.").waitFor();
		await page.locator("#lang-select").selectOption("en");
	});

	test("the only passkey: Remove disabled with the reason beside it; with a second, both removable", async () => {
		await page.goto(`${server.origin}/app/passkeys`);
		await screenReady(page, "Passkeys");
		const remove = page.getByRole("button", { name: /^Remove / });
		await remove.waitFor();
		assert.equal(await remove.count(), 1);
		assert.equal(await remove.isDisabled(), true);
		const reason = "Your only passkey: add another before you remove it.";
		await page.getByText(reason).waitFor();
		// The reason is the button's description for screen readers, too.
		const described = await remove.getAttribute("aria-describedby");
		assert.equal(String(await page.locator(`[id="${described}"]`).textContent()), reason);
		assert.doesNotMatch(String(await page.locator("main").textContent()), CODES);

		// A second passkey, added with an operator ticket as the README's "another device" does.
		const issued = await issueOperatorTicket(
			server.t.app.store.db,
			"grace@example.org",
			server.t.app.clock.now(),
		);
		const laptop = new PasskeyClient(server.t.app);
		assert.equal((await laptop.register({ ticket: issued.ticket, name: "Laptop" })).statusCode, 200);
		await page.reload();
		await screenReady(page, "Passkeys");
		await page.getByRole("button", { name: "Remove Laptop" }).waitFor();
		const buttons = page.getByRole("button", { name: /^Remove / });
		assert.equal(await buttons.count(), 2);
		for (const b of await buttons.all()) assert.equal(await b.isEnabled(), true);
		assert.equal(await page.getByText(reason).count(), 0);
		await page.getByRole("button", { name: "Remove Laptop" }).click();
		await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
		await page.getByText(reason).waitFor();
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const size = viewport === PHONE ? "phone" : "desktop";
			test(`axe-core: attestations off and the only passkey (${lang}, ${size})`, async () => {
				const found: string[] = [];
				for (const [name, path] of [
					["attestations", "/app/attestations"],
					["passkeys", "/app/passkeys"],
				] as const) {
					const violations = await axeCheck(browser, `${server.origin}${path}`, {
						token,
						lang,
						viewport,
						...(lang === "en" ? { screenshot: name } : {}),
					});
					if (violations.length > 0) found.push(`${name}:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}
});
