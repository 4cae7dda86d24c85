// End to end in headless Chromium with a CDP virtual authenticator (ctap2, internal, resident keys,
// user verification): sign up on /passkey, sign in, capture the svc://auth result, redeem the code.
//
// Runs once, not per database: the ceremonies in Chromium's virtual authenticator; the same ceremonies run on both databases with a software authenticator (passkeys/*.test.ts).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addAuthenticator, freePort, launchBrowser } from "../helpers/browser.ts";
import { pkce } from "../helpers/webauthn.ts";

/**
 * One device: a browser context whose virtual authenticator (ctap2, internal, resident keys, user
 * verification) keeps its credentials across tabs. Each page gets a fresh tab: after a page has
 * launched svc://, headless Chromium swallows the tab's next click (its external-protocol prompt),
 * so the credentials move to the new tab's authenticator as they would stay on a real device.
 */
class Device {
	page: Page | undefined;
	/** svc:// launches the pages attempted (Chromium reports the first one per user gesture). */
	readonly appLinks: string[] = [];
	/** Console errors: a CSP violation would show here. */
	readonly errors: string[] = [];
	private credentials: unknown[] = [];
	private cdp: CDPSession | undefined;
	private authenticatorId = "";

	constructor(readonly context: BrowserContext) {}

	async open(url: string) {
		if (this.page && this.cdp) {
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
		page.on("request", (r) => {
			if (r.url().startsWith("svc:")) this.appLinks.push(r.url());
		});
		page.on("console", (m) => {
			if (m.type() === "error") this.errors.push(m.text());
		});
		page.on("pageerror", (e) => this.errors.push(e.message));
		Object.assign(this, { page, cdp, authenticatorId });
		return { page, response: await page.goto(url) };
	}
}

describe("passkey page in Chromium", { timeout: 240_000 }, () => {
	let t: TestApp;
	let browser: Browser;
	let origin: string;
	let api: string;

	before(async () => {
		const port = await freePort();
		t = await makeApp({ port, allowSignups: true });
		await t.app.listen({ port, host: "127.0.0.1" });
		origin = `http://localhost:${port}`;
		api = `http://127.0.0.1:${port}`;
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await t?.close();
	});

	async function device(): Promise<Device> {
		return new Device(await browser.newContext());
	}

	/** Waits for the page's result and returns the svc://auth link it shows. */
	async function result(page: Page): Promise<URL> {
		// The result, or the page's error (reported so a failure says why).
		await page.locator("#result:not([hidden]), #error:not([hidden])").first().waitFor({ timeout: 60_000 });
		if (await page.locator("#error").isVisible()) {
			assert.fail(`the page shows an error: ${String(await page.locator("#error").textContent())}`);
		}
		const href = await page.locator("#result-link").getAttribute("href");
		const code = await page.locator("#result-code").textContent();
		assert.ok(href, "the result shows a link");
		const link = new URL(href);
		assert.equal(link.protocol, "svc:");
		assert.equal(link.host, "auth");
		assert.equal(link.searchParams.get("code"), code, "the code shown is the code in the link");
		return link;
	}

	async function redeem(code: string, verifier: string) {
		const res = await fetch(`${api}/api/passkeys/token`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ code, verifier }),
		});
		assert.equal(res.status, 200, await res.clone().text());
		return (await res.json()) as { token: string; record: { id: string; email: string } };
	}

	async function me(token: string) {
		const res = await fetch(`${api}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
		return { status: res.status, body: (await res.json()) as { record: { id: string; email: string } } };
	}

	test("sign up, sign in, add a passkey with a ticket, sign in with it", async () => {
		const laptop = await device();
		const addr = `ada-${crypto.randomBytes(3).toString("hex")}@example.org`;

		// Sign up with a PKCE challenge: the page ends at svc://auth with a redeemable code.
		const signup = pkce();
		const state1 = crypto.randomBytes(12).toString("base64url");
		const opened = await laptop.open(
			`${origin}/passkey?mode=signup&challenge=${signup.challenge}&state=${state1}`,
		);
		assert.equal(opened.response?.status(), 200);
		assert.match(String(opened.response?.headers()["content-security-policy"]), /script-src 'self'/);
		await opened.page.getByLabel("Email").fill(addr);
		await opened.page.getByLabel("Your name (optional)").fill("Ada");
		await opened.page.getByRole("button", { name: "Create a passkey" }).click();
		const link1 = await result(opened.page);
		assert.equal(link1.searchParams.get("state"), state1);
		const first = await redeem(link1.searchParams.get("code") as string, signup.verifier);
		assert.equal(first.record.email, addr);
		// The page launched the app link itself.
		assert.deepEqual(laptop.appLinks, [link1.toString()]);

		// Sign in as the app does: a fresh challenge and state, a discoverable credential.
		const signin = pkce();
		const state2 = crypto.randomBytes(12).toString("base64url");
		const { page } = await laptop.open(
			`${origin}/passkey?mode=signin&challenge=${signin.challenge}&state=${state2}`,
		);
		await page.getByRole("button", { name: "Sign in with a passkey" }).click();
		const link2 = await result(page);
		assert.equal(link2.searchParams.get("state"), state2);
		const session = await redeem(link2.searchParams.get("code") as string, signin.verifier);
		assert.equal(session.record.id, first.record.id);
		const who = await me(session.token);
		assert.equal(who.status, 200);
		assert.equal(who.body.record.email, addr);

		// A second device joins the account with a one-time ticket from the signed-in app.
		const ticketRes = await fetch(`${api}/api/passkeys/tickets`, {
			method: "POST",
			headers: { authorization: `Bearer ${session.token}` },
		});
		assert.equal(ticketRes.status, 200);
		const { url } = (await ticketRes.json()) as { url: string };
		assert.ok(url.startsWith(`${origin}/passkey?mode=signup&ticket=`));
		const phone = await device();
		const add = await phone.open(url);
		assert.match(String(await add.page.locator("main").textContent()), new RegExp(addr.replace(".", "\\.")));
		await add.page.getByRole("button", { name: "Create a passkey" }).click();
		await add.page.locator("#result").waitFor({ state: "visible", timeout: 60_000 });
		assert.match(String(await add.page.locator("#result-text").textContent()), /passkey is saved/);

		const phoneSignin = pkce();
		const again = await phone.open(
			`${origin}/passkey?mode=signin&challenge=${phoneSignin.challenge}&state=s3`,
		);
		await again.page.getByRole("button", { name: "Sign in with a passkey" }).click();
		const link3 = await result(again.page);
		const phoneSession = await redeem(link3.searchParams.get("code") as string, phoneSignin.verifier);
		assert.equal(phoneSession.record.id, first.record.id);

		// The ticket is spent: opening it again says so.
		const spent = await phone.open(url);
		assert.match(String(await spent.page.locator("h1").textContent()), /Link expired/);

		for (const d of [laptop, phone]) {
			assert.deepEqual(
				d.errors.filter((e) => /Content Security Policy|Refused/i.test(e)),
				[],
				"no CSP violations",
			);
			await d.context.close();
		}
	});

	test("a refusal is shown on the page: the email is taken", async () => {
		const d = await device();
		const addr = `taken-${crypto.randomBytes(3).toString("hex")}@example.org`;
		const first = await d.open(`${origin}/passkey?mode=signup`);
		await first.page.getByLabel("Email").fill(addr);
		await first.page.getByRole("button", { name: "Create a passkey" }).click();
		await first.page.locator("#result").waitFor({ state: "visible", timeout: 60_000 });
		assert.match(String(await first.page.locator("#result-text").textContent()), /sign in from the app/);
		assert.equal(await first.page.locator("#result-app").isVisible(), false, "no code without a challenge");

		const second = await d.open(`${origin}/passkey?mode=signup`);
		await second.page.getByLabel("Email").fill(addr);
		await second.page.getByRole("button", { name: "Create a passkey" }).click();
		await second.page.locator("#error").waitFor({ state: "visible", timeout: 60_000 });
		assert.match(String(await second.page.locator("#error").textContent()), /passkey_email_taken/);
		await d.context.close();
	});

	test("in German (Accept-Language): the page and its script speak German, error codes stay", async () => {
		const d = new Device(await browser.newContext({ locale: "de-DE" }));
		const addr = `de-${crypto.randomBytes(3).toString("hex")}@example.org`;
		const first = await d.open(`${origin}/passkey?mode=signup`);
		assert.equal(first.response?.headers()["content-language"], "de");
		assert.equal(await first.page.locator("html").getAttribute("lang"), "de");
		await first.page.getByRole("heading", { level: 1, name: /^Konto auf localhost anlegen$/ }).waitFor();
		await first.page.getByLabel("E-Mail").fill(addr);
		await first.page.getByLabel("Ihr Name (optional)").fill("Ada");
		await first.page.getByRole("button", { name: "Passkey erstellen" }).click();
		await first.page.locator("#result").waitFor({ state: "visible", timeout: 60_000 });
		assert.equal(await first.page.locator("#result-heading").textContent(), "Fertig");
		assert.match(
			String(await first.page.locator("#result-text").textContent()),
			/^Ihr Passkey ist gespeichert\. Sie können sich jetzt in der App anmelden/,
		);
		assert.equal(await first.page.getByRole("link", { name: "Konsole öffnen" }).isVisible(), true);

		const second = await d.open(`${origin}/passkey?mode=signup`);
		await second.page.getByLabel("E-Mail").fill(addr);
		await second.page.getByRole("button", { name: "Passkey erstellen" }).click();
		const error = second.page.locator("#error");
		await error.waitFor({ state: "visible", timeout: 60_000 });
		assert.match(String(await error.textContent()), /Zu dieser E-Mail-Adresse gibt es ein Konto\./);
		assert.match(String(await error.textContent()), /Fehlercode: passkey_email_taken/);

		// ?lang=en wins over the German browser.
		const en = await d.open(`${origin}/passkey?mode=signup&lang=en`);
		assert.equal(await en.page.locator("html").getAttribute("lang"), "en");
		await en.page.getByLabel("Email").fill(addr);
		await en.page.getByRole("button", { name: "Create a passkey" }).click();
		await en.page.locator("#error").waitFor({ state: "visible", timeout: 60_000 });
		assert.match(String(await en.page.locator("#error").textContent()), /Error code: passkey_email_taken/);
		assert.deepEqual(
			d.errors.filter((e) => /Content Security Policy|Refused/i.test(e)),
			[],
			"no CSP violations",
		);
		await d.context.close();
	});

	test("the page at a loopback IP refuses and points to the server's own address", async () => {
		const d = await device();
		const { page, response } = await d.open(
			`${api}/passkey?mode=signin&challenge=${pkce().challenge}&state=x`,
		);
		assert.equal(response?.status(), 400);
		assert.match(String(await page.locator("main").textContent()), /passkey_origin_invalid/);
		const href = await page.getByRole("link").getAttribute("href");
		assert.ok(href?.startsWith(`${origin}/passkey?`));
		await d.context.close();
	});
});
