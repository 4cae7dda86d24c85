// Shares in the console end to end: the owner (two entries and a file made through the API) makes a
// share in the UI with a password, a view cap of 2 and a watermark (previewing the stamp), and
// sees its link and QR code; a second client resolves it through the public API and the detail
// shows 1 of 2 views and one API read; pause (the public resolve refused `link_paused`), resume,
// revoke after a confirm. A keyboard-only walk makes a share. axe-core on the list, the form, the
// detail with its read log and the revoke dialog, in English and German, at desktop and phone width.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import sharp from "sharp";
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
	stamp: string | null;
}

describe("shares in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;
	let device: Device;
	let page: Page;
	let made: Share;
	/** A share made through the API and read twice: paused, resumed and revoked. */
	let sample: Share;
	/** An active share read three times, for the accessibility checks and screenshots. */
	let showcase: Share;

	async function json<T>(res: Response | Promise<Response>): Promise<T> {
		const r = await res;
		assert.ok(r.ok, `${r.status} ${r.url} ${r.ok ? "" : await r.clone().text()}`);
		return (await r.json()) as T;
	}

	/** The public resolve, as a second client (no session). */
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
		const docs = await json<{ id: string }>(
			apiCall(server, token, "POST", "/api/collections/sections/records", { key: "docs", name: "Documents" }),
		);
		const png = await sharp({ create: { width: 600, height: 400, channels: 3, background: "#dbeafe" } })
			.png()
			.toBuffer();
		const form = new FormData();
		form.append("key", "payslip");
		form.append("name", "Payslip");
		form.append("section", docs.id);
		form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "payslip.png");
		await json(
			fetch(`${server.api}${records}`, {
				method: "POST",
				headers: { authorization: `Bearer ${token}` },
				body: form,
			}),
		);
		const links = "/api/collections/links/records";
		sample = await json<Share>(
			apiCall(server, token, "POST", links, { label: "Employer", records: [iban.id], maxViews: 10 }),
		);
		await json(resolve(sample.slug));
		await json(resolve(sample.slug));
		showcase = await json<Share>(
			apiCall(server, token, "POST", links, {
				label: "Tax adviser",
				records: [iban.id, email.id],
				sections: [docs.id],
				password: "adviser",
				maxViews: 10,
				expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
				stamp: "For the tax return 2025",
			}),
		);
		for (let i = 0; i < 3; i++) await json(resolve(showcase.slug, { password: "adviser" }));
		device = await Device.create(browser);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("the owner makes a share with a password and a view cap; its page shows the link and a QR code", async () => {
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/shares`);
		await screenReady(page, "Shares");
		await page.locator("main tbody tr", { hasText: "Employer" }).waitFor();

		await page.getByRole("link", { name: "New share" }).click();
		await screenReady(page, "New share");
		// Nothing chosen: the form says so at the list.
		await page.getByRole("button", { name: "Create the share" }).click();
		await page.locator("main .field-error", { hasText: "Choose at least one entry or section." }).waitFor();

		const main = page.locator("main");
		await page.getByLabel("Label").fill("Landlord");
		assert.equal(
			await page
				.getByRole("group", { name: "Documents" })
				.getByLabel("The whole section “Documents”")
				.count(),
			1,
			"entries are grouped by section, each section can be shared whole",
		);
		await page.getByLabel("IBAN", { exact: true }).check();
		await page.getByLabel("Email", { exact: true }).check();
		assert.match(String(await main.textContent()), /2 entries chosen/);
		await page.getByLabel("Password (optional)").fill("s3cret pass");
		await page.getByLabel("View cap (optional)").fill("2");

		// The watermark, previewed on the vault's image before the share exists.
		await page.getByLabel("Stamp files with a line of text").check();
		await page.getByLabel(/^Stamp text/).fill("For the landlord only");
		await page.getByRole("button", { name: "Preview stamp" }).click();
		const stamped = page.getByRole("img", { name: /^The stamped copy of payslip-preview\.png/ });
		await stamped.waitFor({ timeout: 60_000 });
		assert.match(String(await stamped.getAttribute("src")), /^data:image\/png;base64,/);
		assert.match(String(await stamped.getAttribute("alt")), /For the landlord only #preview/);
		await page.getByRole("link", { name: "Download the stamped copy (payslip-preview.png)" }).waitFor();

		await page.getByRole("button", { name: "Create the share" }).click();
		await screenReady(page, "Landlord");
		const link = String(await main.locator(".copy-field-value").first().textContent());
		assert.match(link, new RegExp(`^${server.origin}/s/[A-Za-z0-9_-]{43}$`));
		const apiAddress = String(await main.locator(".copy-field-value").nth(1).textContent());
		assert.equal(apiAddress, link.replace("/s/", "/api/public/links/"));
		const qr = page.getByRole("img", { name: "QR code of the share link" });
		await qr.waitFor();
		assert.ok(((await qr.boundingBox())?.width ?? 0) > 100, "the QR code is large enough to scan");
		assert.equal(await qr.locator("path").count(), 1);

		const list = await json<{ items: Share[] }>(
			apiCall(
				server,
				token,
				"GET",
				`/api/collections/links/records?filter=${encodeURIComponent('label = "Landlord"')}`,
			),
		);
		const saved = list.items[0];
		assert.ok(saved);
		made = saved;
		assert.ok(link.endsWith(`/s/${made.slug}`));
		assert.equal(made.requiresPassword, true);
		assert.equal(made.maxViews, 2);
		assert.equal(made.records.length, 2);
		assert.equal(made.stamp, "For the landlord only");
		const gates = page.locator("main .share-facts");
		assert.match(String(await gates.textContent()), /Password\s*Required/);
		assert.match(String(await gates.textContent()), /View cap\s*2 views/);
		assert.match(String(await gates.textContent()), /For the landlord only/);
		assert.match(String(await page.locator("main .share-grants").textContent()), /IBAN.*Email/s);
		assert.match(String(await page.locator(".share-views").textContent()), /^0 of 2$/);
		assert.match(String(await main.textContent()), /No reads yet/);
	});

	test("a second client resolves it; the detail shows 1 of 2 views and one API read", async () => {
		assert.equal((await resolve(made.slug)).status, 401, "the password gates it");
		const read = await json<{ records: { key: string; value: string }[]; viewCount: number }>(
			resolve(made.slug, { password: "s3cret pass" }),
		);
		assert.equal(read.viewCount, 1);
		assert.deepEqual(read.records.map((r) => r.key).sort(), ["email", "iban"]);

		// The page polls; the Refresh button reads at once.
		await page.getByRole("button", { name: "Refresh" }).click();
		await page.locator(".share-views", { hasText: /^1 of 2$/ }).waitFor({ timeout: 30_000 });
		const log = page.getByRole("table", { name: "Reads of this share" });
		await log.waitFor({ timeout: 30_000 });
		assert.equal(await log.locator("tbody tr").count(), 1);
		const row = String(await log.locator("tbody tr").textContent());
		assert.match(row, /API/);
		assert.match(row, /Not identified/);
		assert.match(String(await page.locator("main").textContent()), /1 of 1 reads shown/);

		// Without pressing anything, a second read shows up by the poll.
		await json(resolve(made.slug, { password: "s3cret pass" }));
		await page.locator(".share-views", { hasText: /^2 of 2$/ }).waitFor({ timeout: 60_000 });
		await log.locator("tbody tr").nth(1).waitFor({ timeout: 60_000 });
		assert.match(String(await page.locator("main .badge").first().textContent()), /Expired/);
		assert.match(String(await page.locator("main").textContent()), /This share has expired/);
		// Expired: only revoking is left.
		assert.equal(await page.getByRole("button", { name: "Pause" }).count(), 0);
		assert.equal(await page.getByRole("button", { name: "Resume" }).count(), 0);
		assert.equal(await page.getByRole("button", { name: "Revoke" }).count(), 1);
	});

	test("pause refuses readers with link_paused; resume; revoke after a confirm", async () => {
		await page.goto(`${server.origin}/app/shares/${sample.id}`);
		await screenReady(page, "Employer");
		const badge = page.locator("main .share-stats .badge");
		assert.equal(await badge.textContent(), "Active");
		assert.match(String(await page.locator(".share-views").textContent()), /^2 of 10$/);

		await page.getByRole("button", { name: "Pause" }).click();
		await badge.filter({ hasText: "Paused" }).waitFor({ timeout: 30_000 });
		await page.getByRole("button", { name: "Resume" }).waitFor();
		assert.equal((await focused(page)).text, "Resume", "the keyboard stays on the actions");
		const refused = await resolve(sample.slug);
		assert.equal(refused.status, 404);
		assert.equal(((await refused.json()) as { code: string }).code, "link_paused");

		await page.getByRole("button", { name: "Resume" }).click();
		await badge.filter({ hasText: "Active" }).waitFor({ timeout: 30_000 });
		await page.getByRole("button", { name: "Pause" }).waitFor();

		await page.getByRole("button", { name: "Revoke" }).click();
		const dialog = page.getByRole("dialog", { name: "Revoke this share?" });
		await dialog.waitFor();
		assert.match(String(await dialog.textContent()), /Nobody can open “Employer” any more/);
		await dialog.getByRole("button", { name: "Cancel" }).click();
		await dialog.waitFor({ state: "hidden" });
		assert.equal(await badge.textContent(), "Active", "cancel changes nothing");

		await page.getByRole("button", { name: "Revoke" }).click();
		await dialog.getByRole("button", { name: "Revoke" }).click();
		await badge.filter({ hasText: "Revoked" }).waitFor({ timeout: 30_000 });
		// No status change is left (and no edit); a copy can still share the same at a new address.
		const actions = page.locator("main .page-actions");
		assert.equal(await actions.getByRole("button").count(), 0, "a revoked share has no status change left");
		assert.deepEqual(await actions.getByRole("link").allTextContents(), ["Make a copy"]);
		assert.match(String(await page.locator("main").textContent()), /it never opens again/);
		const gone = await resolve(sample.slug);
		assert.equal(((await gone.json()) as { code: string }).code, "link_revoked");
		// The read log keeps the reads from before.
		assert.equal(
			await page.getByRole("table", { name: "Reads of this share" }).locator("tbody tr").count(),
			2,
		);
	});

	test("the list shows status, views and expiry, and filters by status", async () => {
		await page.getByRole("link", { name: "Back to all shares" }).click();
		await screenReady(page, "Shares");
		const landlord = page.locator("main tbody tr", { hasText: "Landlord" });
		assert.match(String(await landlord.textContent()), /Expired.*2 of 2.*No expiry/s);
		const employer = page.locator("main tbody tr", { hasText: "Employer" });
		assert.match(String(await employer.textContent()), /Revoked.*2 of 10/s);

		await page.getByLabel("Show").selectOption({ label: "Paused" });
		await page.getByText("No shares with this status").waitFor({ timeout: 30_000 });
		await page.getByLabel("Show").selectOption({ label: "Expired" });
		await landlord.waitFor({ timeout: 30_000 });
		assert.equal(await page.locator("main tbody tr").count(), 1);
	});

	test("a keyboard-only walk makes a share (Tab, Space, Enter)", async () => {
		await page.goto(`${server.origin}/app/shares`);
		await screenReady(page, "Shares");
		assert.ok(await tabTo(page, page.getByRole("link", { name: "New share" })));
		await page.keyboard.press("Enter");
		await screenReady(page, "New share");
		assert.ok(await tabTo(page, page.getByLabel("Label")));
		await page.keyboard.type("Keyboard share");
		const whole = page.getByLabel("The whole section “Documents”");
		assert.ok(await tabTo(page, whole));
		assert.notEqual((await focused(page)).outlineStyle, "none", "focus is visible");
		await page.keyboard.press("Space");
		assert.equal(await whole.isChecked(), true);
		assert.equal(
			await page.getByLabel("Payslip", { exact: true }).isDisabled(),
			true,
			"shared with its section",
		);
		const entry = page.getByLabel("Email", { exact: true });
		assert.ok(await tabTo(page, entry));
		await page.keyboard.press("Space");
		assert.equal(await entry.isChecked(), true);
		assert.ok(await tabTo(page, page.getByRole("button", { name: "Create the share" })));
		await page.keyboard.press("Enter");
		await screenReady(page, "Keyboard share");
		assert.match(
			String(await page.locator("main .share-grants").textContent()),
			/Email.*Section “Documents”, with every entry it holds/s,
		);
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const width = viewport === PHONE ? "phone" : "desktop";
			test(`axe finds no WCAG 2.2 AA violation on the share screens (${lang}, ${width})`, async () => {
				const detail = `/app/shares/${showcase.id}`;
				// By position, so the same steps work in German: the whole section "Documents", IBAN,
				// the watermark; then the stamp text (its field takes up to 400 characters, the rule is
				// checked on submit) and its preview.
				const fillForm = async (p: Page) => {
					const boxes = p.locator("main input[type=checkbox]");
					await boxes.nth(0).check();
					await boxes.nth(3).check();
					await boxes.nth(5).check();
					await p.locator('main input[maxlength="400"]').fill("For ACME payroll");
					await p.locator("main .share-preview button").click();
					await p
						.locator("main .share-preview-image, main .share-preview .alert")
						.first()
						.waitFor({ timeout: 60_000 });
					assert.equal(
						await p.locator("main .share-preview .alert").count(),
						0,
						String(await p.locator("main .share-preview").textContent()),
					);
				};
				const openRevoke = async (p: Page) => {
					await p.locator("main .page-actions .btn-danger").click();
					await p.getByRole("dialog").waitFor();
				};
				const screens: { name: string; path: string; prepare?: (p: Page) => Promise<void> }[] = [
					{ name: "shares", path: "/app/shares" },
					{ name: "shares-new", path: "/app/shares/new", prepare: fillForm },
					{
						name: "share-detail",
						path: detail,
						prepare: async (p) => {
							await p.locator("main table").waitFor();
						},
					},
					{ name: "share-revoke-dialog", path: detail, prepare: openRevoke },
				];
				const found: string[] = [];
				for (const s of screens) {
					const violations = await axeCheck(browser, `${server.origin}${s.path}`, {
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
