// WCAG 2.2 AA: axe-core finds no violation on any console screen (the front page and the operator's
// ticket page too), in English and German, at desktop and phone width, in the light and the dark
// colour scheme (and the dark one is really darker); the console works by keyboard with a visible
// focus. The server runs with the defaults (sign-ups off), the owner made as the README says.
// With SCREENSHOTS=1 it also writes docs/screenshots/console-<screen>[-dark]-<desktop|phone>.png.
// One suite in seven files, each well within the runner's ten minutes on a loaded two-core machine
// (the owner's dark screens in English and German together once took all of them):
// accessibility.test.ts and -de (light screens; the keyboard walk in the English file),
// accessibility-dark.test.ts and -de (dark screens; the palette check in the English file),
// accessibility-dark-owner.test.ts and -de (the owner's screens, dark), and
// accessibility-ticket.test.ts (the ticket page in both schemes and languages).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
	AxeTab,
	addAuthenticator,
	apiCall,
	axeCheck,
	bodyColours,
	DESKTOP,
	Device,
	describeViolations,
	focused,
	launchBrowser,
	operatorTicket,
	PHONE,
	SCHEMES,
	type Scheme,
	type Server,
	screenReady,
	setSessionToken,
	startServer,
	tabTo,
	ticketAccount,
} from "../helpers/browser.ts";

export function accessibilitySuite(
	schemes: readonly Scheme[],
	part: "screens" | "owner" | "ticket",
	extra?: "keyboard" | "palette",
	langs: readonly ("en" | "de")[] = ["en", "de"],
): void {
	describe(`console accessibility: ${part} (${schemes.join(", ")}; ${langs.join(", ")})`, {
		timeout: 600_000,
	}, () => {
		let server: Server;
		let browser: Browser;
		let token: string;

		before(async () => {
			// The defaults, as an operator starts it: sign-ups off, the first owner from a one-time link.
			server = await startServer();
			assert.equal(server.t.app.config.allowSignups, false);
			browser = await launchBrowser();
			({ token } = await ticketAccount(server, "grace@example.org", "Grace"));
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
			if (part === "owner") {
				// An open share too, for its detail screen.
				await apiCall(server, token, "POST", "/api/collections/links/records", { label: "Insurance" });
			}
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

		type Screen = {
			name: string;
			path: string;
			signedIn: boolean;
			prepare?: (page: Page) => Promise<void>;
		};
		// The owner's screens, each with its own light-scheme axe run in its own test file; here in
		// the dark scheme, so every screen is checked in both.
		const ownerScreens: Screen[] = [
			"vault",
			"shares",
			"requests",
			"templates",
			"members",
			"account",
			"transfer",
			"workspaces",
			"identities",
			"connections",
			"attestations",
			"credentials",
		].map((name): Screen => ({ name, path: `/app/${name}`, signedIn: true }));
		ownerScreens.push(
			{
				name: "vault-new-entry",
				path: "/app/vault",
				signedIn: true,
				prepare: openDialog(/^(New entry|Neuer Eintrag)$/),
			},
			{
				name: "members-invite",
				path: "/app/members",
				signedIn: true,
				prepare: openDialog(/^(Invite someone|Jemanden einladen)$/),
			},
			{
				name: "share-detail",
				path: "/app/shares",
				signedIn: true,
				prepare: async (page) => {
					await page.getByRole("link", { name: "Insurance" }).click();
					await page.getByRole("heading", { name: "Insurance" }).waitFor();
				},
			},
		);
		const shellScreens: Screen[] = [
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
		const screens = part === "owner" ? ownerScreens : shellScreens;

		for (const scheme of part === "ticket" ? [] : schemes) {
			for (const lang of langs) {
				for (const viewport of [DESKTOP, PHONE]) {
					const width = viewport === PHONE ? "phone" : "desktop";
					test(`axe finds no WCAG 2.2 AA violation (${lang}, ${width}, ${scheme})`, async () => {
						const found: string[] = [];
						// One tab signed in and one not, each moving through its screens.
						const tabs = new Map<boolean, AxeTab>();
						try {
							for (const s of screens) {
								let tab = tabs.get(s.signedIn);
								if (!tab) {
									tab = await AxeTab.open(browser, {
										lang,
										viewport,
										scheme,
										...(s.signedIn ? { token } : {}),
									});
									tabs.set(s.signedIn, tab);
								}
								const violations = await tab.check(`${server.origin}${s.path}`, {
									...(s.prepare ? { prepare: s.prepare } : {}),
									// Screenshots in English only: one picture per screen, width and scheme.
									...(lang === "en" ? { screenshot: s.name } : {}),
								});
								if (violations.length > 0)
									found.push(`${s.path} [${s.name}]:\n${describeViolations(violations)}`);
							}
						} finally {
							for (const tab of tabs.values()) await tab.close();
						}
						assert.deepEqual(found, [], found.join("\n\n"));
					});
				}
			}
		}

		if (extra === "palette")
			test("the dark scheme is really another palette: the body's background and text change, the console's header and the front page's card too", async () => {
				const pages = [
					{ name: "front", path: "/", signedIn: false, part: ".panel" },
					{ name: "sign-in", path: "/app/signin", signedIn: false, part: ".topbar" },
					{ name: "console shell", path: "/app/keys", signedIn: true, part: ".sidenav" },
					{ name: "passkey page", path: "/passkey", signedIn: false, part: "main" },
				];
				for (const p of pages) {
					const seen: Record<string, { background: string; color: string; part: string }> = {};
					for (const scheme of SCHEMES) {
						const context = await browser.newContext({ colorScheme: scheme, viewport: DESKTOP });
						if (p.signedIn) {
							await context.addInitScript({
								content: `sessionStorage.setItem("svc.session", ${JSON.stringify(token)});`,
							});
						}
						const page = await context.newPage();
						await page.goto(`${server.origin}${p.path}`);
						if (p.path.startsWith("/app")) await screenReady(page);
						await page.locator(p.part).first().waitFor();
						const body = await bodyColours(page);
						const part = await page.evaluate<string>(
							`getComputedStyle(document.querySelector(${JSON.stringify(p.part)})).backgroundColor`,
						);
						seen[scheme] = { ...body, part };
						await context.close();
					}
					const light = seen.light;
					const dark = seen.dark;
					assert.ok(light && dark);
					assert.notEqual(dark.background, light.background, `${p.name}: body background`);
					assert.notEqual(dark.color, light.color, `${p.name}: text colour`);
					assert.notEqual(dark.part, light.part, `${p.name}: ${p.part} background`);
					// Dark means dark: the background's channels are low, the text's high.
					const channels = (c: string) => (c.match(/\d+/g) ?? []).slice(0, 3).map(Number);
					assert.ok(
						Math.max(...channels(dark.background)) < 64,
						`${p.name}: dark background ${dark.background}`,
					);
					assert.ok(Math.min(...channels(dark.color)) > 180, `${p.name}: light text ${dark.color}`);
					assert.ok(
						Math.min(...channels(light.background)) > 230,
						`${p.name}: light background ${light.background}`,
					);
				}
			});

		if (part === "ticket")
			test(`the operator's ticket page (/passkey, README step 1): no violation before and after the passkey (en, de; desktop, phone; ${schemes.join(", ")})`, async () => {
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
				let made = 0;
				for (const scheme of schemes) {
					for (const lang of ["en", "de"] as const) {
						for (const viewport of [DESKTOP, PHONE]) {
							for (const [name, prepare] of [
								["passkey-ticket", ready(lang)],
								["passkey-ticket-done", created(lang)],
							] as const) {
								const email = name === "passkey-ticket-done" ? `ada${++made}@example.org` : "you@example.org";
								const violations = await axeCheck(browser, await operatorTicket(server, email), {
									lang,
									viewport,
									scheme,
									prepare,
									...(lang === "en" ? { screenshot: name } : {}),
								});
								if (violations.length > 0)
									found.push(
										`${name} (${lang}, ${viewport.width} px, ${scheme}):\n${describeViolations(violations)}`,
									);
							}
						}
					}
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});

		if (extra === "keyboard")
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
}
