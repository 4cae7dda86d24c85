// A responder without an account creates an answer-only account on the answer page (issue 39.1),
// in Chromium with a virtual authenticator: a passkey sign-up the request allows, then the answer
// (German, 390 px); the requester opens an answered file through the answer's share (39.3). axe-core
// in English and German at 1280 and 390 px, with screenshots.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import {
	apiCall,
	DESKTOP,
	Device,
	launchBrowser,
	PHONE,
	type Server,
	screenReady,
	screenshot,
	startServer,
} from "../helpers/browser.ts";
import { buildAccount } from "../helpers/factories.ts";

import { axeAll, axeHere, json, WALKS } from "./responders-helpers.ts";

describe("an answer-only account made to answer", { timeout: 600_000 }, () => {
	let browser: Browser;
	let server: Server;
	let requesterToken: string;
	let request: { id: string; slug: string };

	before(async () => {
		browser = await launchBrowser();
		server = await startServer({ allowSignups: false });
		({ token: requesterToken } = await buildAccount(server.t.app, { name: "Vermieter" }));
		request = await json(
			apiCall(server, requesterToken, "POST", "/api/collections/requests/records", {
				label: "Mietbewerbung",
				items: [
					{ key: "full_name", label: "Vollständiger Name", type: "text", required: true },
					{ key: "lease", label: "Mietvertrag", type: "file", required: false },
				],
				allowAnswerSignup: true,
			}),
		);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("signs up with a passkey on the answer page and answers (de, 390 px)", async () => {
		const device = await Device.create(browser, { locale: "de-DE", viewport: PHONE });
		const page = await device.open(`${server.origin}/app/answer/${request.slug}`);
		await screenReady(page, "Mietbewerbung");
		const main = page.locator("main");
		assert.match(String(await main.textContent()), /Warum Sie ein Konto brauchen/);
		await screenshot(page, "answer-signup-de");
		await page.getByLabel("Ihre E-Mail-Adresse").fill("mieterin@example.org");
		await page.getByLabel("Ihr Name (optional)").fill("Mia");
		await page.getByRole("button", { name: "Konto anlegen und antworten" }).click();
		// Signed in: the same address is now the answer form.
		await page.getByLabel("Vollständiger Name").waitFor();
		await page.getByLabel("Vollständiger Name").fill("Mia Mieterin");
		await page.getByRole("button", { name: "Antwort teilen" }).click();
		await page.getByRole("heading", { level: 2, name: /Antwort ist geteilt/ }).waitFor();
		await screenshot(page, "answer-signup-done-de");
		assert.equal(await device.passkeyCount(), 1);
		assert.deepEqual(device.unexpectedErrors(), []);

		const got = await json<{ items: { senderName: string; values: { key: string; value: string }[] }[] }>(
			apiCall(server, requesterToken, "GET", `/api/requests/${request.id}/links`),
		);
		assert.deepEqual(
			got.items.map((i) => i.values.map((v) => [v.key, v.value])),
			[[["full_name", "Mia Mieterin"]]],
		);
		const account = await server.t.app.store.db
			.selectFrom("accounts")
			.select(["answer_only", "signup_request"])
			.where("email", "=", "mieterin@example.org")
			.executeTakeFirstOrThrow();
		assert.deepEqual(account, { answer_only: 1, signup_request: request.id });
		// Limited to answering: the navigation holds no keys, requests, templates or identities.
		const nav = String(await page.locator("nav").first().textContent());
		for (const hidden of ["API-Schlüssel", "Anfragen", "Vorlagen", "Identitäten"])
			assert.doesNotMatch(nav, new RegExp(hidden));
		await device.close();
	});

	// The same way, walked in each language at each width, each step axe-clean and pictured.
	const WORDS = {
		en: {
			email: "Your email address",
			name: "Your name (optional)",
			create: "Create the account and answer",
			share: "Share my answer",
			done: /Your answer is shared/,
		},
		de: {
			email: "Ihre E-Mail-Adresse",
			name: "Ihr Name (optional)",
			create: "Konto anlegen und antworten",
			share: "Antwort teilen",
			done: /Ihre Antwort ist geteilt/,
		},
	};
	for (const { lang, size, viewport } of WALKS) {
		test(`creates an account here and answers, step by step (${lang}, ${size})`, async () => {
			const w = WORDS[lang];
			const label = `Bewerbung ${lang} ${size}`;
			const asked = await json<{ id: string; slug: string }>(
				apiCall(server, requesterToken, "POST", "/api/collections/requests/records", {
					label,
					items: [{ key: "full_name", label: "Vollständiger Name", type: "text", required: true }],
					allowAnswerSignup: true,
				}),
			);
			const device = await Device.create(browser, {
				locale: lang === "de" ? "de-DE" : "en-US",
				viewport,
				bypassCSP: true,
			});
			await device.context.addInitScript({
				content: `localStorage.setItem("svc.lang", ${JSON.stringify(lang)});`,
			});
			const page = await device.open(`${server.origin}/app/answer/${asked.slug}`);
			await screenReady(page, label);
			await axeHere(page, `signed out ${lang} ${size}`);
			await screenshot(page, `answer-walk-signup-1-signed-out-${lang}`);
			await page.getByLabel(w.email).fill(`walk-${lang}-${size}@example.org`);
			await page.getByLabel(w.name).fill(`Walk ${lang}`);
			await page.getByRole("button", { name: w.create }).click();
			await page.getByLabel("Vollständiger Name").waitFor();
			await axeHere(page, `answer form ${lang} ${size}`);
			await screenshot(page, `answer-walk-signup-2-form-${lang}`);
			await page.getByLabel("Vollständiger Name").fill(`Walker ${lang} ${size}`);
			await page.getByRole("button", { name: w.share }).click();
			await page.getByRole("heading", { level: 2, name: w.done }).waitFor();
			await axeHere(page, `done ${lang} ${size}`);
			await screenshot(page, `answer-walk-signup-3-done-${lang}`);
			assert.equal(await device.passkeyCount(), 1);
			assert.deepEqual(device.unexpectedErrors(), []);
			await device.close();
			const got = await json<{ items: { values: { key: string; value: string }[] }[] }>(
				apiCall(server, requesterToken, "GET", `/api/requests/${asked.id}/links`),
			);
			assert.deepEqual(
				got.items.map((i) => i.values.map((v) => [v.key, v.value])),
				[[["full_name", `Walker ${lang} ${size}`]]],
			);
		});
	}

	test("the requester switches sign-ups off and on and sets the cap on the request's screen (en 1280, de 390)", async () => {
		const record = () =>
			json<{ allowAnswerSignup: boolean; answerSignupLimit: number; answerSignups: number }>(
				apiCall(server, requesterToken, "GET", `/api/collections/requests/records/${request.id}`),
			);
		const owner = await Device.create(browser, { viewport: DESKTOP });
		await owner.context.addInitScript({
			content: `sessionStorage.setItem("svc.session", ${JSON.stringify(requesterToken)}); localStorage.setItem("svc.lang", "en");`,
		});
		const page = await owner.open(`${server.origin}/app/requests/${request.id}`);
		await screenReady(page, "Mietbewerbung");
		const section = page.getByRole("region", { name: "Accounts for responders" });
		const text = () => section.textContent().then(String);
		assert.match(await text(), /anyone holding the link can create accounts on this server/);
		assert.match(await text(), /On: responders without an account may create one here to answer\./);
		assert.match(await text(), /1 of at most 20 accounts made through this link\./);
		await screenshot(page, "request-signups-on");

		await section.getByLabel("Let responders without an account create one here to answer").uncheck();
		await section.getByLabel("At most this many accounts through this link").fill("0");
		await section.getByRole("button", { name: "Save sign-up settings" }).click();
		await section.getByText("Enter a whole number from 1 to 1,000.").waitFor();
		assert.equal((await record()).allowAnswerSignup, true, "nothing saved for a bad limit");
		await section.getByLabel("At most this many accounts through this link").fill("5");
		await section.getByRole("button", { name: "Save sign-up settings" }).click();
		await section.getByText("Off: responders need an account here or on a server of their own.").waitFor();
		assert.match(await text(), /1 of at most 5 accounts/);
		assert.deepEqual(await record(), {
			...(await record()),
			allowAnswerSignup: false,
			answerSignupLimit: 5,
		});
		await screenshot(page, "request-signups-off");
		assert.deepEqual(owner.unexpectedErrors(), []);
		await owner.close();

		// On again, in German on a phone; a limit of 1 already used up is said on both sides.
		const phone = await Device.create(browser, { locale: "de-DE", viewport: PHONE });
		await phone.context.addInitScript({
			content: `sessionStorage.setItem("svc.session", ${JSON.stringify(requesterToken)}); localStorage.setItem("svc.lang", "de");`,
		});
		const de = await phone.open(`${server.origin}/app/requests/${request.id}`);
		await screenReady(de, "Mietbewerbung");
		const konten = de.getByRole("region", { name: "Konten für Antwortende" });
		await konten.getByLabel("Antwortenden ohne Konto erlauben, hier eines zum Antworten anzulegen").check();
		await konten.getByLabel("Höchstens so viele Konten über diesen Link").fill("1");
		await konten.getByRole("button", { name: "Registrierungseinstellungen speichern" }).click();
		await konten.getByText(/Weitere sind erst möglich, wenn Sie die Grenze erhöhen\./).waitFor();
		assert.match(
			String(await konten.textContent()),
			/An: Antwortende ohne Konto dürfen hier eines zum Antworten anlegen\./,
		);
		await screenshot(de, "request-signups-used-up-de");
		assert.deepEqual(phone.unexpectedErrors(), []);
		await phone.close();
		assert.deepEqual([(await record()).allowAnswerSignup, (await record()).answerSignupLimit], [true, 1]);

		// The answer page, signed out, says the link's accounts are used up instead of offering the form.
		const visitor = await Device.create(browser, { viewport: DESKTOP });
		const answer = await visitor.open(`${server.origin}/app/answer/${request.slug}`);
		await screenReady(answer, "Mietbewerbung");
		await answer
			.getByText(/This request's link has already created as many accounts on .* as Vermieter.* allowed\./)
			.waitFor();
		assert.equal(await answer.getByLabel("Your email address").count(), 0, "no sign-up form");
		await screenshot(answer, "answer-signed-out-signups-used-up");
		await visitor.close();
		await json(
			apiCall(server, requesterToken, "PATCH", `/api/collections/requests/records/${request.id}`, {
				answerSignupLimit: 20,
			}),
		);
	});

	test("the requester opens an answered file through the answer's share", async () => {
		const { token: tenantToken } = await buildAccount(server.t.app, { name: "Tenant" });
		const form = new FormData();
		form.append("key", "lease");
		form.append("name", "Lease");
		form.append("file", new Blob([Buffer.from("Lease of flat 3.\n")]), "lease.txt");
		const upload = await json<{ id: string }>(
			fetch(`${server.api}/api/collections/records/records`, {
				method: "POST",
				headers: { authorization: `Bearer ${tenantToken}` },
				body: form,
			}),
		);
		await json(
			apiCall(server, tenantToken, "POST", `/api/public/requests/${request.slug}`, {
				values: { full_name: "Tom Tenant" },
				entries: { lease: upload.id },
			}),
		);
		const owner = await Device.create(browser, { viewport: DESKTOP });
		await owner.context.addInitScript({
			content: `sessionStorage.setItem("svc.session", ${JSON.stringify(requesterToken)});`,
		});
		const page = await owner.open(`${server.origin}/app/requests/${request.id}`);
		await screenReady(page, "Mietbewerbung");
		const open = page.getByRole("button", { name: "Open lease.txt" });
		await open.waitFor();
		await screenshot(page, "request-answers-files");
		const [download] = await Promise.all([page.waitForEvent("download"), open.click()]);
		assert.equal(download.suggestedFilename(), "lease.txt");
		assert.equal(fs.readFileSync(String(await download.path()), "utf8"), "Lease of flat 3.\n");
		await owner.close();
	});

	test("axe: the request's answers with the CSV download and the file, and the answer page offering a sign-up", async () => {
		await axeAll(browser, `${server.origin}/app/requests/${request.id}`, "request-answers", requesterToken);
		await axeAll(browser, `${server.origin}/app/answer/${request.slug}`, "answer-signed-out-signup");
	});
});
