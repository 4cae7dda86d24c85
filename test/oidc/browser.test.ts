// The OpenID Connect sign-in page in headless Chromium with a virtual authenticator: openid-client
// builds the authorization address, the person signs in with a passkey on the page, declines a
// scope, answers a requested key with an entry, and the redirect back is exchanged by
// openid-client; the service then reads the entry through the grant. The page runs under its CSP
// without a console error, and axe-core finds no WCAG 2.2 AA violation in English and German,
// before and after the sign-in. With SCREENSHOTS=1 it writes docs/screenshots/oidc-*.png.
//
// Runs once, not per database: the sign-in page in Chromium with openid-client; the provider's codes, tokens and claims run on both databases in oidc/provider.test.ts.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import type { Browser, Page } from "playwright-core";
import {
	AXE_TAGS,
	apiCall,
	DESKTOP,
	Device,
	describeViolations,
	launchBrowser,
	PHONE,
	type Scheme,
	type Server,
	sessionTokenOf,
	startServer,
} from "../helpers/browser.ts";
import { REPO_ROOT } from "../helpers/root.ts";

const ROOT = REPO_ROOT;
const SERVICE = "http://127.0.0.1:41011";
const CALLBACK = `${SERVICE}/auth/callback`;

async function screenshot(page: Page, name: string): Promise<void> {
	if (process.env.SCREENSHOTS !== "1") return;
	const width = page.viewportSize()?.width ?? 1280;
	const dark = await page.evaluate<boolean>('matchMedia("(prefers-color-scheme: dark)").matches');
	const file = path.join(
		ROOT,
		"docs/screenshots",
		`oidc-${name}${dark ? "-dark" : ""}-${width < 600 ? "phone" : "desktop"}.png`,
	);
	await page.screenshot({ path: file, fullPage: true, animations: "disabled", caret: "hide" });
}

/** A device whose account was made in this browser, so it holds the passkey. */
async function signedUpDevice(
	browser: Browser,
	server: Server,
	email: string,
	options: { bypassCSP?: boolean; viewport?: typeof DESKTOP; scheme?: Scheme } = {},
) {
	const device = await Device.create(browser, options);
	const page = await device.open(`${server.origin}/app/signup`);
	await page.getByLabel("Email").fill(email);
	await page.getByLabel("Your name (optional)").fill(email.split("@")[0] as string);
	await page.getByRole("button", { name: "Create a passkey" }).click();
	// Signed in: Sign out in the header, or on a phone the Menu button it sits behind.
	await page
		.getByRole("button", { name: /^(Sign out|Menu)$/ })
		.first()
		.waitFor({ timeout: 60_000 });
	const token = String(await sessionTokenOf(page));
	return { device, token };
}

/** The service's side: its callback answers a plain page, so the browser lands somewhere. */
async function serveCallback(page: Page): Promise<void> {
	await page.route(`${SERVICE}/**`, (route) =>
		route.fulfill({ status: 200, contentType: "text/plain", body: "signed in" }),
	);
}

async function axe(page: Page) {
	await page.addScriptTag({ path: path.join(ROOT, "node_modules/axe-core/axe.min.js") });
	return page.evaluate<{ id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[]>(
		`axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(AXE_TAGS)} } }).then((r) => r.violations)`,
	);
}

describe("the OpenID Connect sign-in page in Chromium", { timeout: 300_000 }, () => {
	let server: Server;
	let browser: Browser;
	let config: oidc.Configuration;

	before(async () => {
		server = await startServer({ allowSignups: true });
		browser = await launchBrowser();
		config = await oidc.discovery(new URL(server.origin), SERVICE, undefined, oidc.None(), {
			execute: [oidc.allowInsecureRequests],
		});
		oidc.enableNonRepudiationChecks(config);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	async function authorizationUrl(scope: string, extra: Record<string, string> = {}) {
		const verifier = oidc.randomPKCECodeVerifier();
		const state = oidc.randomState();
		const nonce = oidc.randomNonce();
		const url = oidc.buildAuthorizationUrl(config, {
			redirect_uri: CALLBACK,
			scope,
			code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
			code_challenge_method: "S256",
			state,
			nonce,
			...extra,
		});
		return { url, verifier, state, nonce };
	}

	test("sign in with a passkey, decline a scope, answer a key with an entry; the service reads it live", async () => {
		const { device, token } = await signedUpDevice(browser, server, "ada@example.org");
		const made = await apiCall(server, token, "POST", "/api/collections/records/records", {
			key: "iban",
			name: "Main account",
			value: "DE00 1234",
		});
		assert.equal(made.status, 200);
		const entry = (await made.json()) as { id: string };

		const flow = await authorizationUrl("openid profile email", {
			claims: JSON.stringify({ userinfo: { svc_links: { values: ["iban"] } } }),
		});
		const page = await device.open(flow.url.href);
		await serveCallback(page);
		await page.getByRole("heading", { name: "Sign in to 127.0.0.1:41011" }).waitFor();
		await page.getByRole("button", { name: "Sign in with a passkey" }).click();
		const consent = page.locator("#consent");
		await consent.waitFor({ state: "visible", timeout: 60_000 });
		assert.match(String(await page.locator("#account").textContent()), /ada@example\.org/);
		await page.getByLabel(/Your email address/).uncheck();
		assert.equal(
			await page.getByLabel("iban").inputValue(),
			entry.id,
			"the entry under the key is offered first",
		);
		await page.getByRole("button", { name: "Allow" }).click();
		await page.waitForURL(`${CALLBACK}?**`);

		const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), {
			pkceCodeVerifier: flow.verifier,
			expectedState: flow.state,
			expectedNonce: flow.nonce,
			idTokenExpected: true,
		});
		const { payload } = await jwtVerify(
			tokens.id_token as string,
			createRemoteJWKSet(new URL(`${server.origin}/oidc/jwks`)),
			{
				issuer: server.origin,
				audience: SERVICE,
			},
		);
		assert.equal(payload.name, "ada");
		assert.equal(payload.email, undefined, "declined on the page");
		const info = (await oidc.fetchUserInfo(config, tokens.access_token, payload.sub as string)) as {
			svc_links?: { endpoint: string; grants: { id: string; token: string; keys: string[] }[] };
		};
		const grant = info.svc_links?.grants[0];
		assert.ok(grant);
		assert.deepEqual(grant.keys, ["iban"]);
		const read = await fetch(`${server.api}/api/grants/resolve`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ grants: [{ id: grant.id, token: grant.token }] }),
		});
		const items = ((await read.json()) as { items: { values: { key: string; value: string }[] }[] }).items;
		assert.deepEqual(
			items[0]?.values.map((v) => [v.key, v.value]),
			[["iban", "DE00 1234"]],
		);
		assert.deepEqual(device.unexpectedErrors(), [], "no CSP or script error on the page");
		await device.close();
	});

	test("declining sends the person back with access_denied", async () => {
		const { device } = await signedUpDevice(browser, server, "grace@example.org");
		const flow = await authorizationUrl("openid email");
		const page = await device.open(flow.url.href);
		await serveCallback(page);
		await page.getByRole("button", { name: "Sign in with a passkey" }).click();
		await page.locator("#consent").waitFor({ state: "visible", timeout: 60_000 });
		await page.getByRole("button", { name: "Decline" }).click();
		await page.waitForURL(`${CALLBACK}?**`);
		const back = new URL(page.url());
		assert.equal(back.searchParams.get("error"), "access_denied");
		assert.equal(back.searchParams.get("state"), flow.state);
		assert.equal(back.searchParams.get("iss"), server.origin);
		assert.deepEqual(device.unexpectedErrors(), []);
		await device.close();
	});

	for (const [lang, viewport, scheme] of [
		["en", DESKTOP, "light"],
		["de", PHONE, "light"],
		["en", PHONE, "dark"],
		["de", DESKTOP, "dark"],
	] as const) {
		test(`axe-core: no violations before and after sign-in (${lang}, ${viewport.width} px, ${scheme})`, async () => {
			const { device } = await signedUpDevice(browser, server, `axe-${lang}-${scheme}@example.org`, {
				bypassCSP: true,
				viewport,
				scheme,
			});
			const flow = await authorizationUrl("openid profile email svc_identity", {
				ui_locales: lang,
				claims: JSON.stringify({ userinfo: { svc_links: { values: ["iban", "phone"] } } }),
			});
			const page = await device.open(flow.url.href);
			assert.equal(await page.locator("html").getAttribute("lang"), lang);
			const heading = lang === "de" ? "Bei 127.0.0.1:41011 anmelden" : "Sign in to 127.0.0.1:41011";
			await page.getByRole("heading", { name: heading }).waitFor();
			await screenshot(page, `signin-${lang}`);
			let violations = await axe(page);
			assert.deepEqual(violations, [], describeViolations(violations as never));
			await page
				.getByRole("button", { name: lang === "de" ? "Mit Passkey anmelden" : "Sign in with a passkey" })
				.click();
			await page.locator("#consent").waitFor({ state: "visible", timeout: 60_000 });
			await screenshot(page, `consent-${lang}`);
			violations = await axe(page);
			assert.deepEqual(violations, [], describeViolations(violations as never));
			await device.close();
		});
	}

	test("a refusal that cannot go back is a page, in the person's language", async () => {
		const device = await Device.create(browser, { locale: "de-DE" });
		const page = await device.open(`${server.origin}/oidc/authorize?client_id=nope&redirect_uri=x`);
		assert.equal(await page.locator("html").getAttribute("lang"), "de");
		await page.getByRole("heading", { name: "Diese Anmeldung kann nicht beginnen" }).waitFor();
		assert.match(String(await page.getByRole("alert").textContent()), /client_id/);
		await device.close();
	});
});
