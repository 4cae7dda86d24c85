// Headless Chromium for the pages this server renders (the console, the front page, the passkey
// page): a listening app on http://localhost:<port> (the passkey origin), devices with a CDP
// virtual authenticator, axe-core checks and screenshots. Screen tests stay short with these.
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import {
	type Browser,
	type BrowserContext,
	type CDPSession,
	chromium,
	type Locator,
	type Page,
	type ViewportSize,
} from "playwright-core";
import type { AppDeps } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import { issueOperatorTicket, relyingParty, ticketUrl } from "../../src/features/passkeys/service.ts";
import { makeApp, type TestApp } from "./app.ts";
import { PasskeyClient } from "./passkeys.ts";
import { REPO_ROOT } from "./root.ts";
import { pkce } from "./webauthn.ts";

/**
 * Debian's old headless shell (package chromium-headless-shell: the same Blink, V8 and DevTools
 * protocol as `chromium`, without the browser's UI layer, the one Playwright itself runs headless)
 * when installed, else Debian's chromium. The shell costs about half the CPU per page (docs/testing.md,
 * "Chromium: contexts and page loads"); CHROMIUM_PATH chooses either.
 */
export const CHROMIUM =
	process.env.CHROMIUM_PATH ??
	(fs.existsSync("/usr/bin/chromium-headless-shell")
		? "/usr/bin/chromium-headless-shell"
		: "/usr/bin/chromium");
const ROOT = REPO_ROOT;

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
		});
	});
}

function launchChromium(): Promise<Browser> {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
	}
	return chromium.launch({
		executablePath: CHROMIUM,
		args: [
			"--headless",
			"--no-sandbox",
			"--disable-gpu",
			"--disable-quic",
			"--no-first-run",
			"--disable-background-networking",
			"--disable-component-update",
			"--disable-sync",
			"--font-render-hinting=none",
			// Pages of one context reuse its renderer instead of starting one each (about a
			// core-second a page on these machines); contexts never share one, so what one
			// context's storage holds stays its own.
			"--renderer-process-limit=1",
		],
	});
}

/** The one Chromium of this process, started by the first file that asks for a browser. */
let chromiumOfProcess: Promise<Browser> | undefined;
/** Handles not closed yet; when the last one closes, Chromium stops unless another file asks. */
let handles = 0;
let stopping: NodeJS.Timeout | undefined;
/** Long enough for the next file of the process to ask for the browser (milliseconds apart). */
const IDLE_MS = 1_000;

/**
 * A browser for one test file: the process's Chromium (the runner puts several browser files in
 * one process, scripts/test-batch.mjs), seen through a handle whose `close()` closes the contexts
 * this file opened and leaves Chromium running for the next file. Every file's devices are still
 * contexts of their own, as before; what the files share is the browser process, whose start
 * costs about seven core-seconds (docs/testing.md, "Where the time goes"). A second after the
 * last handle closes, with no file asking again, Chromium stops and the process can end.
 */
export async function launchBrowser(): Promise<Browser> {
	clearTimeout(stopping);
	chromiumOfProcess ??= launchChromium();
	const shared = await chromiumOfProcess.catch((error) => {
		chromiumOfProcess = undefined;
		throw error;
	});
	handles++;
	let closed = false;
	const opened = new Set<BrowserContext>();
	const track = (context: BrowserContext) => {
		opened.add(context);
		context.once("close", () => opened.delete(context));
		return context;
	};
	return new Proxy(shared, {
		get(target, property) {
			switch (property) {
				case "close":
					return async () => {
						await Promise.all([...opened].map((context) => context.close()));
						if (closed) return;
						closed = true;
						if (--handles > 0) return;
						// The browser's pipe would keep the process alive after its last file.
						stopping = setTimeout(() => {
							const last = chromiumOfProcess;
							chromiumOfProcess = undefined;
							void last?.then((browser) => browser.close());
						}, IDLE_MS);
					};
				case "contexts":
					return () => [...opened];
				case "newContext":
					return async (...args: Parameters<Browser["newContext"]>) =>
						track(await target.newContext(...args));
				case "newPage":
					return async (...args: Parameters<Browser["newPage"]>) => {
						const page = await target.newPage(...args);
						track(page.context());
						return page;
					};
				default: {
					const value = Reflect.get(target, property, target);
					return typeof value === "function" ? value.bind(target) : value;
				}
			}
		},
	});
}

export interface Server {
	t: TestApp;
	/** http://localhost:<port>: the passkey origin, where the console runs. */
	origin: string;
	/** http://127.0.0.1:<port>: for API calls from the test itself. */
	api: string;
	close(): Promise<void>;
}

/** A listening app on a free port (a browser needs a socket); the console is built on first use. */
export async function startServer(overrides: Partial<Config> = {}, deps: AppDeps = {}): Promise<Server> {
	const port = await freePort();
	const t = await makeApp({ port, ...overrides }, deps);
	await t.app.listen({ port, host: "127.0.0.1" });
	return { t, origin: `http://localhost:${port}`, api: `http://127.0.0.1:${port}`, close: () => t.close() };
}

/** The URL `svc admin ticket --email` prints. */
export async function operatorTicket(server: Server, email: string): Promise<string> {
	const issued = await issueOperatorTicket(server.t.app.store.db, email, server.t.app.clock.now());
	return ticketUrl(relyingParty(server.t.app.config), issued.ticket);
}

/**
 * The first owner as the README makes it with the defaults (sign-ups off): the operator's ticket,
 * one passkey, a session token. Over HTTP without a browser.
 */
export async function ticketAccount(server: Server, email: string, name = email.split("@")[0]) {
	const issued = await issueOperatorTicket(server.t.app.store.db, email, server.t.app.clock.now());
	const client = new PasskeyClient(server.t.app);
	const { verifier, challenge } = pkce();
	const res = await client.register({ ticket: issued.ticket, challenge, name });
	if (res.statusCode !== 200) throw new Error(`register/finish ${res.statusCode}: ${res.body}`);
	return client.redeem(res.json().code, verifier);
}

/** An account with one passkey and a session token, made over HTTP without a browser. */
export async function signedUpAccount(server: Server, email: string) {
	const client = new PasskeyClient(server.t.app);
	return client.signup(email, { name: email.split("@")[0] });
}

/** Calls the API as a session. */
export async function apiCall(
	server: Server,
	token: string,
	method: string,
	url: string,
	body?: unknown,
): Promise<Response> {
	return fetch(`${server.api}${url}`, {
		method,
		headers: {
			authorization: `Bearer ${token}`,
			...(body === undefined ? {} : { "content-type": "application/json" }),
		},
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
}

/** A CDP virtual authenticator (ctap2, internal, resident keys, user verification) for one tab. */
export async function addAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
	const cdp = await page.context().newCDPSession(page);
	await cdp.send("WebAuthn.enable");
	const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
		options: {
			protocol: "ctap2",
			transport: "internal",
			hasResidentKey: true,
			hasUserVerification: true,
			isUserVerified: true,
			automaticPresenceSimulation: true,
		},
	});
	return { cdp, authenticatorId };
}

/**
 * One device: a browser context whose virtual authenticator (ctap2, internal, resident keys, user
 * verification) keeps its credentials across tabs, with the console errors each tab reported.
 */
export class Device {
	page!: Page;
	/** Console errors and page errors: a CSP violation shows here. */
	readonly errors: string[] = [];
	private credentials: unknown[] = [];
	private cdp: CDPSession | undefined;
	private authenticatorId = "";

	private constructor(readonly context: BrowserContext) {}

	static async create(
		browser: Browser,
		/** `bypassCSP` lets axe-core be injected; a device checking the CSP leaves it off. */
		options: { locale?: string; viewport?: ViewportSize; bypassCSP?: boolean; scheme?: Scheme } = {},
	): Promise<Device> {
		const context = await browser.newContext({
			locale: options.locale ?? "en-US",
			viewport: options.viewport ?? { width: 1280, height: 800 },
			bypassCSP: options.bypassCSP ?? false,
			colorScheme: options.scheme ?? "light",
		});
		return new Device(context);
	}

	/** Opens `url` in a fresh tab holding this device's passkeys. */
	async open(url: string): Promise<Page> {
		if (this.cdp) {
			const { credentials } = await this.cdp.send("WebAuthn.getCredentials", {
				authenticatorId: this.authenticatorId,
			});
			this.credentials = credentials;
			await this.page.close();
		}
		const page = await this.context.newPage();
		const { cdp, authenticatorId } = await addAuthenticator(page);
		for (const credential of this.credentials) {
			await cdp.send("WebAuthn.addCredential", { authenticatorId, credential: credential as never });
		}
		page.on("console", (m) => {
			if (m.type() === "error") this.errors.push(m.text());
		});
		page.on("pageerror", (e) => this.errors.push(e.message));
		this.page = page;
		this.cdp = cdp;
		this.authenticatorId = authenticatorId;
		await page.goto(url);
		return page;
	}

	/** How many passkeys this device holds. */
	async passkeyCount(): Promise<number> {
		if (!this.cdp) return this.credentials.length;
		const { credentials } = await this.cdp.send("WebAuthn.getCredentials", {
			authenticatorId: this.authenticatorId,
		});
		return credentials.length;
	}

	/** Errors other than expected API refusals (a 4xx fetch logs "Failed to load resource"). */
	unexpectedErrors(): string[] {
		return this.errors.filter(
			(e) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(e),
		);
	}

	close(): Promise<void> {
		return this.context.close();
	}
}

/** Waits until a console screen has its heading and nothing is loading. */
export async function screenReady(page: Page, heading?: string | RegExp): Promise<void> {
	const h1 = heading ? page.getByRole("heading", { level: 1, name: heading }) : page.locator("main h1");
	await h1.waitFor({ state: "visible", timeout: 60_000 });
	await page.locator(".loading").first().waitFor({ state: "detached", timeout: 60_000 });
}

/** The session token the console keeps in this tab's sessionStorage. */
export function sessionTokenOf(page: Page): Promise<string | null> {
	// Page code as text: the server's type check has no DOM library.
	return page.evaluate<string | null>('sessionStorage.getItem("svc.session")');
}

/** Signs the console in this tab in with `token` (takes effect on the next load). */
export async function setSessionToken(page: Page, token: string): Promise<void> {
	await page.evaluate(`sessionStorage.setItem("svc.session", ${JSON.stringify(token)})`);
}

export interface Focused {
	tag: string;
	id: string;
	text: string;
	/** Inside a <nav>. */
	inNav: boolean;
	outlineStyle: string;
	top: number;
}

/**
 * What has the keyboard focus, and whether it shows (its outline style). Read after the next frame
 * and a task: Preact runs effects (where screens move the focus) after paint, so a test that saw
 * the new content may otherwise look before the effect ran.
 */
export async function focused(page: Page): Promise<Focused> {
	await page.evaluate("new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))");
	return page.evaluate<Focused>(`(() => {
		const el = document.activeElement;
		const style = getComputedStyle(el);
		return {
			tag: el.tagName.toLowerCase(),
			id: el.id,
			text: (el.textContent || "").trim(),
			inNav: Boolean(el.closest("nav")),
			outlineStyle: style.outlineStyle,
			top: el.getBoundingClientRect().top,
		};
	})()`);
}

/** Presses Tab until `locator` has the focus (at most `max` times); false when it never does. */
export async function tabTo(page: Page, locator: Locator, max = 40): Promise<boolean> {
	for (let i = 0; i <= max; i++) {
		if ((await locator.and(page.locator(":focus")).count()) > 0) return true;
		await page.keyboard.press("Tab");
	}
	return false;
}

export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
	id: string;
	impact: string | null;
	help: string;
	nodes: { target: string[]; failureSummary?: string }[];
}

/** Runs axe-core's WCAG 2.2 AA rules on the page as it is (axe injected already). */
function runAxe(page: Page): Promise<AxeViolation[]> {
	// Only violations are reported: axe skips building the passes' and the incompletes' node lists.
	const options = { runOnly: { type: "tag", values: AXE_TAGS }, resultTypes: ["violations"] };
	return page.evaluate<AxeViolation[]>(
		`axe.run(document, ${JSON.stringify(options)}).then((r) => r.violations)`,
	);
}

interface AxeOptions {
	token?: string;
	lang?: "en" | "de";
	viewport?: ViewportSize;
	/** The reader's `prefers-color-scheme`; light when absent. */
	scheme?: Scheme;
}

interface AxeScreen {
	/** Brings the page to the state to check (a dialog open). */
	prepare?: (page: Page) => Promise<void>;
	/** Writes docs/screenshots/console-<name>[-dark]-<desktop|phone>.png when SCREENSHOTS=1. */
	screenshot?: string;
}

/** A context that bypasses the CSP (axe is injected as an inline script, which the pages rightly refuse). */
async function axeContext(browser: Browser, options: AxeOptions): Promise<BrowserContext> {
	const context = await browser.newContext({
		bypassCSP: true,
		locale: options.lang === "de" ? "de-DE" : "en-US",
		viewport: options.viewport ?? DESKTOP,
		colorScheme: options.scheme ?? "light",
	});
	const init = [
		options.token ? `sessionStorage.setItem("svc.session", ${JSON.stringify(options.token)});` : "",
		options.lang ? `localStorage.setItem("svc.lang", ${JSON.stringify(options.lang)});` : "",
	];
	await context.addInitScript({ content: init.join("\n") });
	return context;
}

async function checkLoaded(page: Page, url: string, screen: AxeScreen): Promise<AxeViolation[]> {
	if (new URL(url).pathname.startsWith("/app")) await screenReady(page);
	if (screen.prepare) await screen.prepare(page);
	if (screen.screenshot) await screenshot(page, screen.screenshot);
	if (!(await page.evaluate<boolean>('typeof axe === "object"')))
		await page.addScriptTag({ content: axeSource });
	return runAxe(page);
}

/** The tabs `axeCheck` keeps, per browser and reader; the oldest is closed past `AXE_TABS`. */
const axeTabs = new WeakMap<Browser, Map<string, AxeTab>>();
const AXE_TABS = 8;

/**
 * axe-core's WCAG 2.2 AA rules on a page loaded afresh. `token` signs the console in; `prepare`
 * brings the page to the state to check (a dialog open). The page is loaded in a tab kept for
 * its reader (language, width, scheme, token): a new context and its first load cost this
 * machine five times what the check does (docs/testing.md, "Where the time goes").
 */
export async function axeCheck(
	browser: Browser,
	url: string,
	options: AxeOptions & AxeScreen = {},
): Promise<AxeViolation[]> {
	let tabs = axeTabs.get(browser);
	if (!tabs) {
		tabs = new Map();
		axeTabs.set(browser, tabs);
	}
	const key = JSON.stringify([options.lang, options.viewport, options.scheme, options.token]);
	let tab = tabs.get(key);
	if (!tab) {
		if (tabs.size >= AXE_TABS) {
			const [oldest, gone] = tabs.entries().next().value as [string, AxeTab];
			tabs.delete(oldest);
			await gone.close();
		}
		tab = await AxeTab.open(browser, options);
		tabs.set(key, tab);
	}
	return tab.check(url, options, { load: true });
}

/**
 * axe-core on many screens of one reader (language, width, scheme, signed in or not) in one tab,
 * as a person moves through the console: the first screen is loaded, the next ones are reached
 * by the console's own router (history and `popstate`, what its links and the back button use),
 * so the bundle and axe are loaded once. A screen on the path already shown (another dialog of
 * it), or outside the console, is loaded afresh. A context and a page load cost about two thirds
 * of a check (measured in docs/testing.md, "Where the time goes").
 */
export class AxeTab {
	private page: Page | undefined;

	private constructor(private readonly context: BrowserContext) {}

	static async open(browser: Browser, options: AxeOptions = {}): Promise<AxeTab> {
		return new AxeTab(await axeContext(browser, options));
	}

	/** `load`: load the page afresh even where the console's router could reach it. */
	async check(
		url: string,
		screen: AxeScreen = {},
		options: { load?: boolean } = {},
	): Promise<AxeViolation[]> {
		const target = new URL(url);
		const page = this.page;
		const here = page ? new URL(page.url()) : undefined;
		const inConsole = (u: URL) => u.pathname.startsWith("/app");
		if (
			!options.load &&
			page &&
			here &&
			here.origin === target.origin &&
			inConsole(here) &&
			inConsole(target) &&
			here.pathname !== target.pathname
		) {
			// The heading of the screen shown: the next screen is ready when another one replaces it.
			const before = await page.evaluate<string | null>(
				'document.querySelector("main h1")?.textContent ?? null',
			);
			await page.evaluate(
				`history.pushState(null, "", ${JSON.stringify(target.pathname + target.search)}); dispatchEvent(new PopStateEvent("popstate"));`,
			);
			await page.waitForFunction(
				`location.pathname === ${JSON.stringify(target.pathname)} && (document.querySelector("main h1")?.textContent ?? null) !== ${JSON.stringify(before)}`,
				undefined,
				{ timeout: 60_000 },
			);
			return checkLoaded(page, url, screen);
		}
		this.page ??= await this.context.newPage();
		// The same address but for its fragment would be a move within the page, not a load.
		if (here && here.origin + here.pathname + here.search === target.origin + target.pathname + target.search)
			await this.page.goto("about:blank");
		await this.page.goto(url);
		return checkLoaded(this.page, url, screen);
	}

	close(): Promise<void> {
		return this.context.close();
	}
}

export function describeViolations(violations: AxeViolation[]): string {
	return violations
		.map(
			(v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(" ")}`).join("\n")}`,
		)
		.join("\n");
}

export type Scheme = "light" | "dark";
export const SCHEMES: readonly Scheme[] = ["light", "dark"];

/** The page's body background and text colour as computed: what a colour scheme changes. */
export function bodyColours(page: Page): Promise<{ background: string; color: string }> {
	return page.evaluate<{ background: string; color: string }>(
		"(() => { const s = getComputedStyle(document.body); return { background: s.backgroundColor, color: s.color }; })()",
	);
}

export const DESKTOP: ViewportSize = { width: 1280, height: 800 };
export const PHONE: ViewportSize = { width: 390, height: 844 };

/**
 * With SCREENSHOTS=1, writes the page to docs/screenshots/console-<name>-<desktop|phone>.png (with
 * `-dark` before the width when the page is in the dark scheme): the whole page, or the viewport
 * while a modal dialog is open.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
	if (process.env.SCREENSHOTS !== "1") return;
	const width = page.viewportSize()?.width ?? 1280;
	const dark = await page.evaluate<boolean>('matchMedia("(prefers-color-scheme: dark)").matches');
	const file = path.join(
		ROOT,
		"docs/screenshots",
		`console-${name}${dark ? "-dark" : ""}-${width < 600 ? "phone" : "desktop"}.png`,
	);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	// A modal dialog's backdrop covers the viewport only: a full-page picture would show the page
	// below it undimmed.
	const modal = await page.evaluate<boolean>('document.querySelector("dialog:modal") !== null');
	await page.screenshot({ path: file, fullPage: !modal, animations: "disabled", caret: "hide" });
}
