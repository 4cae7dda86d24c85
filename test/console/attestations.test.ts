// Attestations in the console: an administrator issues one (type, label, a yes-or-no and a number
// claim), is shown the offer link once, and the offer it names is the one the server keeps; a
// malformed claim name is refused on the form and nothing is issued; revoking asks first and shows
// the new status. axe-core on the list and the form, in English and German, desktop and phone.
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

describe("attestations in the console", { timeout: 600_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;
	let device: Device;
	let page: Page;

	before(async () => {
		server = await startServer({ allowAttestations: true });
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "registry@example.org"));
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
	});
	after(async () => {
		await device?.close();
		await browser?.close();
		await server?.close();
	});

	const count = async () =>
		(
			(await (await apiCall(server, token, "GET", "/api/collections/attestations/records")).json()) as {
				totalItems: number;
			}
		).totalItems;

	test("issue one: the offer link is shown once and opens the offer the server keeps", async () => {
		await page.goto(`${server.origin}/app/attestations`);
		await screenReady(page, "Attestations");
		await page.getByRole("button", { name: "New attestation" }).click();
		const dialog = page.getByRole("dialog");
		await dialog.getByLabel("Type").fill("membership");
		await dialog.getByLabel("Label").fill("Chess club");

		// A bad claim name is refused on the form; nothing is issued.
		await dialog.getByLabel("Name 1").fill("has space");
		await dialog.getByLabel("Value 1").fill("x");
		await dialog.getByRole("button", { name: "New attestation" }).click();
		await dialog.getByText("Use letters, digits and underscores.").waitFor();
		assert.equal(await count(), 0);

		await dialog.getByLabel("Name 1").fill("member");
		await dialog.getByLabel("Kind 1").selectOption("boolean");
		await dialog.getByRole("button", { name: "Add a claim" }).click();
		await dialog.getByLabel("Name 2").fill("grade");
		await dialog.getByLabel("Kind 2").selectOption("number");
		await dialog.getByLabel("Value 2").fill("3");
		await dialog.getByRole("button", { name: "New attestation" }).click();

		const offer = page.getByRole("dialog", { name: "The offer" });
		await offer.waitFor();
		const link = String(await offer.locator(".copy-field-value").textContent());
		const m = /^svc:\/\/a\/localhost\/([A-Za-z0-9_-]{43})$/.exec(link);
		assert.ok(m, link);
		const view = await fetch(`${server.api}/api/attestations/offers/${m[1]}`);
		assert.equal(view.status, 200);
		const body = (await view.json()) as {
			label: string;
			type: string;
			claims: Record<string, unknown>;
			status: string;
		};
		assert.deepEqual([body.type, body.label, body.status], ["membership", "Chess club", "offered"]);
		assert.deepEqual(body.claims, { member: true, grade: 3 });
		await offer.getByRole("button", { name: "I have sent it" }).click();

		const row = page.getByRole("row", { name: /Chess club/ });
		await row.waitFor();
		assert.match(String(await row.textContent()), /Offered/);
		assert.match(String(await row.textContent()), /Not yet accepted/);
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	test("revoke asks first, then shows Revoked", async () => {
		await page.getByRole("button", { name: "Revoke Chess club" }).click();
		const confirm = page.getByRole("dialog", { name: "Revoke this attestation?" });
		await confirm.getByRole("button", { name: "Revoke" }).click();
		await page
			.getByRole("row", { name: /Chess club/ })
			.getByText("Revoked")
			.waitFor();
		const list = (await (
			await apiCall(server, token, "GET", "/api/collections/attestations/records")
		).json()) as {
			items: { status: string }[];
		};
		assert.equal(list.items[0]?.status, "revoked");
		assert.equal(await page.getByRole("button", { name: "Revoke Chess club" }).count(), 0);
	});

	for (const [lang, viewport, size] of [
		["en", DESKTOP, "desktop"],
		["de", PHONE, "phone"],
	] as const) {
		test(`axe-core: no violations on the list and the form (${lang}, ${size})`, async () => {
			const found: string[] = [];
			for (const [name, prepare] of [
				["attestations", undefined],
				[
					"attestations-create",
					async (p: Page) => {
						await p
							.getByRole("button", { name: lang === "de" ? "Neue Bescheinigung" : "New attestation" })
							.first()
							.click();
						await p.getByRole("dialog").waitFor();
					},
				],
			] as const) {
				const violations = await axeCheck(browser, `${server.origin}/app/attestations`, {
					token,
					lang,
					viewport,
					...(prepare ? { prepare } : {}),
					...(lang === "en" || size === "phone"
						? { screenshot: name === "attestations" ? "attestations-on" : name }
						: {}),
				});
				if (violations.length > 0) found.push(`${name}:\n${describeViolations(violations)}`);
			}
			assert.deepEqual(found, [], found.join("\n\n"));
		});
	}
});
