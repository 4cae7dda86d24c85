// Changing shares in the console (issue 40.4, 40.5): with the defaults (sign-ups off, the owner
// made by the operator's ticket), the owner makes a share and lands on its page with the heading in
// sight; edits its label, password, cap, expiry, proven identity, signing identity and watermark
// (each checked through the API, and a past expiry refused in words); lowers the cap below the
// views taken after a confirm (the share expires, as docs/api.md says); makes a copy (a new
// address, the same settings, no views); and sees what visitors see without taking a view or
// logging a read. axe-core on the edit form, the copy form and the visitor's view, in English and
// German, at 1280 and 390 px, with screenshots.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import crypto from "node:crypto";
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

interface Share {
	id: string;
	slug: string;
	label: string;
	status: string;
	records: string[];
	sections: string[];
	requiresPassword: boolean;
	maxViews: number | null;
	viewCount: number;
	expiresAt: string | null;
	requireHandshake: boolean;
	identity: string | null;
	stamp: string | null;
	purpose: string;
}

describe("changing shares in the console", { timeout: 600_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;
	let device: Device;
	let page: Page;
	let identity: { id: string; name: string };
	let entries: { iban: string; email: string };
	/** Made in the browser by the first test; edited, lowered, copied and previewed by the next. */
	let made: Share;

	async function json<T>(res: Response | Promise<Response>): Promise<T> {
		const r = await res;
		assert.ok(r.ok, `${r.status} ${r.url} ${r.ok ? "" : await r.clone().text()}`);
		return (await r.json()) as T;
	}
	const view = (id: string) =>
		json<Share>(apiCall(server, token, "GET", `/api/collections/links/records/${id}`));
	const reads = async (id: string) =>
		(
			await json<{ totalItems: number }>(
				apiCall(
					server,
					token,
					"GET",
					`/api/collections/linkReads/records?filter=${encodeURIComponent(`link='${id}'`)}`,
				),
			)
		).totalItems;
	function resolve(slug: string, body: unknown = {}): Promise<Response> {
		return fetch(`${server.api}/api/public/links/${slug}`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(body),
		});
	}

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "ada@example.org"));
		const records = "/api/collections/records/records";
		const iban = await json<{ id: string }>(
			apiCall(server, token, "POST", records, { key: "iban", name: "IBAN", value: "DE89370400440532013000" }),
		);
		const email = await json<{ id: string }>(
			apiCall(server, token, "POST", records, { key: "email", name: "Email", value: "ada@example.org" }),
		);
		entries = { iban: iban.id, email: email.id };
		const { publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
		identity = await json(
			apiCall(server, token, "POST", "/api/collections/identities/records", {
				name: "Ada Lovelace",
				publicKey: publicKey.export({ type: "spki", format: "pem" }),
			}),
		);
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("after Create the share, its page opens at the top with the heading in sight and focused", async () => {
		await page.setViewportSize(PHONE);
		await page.goto(`${server.origin}/app/shares/new`);
		await screenReady(page, "New share");
		await page.getByLabel("Label").fill("Landlord");
		await page.getByLabel("IBAN", { exact: true }).check();
		await page.getByLabel("Email", { exact: true }).check();
		await page.getByLabel("Password (optional)").fill("first pass");
		await page.getByLabel("View cap (optional)").fill("5");
		const submit = page.getByRole("button", { name: "Create the share" });
		await submit.scrollIntoViewIfNeeded();
		assert.ok((await page.evaluate<number>("window.scrollY")) > 300, "the form is scrolled to its button");
		await submit.click();
		await screenReady(page, /^Landlord$/);
		const heading = page.getByRole("heading", { level: 1, name: "Landlord" });
		const box = await heading.boundingBox();
		assert.ok(
			box && box.y >= 0 && box.y + box.height <= PHONE.height,
			`heading on screen: ${JSON.stringify(box)}`,
		);
		assert.equal(await page.evaluate<number>("window.scrollY"), 0);
		assert.equal(await page.evaluate<string>("document.activeElement.tagName"), "H1");
		const list = await json<{ items: Share[] }>(
			apiCall(
				server,
				token,
				"GET",
				`/api/collections/links/records?filter=${encodeURIComponent('label = "Landlord"')}`,
			),
		);
		assert.ok(list.items[0]);
		made = list.items[0];
		await page.setViewportSize(DESKTOP);
	});

	test("edit: label, password replaced, cap raised, expiry, proven identity, signing identity and watermark", async () => {
		for (let i = 0; i < 2; i++)
			assert.equal((await resolve(made.slug, { password: "first pass" })).status, 200);
		await page.goto(`${server.origin}/app/shares/${made.id}`);
		await screenReady(page, /^Landlord$/);
		await page.locator("main .page-actions").getByRole("link", { name: "Edit" }).click();
		await screenReady(page, "Edit “Landlord”");
		const main = page.locator("main");
		assert.match(String(await main.textContent()), /Read 2 times so far/);
		assert.equal(await page.getByLabel("View cap (optional)").inputValue(), "5");

		// An expiry in the past is refused in words, and nothing is sent.
		await page.getByLabel("Expires (optional)").fill("2020-01-01T10:00");
		await page.getByRole("button", { name: "Save changes" }).click();
		await main
			.locator(".field-error", {
				hasText: "Choose a time in the future. To end the share now, pause or revoke it.",
			})
			.waitFor();
		assert.equal((await view(made.id)).expiresAt, null);

		const later = new Date(Date.now() + 10 * 86_400_000);
		const local = `${later.getFullYear()}-${String(later.getMonth() + 1).padStart(2, "0")}-${String(later.getDate()).padStart(2, "0")}T09:30`;
		await page.getByLabel("Label").fill("Landlord, flat 3B");
		await page.getByLabel("New password (optional)").fill("second pass");
		await page.getByLabel("View cap (optional)").fill("20");
		await page.getByLabel("Expires (optional)").fill(local);
		await page.getByLabel("Require a proven identity").check();
		await page.getByLabel("Share as (optional)").selectOption({ label: "Ada Lovelace" });
		await page.getByLabel("Stamp files with a line of text").check();
		await page.getByLabel(/^Stamp text/).fill("For the landlord only");
		await page.getByRole("button", { name: "Save changes" }).click();
		await screenReady(page, /^Landlord, flat 3B$/);

		const saved = await view(made.id);
		assert.equal(saved.label, "Landlord, flat 3B");
		assert.equal(saved.maxViews, 20);
		assert.equal(saved.expiresAt, new Date(local).toISOString());
		assert.equal(saved.requireHandshake, true);
		assert.equal(saved.identity, identity.id);
		assert.equal(saved.stamp, "For the landlord only");
		assert.equal(saved.viewCount, 2, "the address and its views stay");
		assert.equal(saved.slug, made.slug);
		const gates = String(await page.locator("main .share-facts").textContent());
		assert.match(gates, /View cap\s*20 views/);
		assert.match(gates, /Proven identity\s*Required/);

		// The new password opens it, the old one no longer does (with the handshake lifted again).
		await page.locator("main .page-actions").getByRole("link", { name: "Edit" }).click();
		await screenReady(page, "Edit “Landlord, flat 3B”");
		await page.getByLabel("Require a proven identity").uncheck();
		await page.getByRole("button", { name: "Save changes" }).click();
		await screenReady(page, /^Landlord, flat 3B$/);
		assert.equal((await resolve(made.slug, { password: "first pass" })).status, 401);
		assert.equal((await resolve(made.slug, { password: "second pass" })).status, 200);

		// Removing the password.
		await page.locator("main .page-actions").getByRole("link", { name: "Edit" }).click();
		await screenReady(page, "Edit “Landlord, flat 3B”");
		await page.getByLabel("Remove the password").check();
		assert.equal(await page.getByLabel("New password (optional)").count(), 0);
		await page.getByRole("button", { name: "Save changes" }).click();
		await screenReady(page, /^Landlord, flat 3B$/);
		assert.equal((await view(made.id)).requiresPassword, false);
		assert.equal((await resolve(made.slug)).status, 200);
	});

	test("pause and resume from the page; a cap lowered to the views taken asks first, then the share expires", async () => {
		await page.goto(`${server.origin}/app/shares/${made.id}`);
		await screenReady(page, /^Landlord, flat 3B$/);
		await page.getByRole("button", { name: "Pause" }).click();
		await page.getByRole("button", { name: "Resume" }).waitFor();
		assert.equal((await view(made.id)).status, "paused");
		await page.getByRole("button", { name: "Resume" }).click();
		await page.getByRole("button", { name: "Pause" }).waitFor();
		assert.equal((await view(made.id)).status, "active");

		const taken = (await view(made.id)).viewCount;
		await page.locator("main .page-actions").getByRole("link", { name: "Edit" }).click();
		await screenReady(page, "Edit “Landlord, flat 3B”");
		await page.getByLabel("View cap (optional)").fill(String(taken - 1));
		await page.getByRole("button", { name: "Save changes" }).click();
		const ask = page.getByRole("dialog", { name: "End this share now?" });
		await ask.waitFor();
		assert.match(String(await ask.textContent()), new RegExp(`has been read ${taken} times`));
		// Cancel changes nothing, and gives the focus back to the button.
		await ask.getByRole("button", { name: "Cancel" }).click();
		await ask.waitFor({ state: "hidden" });
		assert.equal(await page.evaluate<string>("document.activeElement.textContent"), "Save changes");
		assert.equal((await view(made.id)).status, "active");
		await page.getByRole("button", { name: "Save changes" }).click();
		await ask.getByRole("button", { name: "Lower the cap and end it" }).click();
		await screenReady(page, /^Landlord, flat 3B$/);
		const ended = await view(made.id);
		assert.equal(ended.status, "expired");
		assert.equal(ended.maxViews, taken - 1);
		assert.equal((await resolve(made.slug)).status, 404);
		assert.match(String(await page.locator("main").textContent()), /Make a copy to share the same again/);
	});

	test("make a copy: a new address with the same settings and no views; the original unchanged", async () => {
		await page.locator("main .page-actions").getByRole("link", { name: "Make a copy" }).click();
		await screenReady(page, "Copy of “Landlord, flat 3B”");
		assert.equal(await page.getByLabel("Label").inputValue(), "Landlord, flat 3B (copy)");
		assert.equal(await page.getByLabel("IBAN", { exact: true }).isChecked(), true);
		assert.equal(await page.getByLabel("Email", { exact: true }).isChecked(), true);
		assert.equal(await page.getByLabel(/^Stamp text/).inputValue(), "For the landlord only");
		await page.getByLabel("View cap (optional)").fill("3");
		await page.getByRole("button", { name: "Create the share" }).click();
		await screenReady(page, /^Landlord, flat 3B \(copy\)$/);
		const copies = await json<{ items: Share[] }>(
			apiCall(
				server,
				token,
				"GET",
				`/api/collections/links/records?filter=${encodeURIComponent('label = "Landlord, flat 3B (copy)"')}`,
			),
		);
		const copy = copies.items[0];
		assert.ok(copy);
		assert.notEqual(copy.slug, made.slug);
		assert.equal(copy.status, "active");
		assert.equal(copy.viewCount, 0);
		assert.equal(copy.maxViews, 3);
		assert.deepEqual(copy.records.sort(), [entries.iban, entries.email].sort());
		assert.equal(copy.stamp, "For the landlord only");
		assert.equal(copy.identity, identity.id);
		assert.equal(copy.expiresAt, (await view(made.id)).expiresAt);
		assert.equal((await view(made.id)).status, "expired", "the original stays as it was");
		made = copy;
	});

	test("see what visitors see: the values on the share page, no view taken, no read logged", async () => {
		const before = await view(made.id);
		await page.locator("main").getByRole("link", { name: "See what visitors see" }).click();
		await screenReady(page, "What visitors see: Landlord, flat 3B (copy)");
		const frame = page.frameLocator("iframe.share-visitor-frame");
		await frame.getByRole("heading", { level: 1, name: "Landlord, flat 3B (copy)" }).waitFor();
		const shown = String(await frame.locator("main").textContent());
		assert.match(shown, /DE89370400440532013000/);
		assert.match(shown, /ada@example.org/);
		assert.match(shown, /stamped/, "the page says files are stamped");
		assert.equal(await page.getByTitle("The share page of “Landlord, flat 3B (copy)”").count(), 1);
		const after = await view(made.id);
		assert.equal(after.viewCount, before.viewCount, "no view taken");
		assert.equal(await reads(made.id), 0, "no read logged");

		// In German, the page's own words are German.
		await page.locator("#lang-select").selectOption("de");
		await screenReady(page, "Was Besucher sehen: Landlord, flat 3B (copy)");
		await frame.locator("html[lang=de]").waitFor();
		await page.locator("#lang-select").selectOption("en");

		// A paused share shows the page its visitors meet.
		await json(
			apiCall(server, token, "PATCH", `/api/collections/links/records/${made.id}`, { status: "paused" }),
		);
		await page.reload();
		await screenReady(page, /What visitors see/);
		await frame.getByText("has paused this share").waitFor();
		assert.doesNotMatch(String(await frame.locator("body").textContent()), /DE89370400440532013000/);
		await json(
			apiCall(server, token, "PATCH", `/api/collections/links/records/${made.id}`, { status: "active" }),
		);
		assert.equal((await view(made.id)).viewCount, 0);
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	test("the preview is the owner's: an API key and another account are refused, nothing counted", async () => {
		const created = await apiCall(server, token, "POST", "/api/collections/apiKeys/records", {
			name: "Reader",
			permissions: ["links:read"],
		});
		assert.equal(created.status, 200);
		const key = String(created.headers.get("x-plain-token"));
		const byKey = await fetch(`${server.api}/api/links/${made.id}/preview`, {
			headers: { "x-api-key": key },
		});
		assert.equal(byKey.status, 403);
		assert.equal(((await byKey.json()) as { code: string }).code, "api_key_scope_missing");
		const other = await ticketAccount(server, "eve@example.org");
		const byOther = await apiCall(server, other.token, "GET", `/api/links/${made.id}/preview`);
		assert.equal(byOther.status, 404);
		assert.equal(((await byOther.json()) as { code: string }).code, "link_not_found");
		const anonymous = await fetch(`${server.api}/api/links/${made.id}/preview`);
		assert.equal(anonymous.status, 401);
		assert.equal((await view(made.id)).viewCount, 0);
		// One read, so that the edit form's lowering dialog has views to speak of below.
		assert.equal((await resolve(made.slug)).status, 200);
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const size = viewport === PHONE ? "phone" : "desktop";
			test(`axe-core: the edit form, the copy form and the visitor's view (${lang}, ${size})`, async () => {
				const found: string[] = [];
				const id = made.id;
				for (const [name, path, prepare] of [
					["share-edit", `/app/shares/${id}/edit`, undefined],
					[
						"share-edit-lower",
						`/app/shares/${id}/edit`,
						async (p: Page) => {
							await p.locator("main input[type=number]").fill("1");
							await p.locator("main button[type=submit]").click();
							await p.getByRole("dialog").waitFor();
						},
					],
					["share-copy", `/app/shares/new?copy=${id}`, undefined],
					[
						"share-visitors",
						`/app/shares/${id}/preview`,
						async (p: Page) => {
							await p.frameLocator("iframe").locator("h1").waitFor();
						},
					],
				] as const) {
					const violations = await axeCheck(browser, `${server.origin}${path}`, {
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
