// The share page in headless Chromium: it renders with its own stylesheet under its CSP (no
// console error), works with JavaScript off (the password form included), shows where the
// keyboard is, and axe-core finds no WCAG 2.2 AA violation in English and German, on a phone and
// a desktop, in the light and the dark colour scheme (and the dark one really is darker). With
// SCREENSHOTS=1 it writes docs/screenshots/share-page-*.png (`-dark-` for the dark scheme).
//
// Runs once, not per database: the share page's look and accessibility in Chromium; its reads are those of formats/*.test.ts and shares/gate-matrix/, which run on both.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page, ViewportSize } from "playwright-core";
import {
	axeCheck,
	bodyColours,
	DESKTOP,
	describeViolations,
	launchBrowser,
	PHONE,
	SCHEMES,
	type Scheme,
	type Server,
	startServer,
} from "../helpers/browser.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { REPO_ROOT } from "../helpers/root.ts";
import { createLink, createValue, uploadFile } from "../shares/helpers.ts";
import { contactShare } from "./helpers.ts";

const ROOT = REPO_ROOT;

async function screenshot(page: Page, name: string): Promise<void> {
	if (process.env.SCREENSHOTS !== "1") return;
	const file = path.join(ROOT, "docs/screenshots", `share-page-${name}.png`);
	await page.screenshot({ path: file, fullPage: true, animations: "disabled", caret: "hide" });
}

describe("the share page in Chromium", { timeout: 300_000 }, () => {
	let server: Server;
	let browser: Browser;
	let a: TestAccount;
	const urls: Record<"share" | "password" | "app" | "gone", string> = {
		share: "",
		password: "",
		app: "",
		gone: "",
	};

	before(async () => {
		// Behind a trusted proxy, so each visit of `open` comes from its own address: the share page's
		// rate limit (30 a minute a client) is for strangers, and this file opens it far more often.
		server = await startServer({ domain: "localhost", trustProxy: true });
		browser = await launchBrowser();
		const app = server.t.app;
		a = await buildAccount(app, { name: "Ann" });
		await app.inject({
			method: "PATCH",
			url: `/api/collections/workspaces/records/${a.workspaceId}`,
			headers: a.headers,
			payload: { name: "Ann Example" },
		});
		const key = await deviceKey();
		const identity = await app.inject({
			method: "POST",
			url: "/api/collections/identities/records",
			headers: a.headers,
			payload: { name: "Ann (personal)", publicKey: key.publicJwk },
		});
		assert.equal(identity.statusCode, 200, identity.body);
		const share = await contactShare(app, a, {
			identity: identity.json().id,
			maxViews: 50,
			expiresAt: new Date(app.clock.now() + 14 * 86_400_000).toISOString(),
		});
		const lease = await uploadFile(
			app,
			a,
			{ key: "lease", name: "Signed lease" },
			{ bytes: Buffer.from("%PDF-1.4 lease"), name: "lease-2026.pdf" },
		);
		const payslip = await createValue(app, a, {
			key: "salary",
			name: "Net salary",
			value: "3 250 €",
			hidden: true,
		});
		await app.inject({
			method: "PATCH",
			url: `/api/collections/links/records/${share.id}`,
			headers: a.headers,
			payload: { records: [share.ids.iban, payslip.id, lease.id] },
		});
		urls.share = `${server.origin}/s/${share.slug}`;
		const secret = await createValue(app, a, {
			key: "iban",
			name: "IBAN",
			value: "DE89 3704 0044 0532 0130 00",
		});
		urls.password = `${server.origin}/s/${(await createLink(app, a, { label: "Deposit account", records: [secret.id], password: "open sesame" })).slug}`;
		urls.app = `${server.origin}/s/${(await createLink(app, a, { label: "Identity check", records: [secret.id], requireHandshake: true })).slug}`;
		const gone = await createLink(app, a, { label: "Old share", records: [secret.id] });
		await app.inject({
			method: "PATCH",
			url: `/api/collections/links/records/${gone.id}`,
			headers: a.headers,
			payload: { status: "revoked" },
		});
		urls.gone = `${server.origin}/s/${gone.slug}`;
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	let visits = 0;
	async function open(
		url: string,
		opts: { viewport?: ViewportSize; js?: boolean; locale?: string; scheme?: Scheme } = {},
	) {
		visits += 1;
		const context = await browser.newContext({
			extraHTTPHeaders: { "x-forwarded-for": `198.51.100.${visits}` },
			viewport: opts.viewport ?? PHONE,
			javaScriptEnabled: opts.js ?? true,
			locale: opts.locale ?? "en-US",
			colorScheme: opts.scheme ?? "light",
		});
		const page = await context.newPage();
		const errors: string[] = [];
		page.on("console", (m) => {
			if (m.type() === "error") errors.push(m.text());
		});
		page.on("pageerror", (e) => errors.push(e.message));
		const response = await page.goto(url);
		return { page, errors, response, close: () => context.close() };
	}

	test("renders with its stylesheet under its CSP, no console error; the same with JavaScript off", async () => {
		for (const js of [true, false]) {
			const { page, errors, response, close } = await open(urls.share, { js });
			assert.equal(response?.status(), 200);
			await page.getByRole("heading", { level: 1, name: "For the landlord" }).waitFor();
			const card = await page.evaluate<string>(
				'getComputedStyle(document.querySelector(".entries")).borderRadius',
			);
			assert.equal(card, "12px", "the stylesheet applies");
			assert.equal(await page.getByText("ann@example.org").count(), 1);
			assert.deepEqual(errors, [], "no CSP violation or other console error");
			await close();
		}
	});

	test("the password form works with JavaScript off", async () => {
		const { page, errors, close } = await open(urls.password, { js: false });
		await page.getByLabel("Password").fill("wrong");
		await page.getByRole("button", { name: "Open" }).click();
		await page.getByRole("alert").waitFor();
		assert.equal(await page.getByRole("alert").textContent(), "The password is wrong.");
		await page.getByLabel("Password").fill("open sesame");
		await page.getByRole("button", { name: "Open" }).click();
		await page.getByText("DE89 3704 0044 0532 0130 00").waitFor();
		assert.deepEqual(
			errors.filter((e) => !/status of 403/.test(e)),
			[],
			"only the refused password's 403",
		);
		await close();
	});

	test("the keyboard reaches the skip link first and sees where it is", async () => {
		const { page, close } = await open(urls.share, { viewport: DESKTOP });
		await page.keyboard.press("Tab");
		// Page code as text: the server's type check has no DOM library.
		const focus = await page.evaluate<{ text: string; outline: string; left: number }>(`(() => {
			const el = document.activeElement;
			return { text: el.textContent, outline: getComputedStyle(el).outlineStyle, left: el.getBoundingClientRect().left };
		})()`);
		assert.equal(focus.text, "Skip to the shared entries");
		assert.equal(focus.outline, "solid");
		assert.ok(focus.left >= 0, "on screen when focused");
		await close();
	});

	const checks: [string, keyof typeof urls, ViewportSize, "en" | "de"][] = [
		["share, phone", "share", PHONE, "en"],
		["share, desktop", "share", DESKTOP, "en"],
		["share in German, phone", "share", PHONE, "de"],
		["share in German, desktop", "share", DESKTOP, "de"],
		["password form", "password", PHONE, "en"],
		["needs the app", "app", PHONE, "en"],
		["no longer available", "gone", PHONE, "de"],
	];
	for (const scheme of SCHEMES) {
		for (const [name, which, viewport, lang] of checks) {
			test(`axe-core: no WCAG 2.2 AA violation: ${name} (${scheme})`, async () => {
				const violations = await axeCheck(browser, urls[which], { viewport, lang, scheme });
				assert.deepEqual(violations, [], describeViolations(violations));
			});
		}
	}

	test("the dark scheme is another palette: the body, the values' card and the text change", async () => {
		const seen: Partial<Record<Scheme, { background: string; color: string; card: string }>> = {};
		for (const scheme of SCHEMES) {
			const { page, close } = await open(urls.share, { scheme });
			await page.locator(".entries").first().waitFor();
			const card = await page.evaluate<string>(
				'getComputedStyle(document.querySelector(".entries")).backgroundColor',
			);
			seen[scheme] = { ...(await bodyColours(page)), card };
			await close();
		}
		const { light, dark } = seen;
		assert.ok(light && dark);
		assert.notEqual(dark.background, light.background, "body background");
		assert.notEqual(dark.color, light.color, "text colour");
		assert.notEqual(dark.card, light.card, "the values' card");
		const channels = (c: string) => (c.match(/\d+/g) ?? []).slice(0, 3).map(Number);
		assert.ok(Math.max(...channels(dark.background)) < 64, `dark background ${dark.background}`);
		assert.ok(Math.min(...channels(light.background)) > 230, `light background ${light.background}`);
	});

	test("axe-core on a password share opened through its form, and on the wrong-password page", async () => {
		for (const password of ["wrong", "open sesame"]) {
			const violations = await axeCheck(browser, urls.password, {
				viewport: PHONE,
				prepare: async (page) => {
					await page.getByLabel("Password").fill(password);
					await page.getByRole("button", { name: "Open" }).click();
					await page.locator("h1").waitFor();
				},
			});
			assert.deepEqual(violations, [], describeViolations(violations));
		}
	});

	test("screenshots at phone and desktop width (SCREENSHOTS=1)", async () => {
		const shots: [string, string, ViewportSize, string?][] = [
			["phone", urls.share, PHONE],
			["desktop", urls.share, DESKTOP],
			["de-phone", urls.share, PHONE, "de-DE"],
			["password-phone", urls.password, PHONE],
			["app-phone", urls.app, PHONE],
			["gone-phone", urls.gone, PHONE],
		];
		// The dark scheme's pictures of the share itself: `share-page-dark-<width>.png`.
		const dark: typeof shots = [
			["dark-phone", urls.share, PHONE],
			["dark-desktop", urls.share, DESKTOP],
			["password-dark-phone", urls.password, PHONE],
		];
		for (const [name, url, viewport, locale] of [...shots, ...dark]) {
			const scheme = name.includes("dark") ? "dark" : "light";
			const { page, errors, close } = await open(url, { viewport, scheme, ...(locale ? { locale } : {}) });
			await page.locator("h1").waitFor();
			const overflow = await page.evaluate<number>(
				"document.documentElement.scrollWidth - document.documentElement.clientWidth",
			);
			assert.equal(overflow, 0, `${name}: nothing wider than the screen`);
			assert.deepEqual(
				errors.filter((e) => !/status of 40[34]/.test(e)),
				[],
				name,
			);
			await screenshot(page, name);
			await close();
		}
	});
});
