// Outgoing e-mail in the console (issue 41), in Chromium, on a server with mail on (a real SMTP
// server with STARTTLS and AUTH receives what is sent): the confirmation page a verify mail links
// to; the account's "also by e-mail" switches and mail language; the invite dialog's "Send it by
// e-mail"; a request's "Send by e-mail". Each really sends (the message arrives); axe-core clean in
// English and German at 1280 and 390 px; screenshots with SCREENSHOTS=1.
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
	screenshot,
	setSessionToken,
	signedUpAccount,
	startServer,
} from "../helpers/browser.ts";
import { linkIn, type SmtpServer, startSmtp } from "../helpers/smtp.ts";

describe("mail in the console", { timeout: 900_000 }, () => {
	let smtp: SmtpServer;
	let server: Server;
	let browser: Browser;
	let device: Device;
	let page: Page;
	let token: string;

	const api = async (method: string, url: string, body?: unknown) => {
		const res = await apiCall(server, token, method, url, body);
		assert.ok(res.ok, `${method} ${url}: ${res.status} ${await res.clone().text()}`);
		return (await res.json()) as Record<string, unknown>;
	};
	/** One outbox pass; the messages that arrived in it. */
	const drain = async () => {
		const from = smtp.received.length;
		await server.t.app.background.drainOnce(Date.now());
		return smtp.received.slice(from);
	};
	/** A fresh verify link for the account, through a real mail. */
	const verifyLink = async () => {
		await api("POST", "/api/auth/email/verify", {});
		const [got] = await drain();
		assert.ok(got);
		return linkIn(got, server.origin);
	};

	before(async () => {
		smtp = await startSmtp();
		server = await startServer({
			allowSignups: true,
			smtpUrl: smtp.url,
			mailFrom: "svc@localhost",
			smtpTlsCa: smtp.caFile,
			mailLimitRecipient: 50,
			mailLimitAccount: 50,
		});
		browser = await launchBrowser();
		token = (await signedUpAccount(server, "olivia@example.org")).token;
		await drain(); // the sign-up's own verify mail
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
		await smtp?.close();
	});

	test("the verify link opens the console and confirms the address; a spent one says so", async () => {
		const link = await verifyLink();
		await page.goto(link);
		await screenReady(page, "Confirm e-mail address");
		await page.getByText("Your address olivia@example.org is confirmed.").waitFor();
		const me = await api("GET", "/api/auth/me");
		assert.equal((me.record as { emailVerified: boolean }).emailVerified, true);
		await screenshot(page, "mail-verify-en");
		await page.reload();
		await screenReady(page, "This link cannot be used");
		await page.getByRole("alert").filter({ hasText: "not valid any more" }).waitFor();
		assert.deepEqual(device.unexpectedErrors(), []);
	});

	test("the account's mail switches and language are saved at once", async () => {
		await page.goto(`${server.origin}/app/account#notices`);
		await screenReady(page, "Account");
		const mail = page.getByRole("group", { name: "Also tell me by e-mail when" });
		const box = mail.getByRole("checkbox", { name: "A share was revoked" });
		assert.equal(await box.isChecked(), false, "mail is off by default");
		await box.check();
		await page.locator("[aria-live]").filter({ hasText: "You will also get an e-mail" }).waitFor();
		await page.getByLabel("Language of your e-mails").selectOption("de");
		await page.locator("[aria-live]").filter({ hasText: "Language of your e-mails saved." }).waitFor();
		const settings = await api("GET", "/api/notifications/settings");
		assert.equal((settings.mail as Record<string, boolean>).link_revoked, true);
		assert.equal(settings.language, "de");
		await page.getByText("Your address olivia@example.org is confirmed.").waitFor();
		await screenshot(page, "mail-settings-en");

		// The switch works: a revoked share is mailed, in the language chosen.
		const link = await api("POST", "/api/collections/links/records", { label: "Old lease" });
		await api("PATCH", `/api/collections/links/records/${link.id}`, { status: "revoked" });
		const [got] = await drain();
		assert.match(got?.mail.subject ?? "", /^Eine Freigabe wurde widerrufen/);
		await api("PATCH", "/api/notifications/settings", { language: "en" });
	});

	test("the invite dialog sends the invitation by e-mail and still shows the link once", async () => {
		await page.goto(`${server.origin}/app/members`);
		await screenReady(page, "Members");
		await page.getByRole("button", { name: "Invite someone" }).click();
		const dialog = page.getByRole("dialog");
		await dialog.getByLabel("Email").fill("newcomer@example.org");
		await dialog.getByRole("checkbox", { name: "Send it by e-mail" }).check();
		await screenshot(page, "mail-invite-en");
		await dialog.getByRole("button", { name: "Create invitation" }).click();
		await page.getByText("The link is on its way to newcomer@example.org by e-mail.").waitFor();
		const shown = await page.getByRole("dialog").locator("code.copy-field-value").textContent();
		const [got] = await drain();
		assert.ok(got);
		assert.deepEqual(got.to, ["newcomer@example.org"]);
		assert.equal(linkIn(got, server.origin), shown);
	});

	test("a request's screen sends its link by e-mail", async () => {
		const req = await api("POST", "/api/collections/requests/records", {
			label: "Tenant application",
			items: [{ key: "name", label: "Name", type: "text", required: true }],
		});
		await page.goto(`${server.origin}/app/requests/${req.id}`);
		await screenReady(page, "Tenant application");
		await page.getByLabel("Responder's e-mail address").fill("bad\naddress");
		await page.getByRole("button", { name: "Send the link" }).click();
		await page.getByRole("alert").filter({ hasText: "cannot be used" }).waitFor();
		await page.getByLabel("Responder's e-mail address").fill("ruth@example.org");
		await page.getByLabel("Their name (optional)").fill("Ruth");
		await page.getByRole("button", { name: "Send the link" }).click();
		await page
			.getByRole("status")
			.filter({ hasText: "The link is on its way to ruth@example.org." })
			.waitFor();
		await screenshot(page, "mail-request-en");
		const [got] = await drain();
		assert.ok(got);
		assert.equal(linkIn(got, server.origin), `${server.origin}/app/answer/${req.slug}`);
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const size = viewport === DESKTOP ? "1280" : "390";
			test(`axe: the mail screens in ${lang} at ${size} px`, async () => {
				const req = await api("POST", "/api/collections/requests/records", {
					label: "Deposit",
					items: [{ key: "name", label: "Name", type: "text", required: true }],
				});
				const shot = (name: string) =>
					viewport === DESKTOP && lang === "en" ? undefined : `${name}-${lang}`;
				const checks: [string, Parameters<typeof axeCheck>[2]][] = [
					[await verifyLink(), { lang, viewport, screenshot: shot("mail-verify") }],
					[
						`${server.origin}/app/account#notices`,
						{ lang, viewport, token, screenshot: shot("mail-settings") },
					],
					[
						`${server.origin}/app/requests/${req.id}`,
						{ lang, viewport, token, screenshot: shot("mail-request") },
					],
					[
						`${server.origin}/app/members`,
						{
							lang,
							viewport,
							token,
							screenshot: shot("mail-invite"),
							prepare: async (p) => {
								await p
									.getByRole("button", { name: lang === "de" ? "Jemanden einladen" : "Invite someone" })
									.click();
								await p.getByRole("dialog").waitFor();
							},
						},
					],
				];
				for (const [url, options] of checks) {
					const violations = await axeCheck(browser, url, options);
					assert.deepEqual(violations, [], `${url}\n${describeViolations(violations)}`);
				}
			});
		}
	}
});
