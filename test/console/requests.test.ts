// Requests in the console end to end: the requester (A) makes a request from a template, tries the
// callback (refused for a link-local address, delivered to a loopback receiver), and copies the
// answer link; a second account (B) opens it in another browser, answers from their vault and by
// typing, and A reads B's answer with its current values; B changes a vault entry and A sees the
// new value (a living grant); B revokes and A sees it. axe-core on the list, the form, the detail
// and the answer form, in English and German, at desktop and phone width.
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
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";

interface Made {
	id: string;
	slug: string;
}

describe("requests and answering in the console", { timeout: 600_000 }, () => {
	let server: Server;
	let browser: Browser;
	let receiver: Receiver;
	let tokenA: string;
	let tokenB: string;
	let requester: Device;
	let responder: Device;
	let pageA: Page;
	let pageB: Page;
	let emailEntry: string;
	let made: Made;
	let answerLink: string;

	async function json<T>(res: Response | Promise<Response>): Promise<T> {
		const r = await res;
		assert.ok(r.ok, `${r.status} ${r.url}`);
		return (await r.json()) as T;
	}

	before(async () => {
		// Loopback callbacks are allowed only with ALLOW_PRIVATE_CALLBACKS (docs/api.md "URL policy").
		server = await startServer({ allowPrivateCallbacks: true });
		browser = await launchBrowser();
		receiver = await startReceiver();
		({ token: tokenA } = await ticketAccount(server, "ada@example.org"));
		({ token: tokenB } = await ticketAccount(server, "bob@example.org"));
		await json(
			apiCall(server, tokenA, "POST", "/api/collections/templates/records", {
				name: "Tenant application",
				items: [
					{ key: "full-name", label: "Full name", type: "text", required: true },
					{ key: "email", label: "Email", type: "email", required: true },
					{ key: "phone", label: "Phone", type: "phone", required: false },
				],
			}),
		);
		emailEntry = (
			await json<{ id: string }>(
				apiCall(server, tokenB, "POST", "/api/collections/records/records", {
					key: "email",
					name: "Email",
					value: "bob@example.org",
				}),
			)
		).id;
		requester = await Device.create(browser);
		responder = await Device.create(browser);
	});
	after(async () => {
		await browser?.close();
		await receiver?.close();
		await server?.close();
	});

	test("A makes a request from a template; the callback test is refused, then delivered", async () => {
		pageA = await requester.open(`${server.origin}/app/signin`);
		await setSessionToken(pageA, tokenA);
		await pageA.goto(`${server.origin}/app/requests`);
		await screenReady(pageA, "Requests");
		assert.match(String(await pageA.locator("main").textContent()), /No requests yet/);

		await pageA.getByRole("link", { name: "New request" }).click();
		await screenReady(pageA, "New request");
		// Nothing filled: the form says what is missing, next to each field.
		await pageA.getByRole("button", { name: "Create the request" }).click();
		assert.match(String(await pageA.locator("main").textContent()), /Enter a label\./);
		assert.match(String(await pageA.locator("main").textContent()), /Choose a template\./);

		await pageA.getByLabel(/^Label/).fill("Flat 3B");
		assert.equal(await pageA.getByLabel("From a template").isChecked(), true, "templates come first");
		await pageA.getByLabel(/^Template/).selectOption({ label: "Tenant application" });
		const items = pageA.getByRole("table", { name: "Items of “Tenant application”" });
		await items.waitFor();
		assert.equal(await items.locator("tbody tr").count(), 3);
		assert.match(String(await items.textContent()), /Full name.*Email.*Phone/s);
		await pageA.getByLabel("Password").fill("open sesame");
		await pageA.getByLabel("Ask for an identifier").check();

		const callback = pageA.getByLabel("Callback URL (optional)");
		const send = pageA.getByRole("button", { name: "Send test delivery" });
		const result = pageA.locator(".req-test-result");
		await callback.fill("http://169.254.169.254/latest/meta-data");
		await send.click();
		await result.getByText("Not delivered.").waitFor({ timeout: 30_000 });
		assert.match(String(await result.textContent()), /address is refused/);
		assert.match(String(await result.textContent()), /link-local/, "the server's detail is shown too");

		await callback.fill(`${receiver.url}/hook?secret=s1`);
		await send.click();
		await result.getByText("Delivered.").waitFor({ timeout: 30_000 });
		assert.match(String(await result.textContent()), /status 200/);
		assert.equal(receiver.received.length, 1);
		assert.equal(receiver.received[0]?.json().test, true);

		await pageA.getByRole("button", { name: "Create the request" }).click();
		await screenReady(pageA, "Flat 3B");
		answerLink = String(await pageA.locator(".copy-field-value").textContent());
		assert.match(answerLink, new RegExp(`^${server.origin}/app/answer/[A-Za-z0-9_-]{32}$`));

		const list = await json<{
			items: (Made & { template: string; items: unknown[]; callbackUrl: string })[];
		}>(apiCall(server, tokenA, "GET", "/api/collections/requests/records"));
		assert.equal(list.items.length, 1);
		const saved = list.items[0];
		assert.ok(saved);
		made = saved;
		assert.equal(saved.items.length, 3, "the template's items were copied");
		assert.ok(saved.template);
		assert.equal(saved.callbackUrl, `${receiver.url}/hook?secret=s1`);
		assert.ok(answerLink.endsWith(saved.slug));

		// The detail's test delivery carries the request's real id.
		await pageA.getByRole("button", { name: "Send test delivery" }).click();
		await pageA.locator(".req-test-result").getByText("Delivered.").waitFor({ timeout: 30_000 });
		assert.equal(receiver.received[1]?.headers["x-svc-request"], made.id);
		assert.match(String(await pageA.locator("main").textContent()), /No answers yet/);
	});

	test("B opens the link, answers from the vault and by typing; a wrong password is said at the field", async () => {
		pageB = await responder.open(`${server.origin}/app/signin`);
		await setSessionToken(pageB, tokenB);
		await pageB.goto(answerLink);
		await screenReady(pageB, "Flat 3B");
		const main = pageB.locator("main");
		assert.match(String(await main.textContent()), /ada's vault asks you for the items below/);

		// The entry with the item's key is offered and chosen; a key not in the vault is typed.
		const useEntry = pageB.getByLabel("My entry “Email”: bob@example.org");
		assert.equal(await useEntry.isChecked(), true);
		await pageB.getByLabel("Full name").fill("Bob Builder");
		await pageB.getByLabel("Identifier").fill("T-42");
		await pageB.getByLabel("Your name (optional)").fill("Bob");
		await pageB.getByLabel("Password of the request").fill("wrong");
		await pageB.getByRole("button", { name: "Share my answer" }).click();
		await main.locator(".field-error", { hasText: "The password is wrong." }).waitFor({ timeout: 30_000 });

		await pageB.getByLabel("Password of the request").fill("open sesame");
		await pageB.getByRole("button", { name: "Share my answer" }).click();
		const done = pageB.getByRole("heading", { name: "Your answer is shared" });
		await done.waitFor({ timeout: 30_000 });
		await screenshot(pageB, "answer-done");
		const shared = pageB.getByRole("table", { name: "What you shared" });
		assert.match(String(await shared.textContent()), /Full name.*Bob Builder.*new entry/s);
		assert.match(String(await shared.textContent()), /Email.*bob@example\.org.*linked/s);
		assert.match(String(await main.textContent()), /revoke/i);

		// The submission reaches the callback (the test drives the outbox itself).
		await server.t.app.background.drainOnce(Date.now());
		const submission = receiver.received.find((r) => r.json().responseId && !r.json().test);
		assert.ok(submission, "a submission was delivered");
		assert.deepEqual(submission.json().data, { "full-name": "Bob Builder" }, "typed values only");
		assert.deepEqual(responder.unexpectedErrors(), []);
	});

	test("A sees B's answer with its current values; B's change in the vault reaches A", async () => {
		await pageA.getByRole("button", { name: "Refresh" }).click();
		const card = pageA.locator("li.req-answer", { hasText: "Bob" });
		await card.waitFor({ timeout: 30_000 });
		assert.match(String(await card.textContent()), /Active/);
		assert.match(String(await card.textContent()), /T-42/);
		const values = card.getByRole("table", { name: "Current values from Bob" });
		assert.match(String(await values.textContent()), /Full name.*Bob Builder/s);
		assert.match(String(await values.textContent()), /Email.*bob@example\.org/s);

		await json(
			apiCall(server, tokenB, "PATCH", `/api/collections/records/records/${emailEntry}`, {
				value: "bob@new.example",
			}),
		);
		await pageA.getByRole("button", { name: "Refresh" }).click();
		await values.getByText("bob@new.example").waitFor({ timeout: 30_000 });

		await pageA.getByRole("link", { name: "Back to all requests" }).click();
		await screenReady(pageA, "Requests");
		const row = pageA.locator("main tbody tr", { hasText: "Flat 3B" });
		assert.match(String(await row.textContent()), /Open/);
		await row.locator("td", { hasText: /^1$/ }).waitFor({ timeout: 30_000 });
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const width = viewport === PHONE ? "phone" : "desktop";
			test(`axe finds no WCAG 2.2 AA violation on the request screens (${lang}, ${width})`, async () => {
				const pickTemplate = async (page: Page) => {
					await page.locator("main select").first().selectOption({ label: "Tenant application" });
					await page.locator("main table").first().waitFor();
				};
				const screens: {
					name: string;
					path: string;
					token: string;
					prepare?: (page: Page) => Promise<void>;
				}[] = [
					{ name: "requests", path: "/app/requests", token: tokenA },
					{ name: "requests-new", path: "/app/requests/new", token: tokenA, prepare: pickTemplate },
					{ name: "request-detail", path: `/app/requests/${made.id}`, token: tokenA },
					{ name: "answer", path: `/app/answer/${made.slug}`, token: tokenB },
				];
				const found: string[] = [];
				for (const s of screens) {
					const violations = await axeCheck(browser, `${server.origin}${s.path}`, {
						lang,
						viewport,
						token: s.token,
						...(s.prepare ? { prepare: s.prepare } : {}),
						...(lang === "en" ? { screenshot: s.name } : {}),
					});
					if (violations.length > 0) found.push(`${s.path}:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}

	test("B revokes the answer; A sees it revoked, its values gone", async () => {
		await pageB.getByRole("button", { name: "Revoke this answer" }).click();
		await pageB.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
		await pageB.getByRole("heading", { name: "Your answer is revoked" }).waitFor({ timeout: 30_000 });

		await pageA.getByRole("link", { name: "Flat 3B" }).click();
		await screenReady(pageA, "Flat 3B");
		const card = pageA.locator("li.req-answer", { hasText: "Bob" });
		assert.match(String(await card.textContent()), /Revoked/);
		assert.match(String(await card.textContent()), /revoked this answer/);
		assert.doesNotMatch(String(await card.textContent()), /bob@new\.example/);
	});

	test("A closes and reopens the request; a closed request says so to B", async () => {
		await pageA.getByRole("button", { name: "Close the request" }).click();
		await pageA.getByRole("button", { name: "Reopen the request" }).waitFor({ timeout: 30_000 });
		assert.match(String(await pageA.locator("main").textContent()), /This request is closed/);
		await pageB.goto(answerLink);
		await screenReady(pageB, "Flat 3B");
		assert.match(String(await pageB.locator("main").textContent()), /closed: it takes no answers now/);
		assert.equal(await pageB.getByRole("button", { name: "Share my answer" }).count(), 0);
		await pageA.getByRole("button", { name: "Reopen the request" }).click();
		await pageA.getByRole("button", { name: "Close the request" }).waitFor({ timeout: 30_000 });
	});

	test("A writes the items by hand: keys follow the labels, mistakes are said at the item", async () => {
		await pageA.goto(`${server.origin}/app/requests/new`);
		await screenReady(pageA, "New request");
		await pageA.getByLabel(/^Label/).fill("Payroll details");
		await pageA.getByLabel("Written here").check();
		const first = pageA.getByRole("group", { name: "Item 1" });
		await first.getByLabel(/^Item/).fill("Bank account (IBAN)");
		assert.equal(
			await first.getByLabel(/^Key/).inputValue(),
			"bank_account_iban",
			"the key follows the label",
		);
		await pageA.getByRole("button", { name: "Add an item" }).click();
		const second = pageA.getByRole("group", { name: "Item 2" });
		await second.getByLabel(/^Item/).fill("Start date");
		await second.getByLabel(/^Key/).fill("bank_account_iban");
		await second.getByLabel("Type").selectOption({ label: "Date" });
		await second.getByLabel("Responders must answer it").uncheck();
		await pageA.getByRole("button", { name: "Create the request" }).click();
		assert.match(String(await second.textContent()), /Another item has this key/);
		await screenshot(pageA, "requests-new-items");
		await second.getByLabel(/^Key/).fill("start");
		await pageA.getByRole("button", { name: "Create the request" }).click();
		await screenReady(pageA, "Payroll details");
		const asks = pageA.getByRole("table", { name: "Items the request asks for" });
		assert.match(String(await asks.textContent()), /Bank account \(IBAN\).*bank_account_iban.*Text.*Yes/s);
		assert.match(String(await asks.textContent()), /Start date.*start.*Date.*No/s);
	});

	test("a request needing a proven identity says on the form that the console cannot answer it yet", async () => {
		const handshake = await json<Made>(
			apiCall(server, tokenA, "POST", "/api/collections/requests/records", {
				label: "Signed lease",
				items: [{ key: "email", label: "Email", type: "email", required: true }],
				requireHandshake: true,
			}),
		);
		await pageB.goto(`${server.origin}/app/answer/${handshake.slug}`);
		await screenReady(pageB, "Signed lease");
		assert.match(String(await pageB.locator("main").textContent()), /needs a proven identity/);
		assert.equal(await pageB.getByRole("button", { name: "Share my answer" }).isDisabled(), true);
	});

	test("an unknown link says so", async () => {
		await pageB.goto(`${server.origin}/app/answer/${"x".repeat(32)}`);
		await screenReady(pageB, "Request not found");
	});

	test("no console errors on the way (a CSP violation would be one)", () => {
		assert.deepEqual(requester.unexpectedErrors(), []);
		assert.deepEqual(responder.unexpectedErrors(), []);
	});
});
