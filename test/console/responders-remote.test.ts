// A responder without an account on the requester's server answers from their own server
// (issue 39.1), in Chromium: the answer link says what is asked, by whom, why an account is needed,
// and the ways on; "answer from your own server" hands over to the responder's server (a second
// server process on loopback, its own domain, reached through PEER_OVERRIDES and a DNS server on
// loopback for the `_svc` pin), which reads the request through the pin, offers the responder's
// `full_name` entry by its key, keeps the answer in its vault and relays it; the requester sees it
// and downloads the answers as CSV (English, 1280 px). axe-core on each new screen in English and
// German at 1280 and 390 px, with screenshots.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { type TestEnv, testEnv } from "../helpers/app.ts";
import {
	apiCall,
	DESKTOP,
	Device,
	freePort,
	launchBrowser,
	type Server,
	screenReady,
	screenshot,
	startServer,
} from "../helpers/browser.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount } from "../helpers/factories.ts";
import { type ServerProcess, startServer as startProcess } from "../helpers/process.ts";

import { axeAll, axeHere, json, WALKS } from "./responders-helpers.ts";

const ITEMS = [
	{ key: "full_name", label: "Full name", type: "text", required: true },
	{ key: "email", label: "Email", type: "email", required: false },
	{ key: "lease", label: "Lease", type: "file", required: false },
];
const LEASE = "Lease of flat 3, kept on resp.test.\n";

describe("a responder without an account here", { timeout: 600_000 }, () => {
	let browser: Browser;
	let dns: TestDns;
	let req: Server;
	let respEnv: TestEnv;
	let respProc: ServerProcess;
	let respStore: Store;
	let respToken: string;
	let respOrigin: string;
	let requesterToken: string;
	let request: { id: string; slug: string };

	before(async () => {
		browser = await launchBrowser();
		dns = await startDns();
		const respPort = await freePort();
		respOrigin = `http://127.0.0.1:${respPort}`;
		req = await startServer({
			domain: "req.test",
			dnsServers: [dns.server],
			peerOverrides: { "resp.test": respOrigin },
		});
		respEnv = testEnv();
		respProc = await startProcess({
			DATABASE_URL: respEnv.config.databaseUrl,
			DATABASE_SCHEMA: respEnv.config.databaseSchema,
			DATA_DIR: respEnv.config.dataDir,
			DOMAIN: "resp.test",
			PORT: String(respPort),
			REDIS_URL: "",
			DNS_SERVERS: dns.server,
			PEER_OVERRIDES: `req.test=${req.api},resp.test=${respOrigin}`,
		});
		for (const base of [req.api, respOrigin]) {
			const claim = await json<{ txt: { host: string }; fingerprint: string }>(fetch(`${base}/api/server`));
			dns.txt.set(claim.txt.host, [claim.fingerprint]);
		}
		// The responder has an account and a vault on their own server, resp.test.
		respStore = await openStore(respEnv.config);
		const now = Date.now();
		const { accountId } = await createAccount(respStore.db, { email: "rita@resp.test", name: "Rita" }, now);
		respToken = (await createSession(respStore.db, accountId, now)).token;
		await json(
			fetch(`${respOrigin}/api/collections/records/records`, {
				method: "POST",
				headers: { authorization: `Bearer ${respToken}`, "content-type": "application/json" },
				body: JSON.stringify({ key: "full_name", name: "Full name", value: "Rita Remote" }),
			}),
		);
		// And a file there, which the answer gives and the requester opens through the grant.
		const form = new FormData();
		form.append("key", "lease");
		form.append("name", "Lease");
		form.append("file", new Blob([Buffer.from(LEASE)], { type: "text/plain" }), "lease.txt");
		await json(
			fetch(`${respOrigin}/api/collections/records/records`, {
				method: "POST",
				headers: { authorization: `Bearer ${respToken}` },
				body: form,
			}),
		);
		// The requester on req.test asks; sign-ups for answering are not allowed on this request.
		const requester = await buildAccount(req.t.app, { name: "Landlord" });
		requesterToken = requester.token;
		request = await json(
			apiCall(req, requesterToken, "POST", "/api/collections/requests/records", {
				label: "Tenant application",
				items: ITEMS,
			}),
		);
	});
	after(async () => {
		await browser?.close();
		await respProc?.stop();
		await respStore?.destroy();
		await respEnv?.dispose();
		await req?.close();
		await dns?.close();
	});

	test("answers from their own server: handed over, read through the DNS pin, kept there, relayed here (en, 1280 px)", async () => {
		const device = await Device.create(browser, { viewport: DESKTOP });
		// Signed in on their own server only (its console keeps the session per origin).
		await device.context.addInitScript({
			content: `if (location.port === ${JSON.stringify(new URL(respOrigin).port)}) sessionStorage.setItem("svc.session", ${JSON.stringify(respToken)});`,
		});
		const page = await device.open(`${req.api}/app/answer/${request.slug}`);
		await screenReady(page, "Tenant application");
		const main = page.locator("main");
		const text = String(await main.textContent());
		assert.match(text, /Landlord's vault on req\.test asks you to answer this request/);
		assert.match(text, /Full name \(Text, required\)/);
		assert.match(text, /stays in your own vault as a living link/);
		assert.match(text, /Landlord's vault has not allowed creating an account on req\.test for this request/);
		assert.equal(await page.getByLabel("Your email address").count(), 0, "no sign-up form");
		await screenshot(page, "answer-signed-out-no-signup");

		await page.getByLabel("Your server's address").fill("not a server");
		await page.getByRole("button", { name: "Continue on my server" }).click();
		await main.getByText("Enter a server address such as vault.example.org.").waitFor();
		await page.getByLabel("Your server's address").fill(respOrigin);
		await page.getByRole("button", { name: "Continue on my server" }).click();
		await page.waitForURL(`${respOrigin}/app/answer/remote?**`);
		await screenReady(page, "Tenant application");
		const there = String(await page.locator("main").textContent());
		assert.match(there, /Landlord's vault on req\.test asks you for the items below/);
		assert.match(there, /Checked by resp\.test: req\.test holds the key its DNS record names/);
		// Offered by key: the vault's `full_name` entry, chosen.
		const entry = page.getByLabel(/My entry “Full name”: Rita Remote/);
		assert.equal(await entry.isChecked(), true);
		await page.getByLabel("Email").fill("rita@example.org");
		// The file item offers the vault's file under the same key, chosen.
		assert.match(await page.getByLabel("Lease", { exact: true }).inputValue(), /.+/);
		await screenshot(page, "answer-remote-form");
		await page.getByRole("button", { name: "Share my answer" }).click();
		await page.getByRole("heading", { name: "Your answer is shared" }).waitFor();
		await screenshot(page, "answer-remote-done");
		assert.deepEqual(device.unexpectedErrors(), []);

		// Kept on resp.test as a share of the responder's; the requester holds a grant to it.
		const shares = await json<{ items: { label: string; status: string }[] }>(
			fetch(`${respOrigin}/api/collections/links/records`, {
				headers: { authorization: `Bearer ${respToken}` },
			}),
		);
		assert.deepEqual(
			shares.items.map((s) => [s.label, s.status]),
			[["Answer: Tenant application (req.test)", "active"]],
		);
		const got = await json<{
			items: { remote: boolean; server: string; values: { key: string; value: string | null }[] }[];
		}>(apiCall(req, requesterToken, "GET", `/api/requests/${request.id}/links`));
		assert.deepEqual(
			got.items.map((i) => ({
				remote: i.remote,
				server: i.server,
				values: i.values.map((v) => [v.key, v.value]),
			})),
			[
				{
					remote: true,
					server: "resp.test",
					values: [
						["full_name", "Rita Remote"],
						["email", "rita@example.org"],
						["lease", null],
					],
				},
			],
		);

		// The requester downloads the answers as CSV, read live through the grant.
		const owner = await Device.create(browser, { viewport: DESKTOP });
		await owner.context.addInitScript({
			content: `sessionStorage.setItem("svc.session", ${JSON.stringify(requesterToken)});`,
		});
		const detail = await owner.open(`${req.api}/app/requests/${request.id}`);
		await screenReady(detail, "Tenant application");
		await detail.locator("main").getByText("Rita Remote").waitFor();
		const [download] = await Promise.all([
			detail.waitForEvent("download"),
			detail.getByRole("button", { name: "Download as CSV" }).click(),
		]);
		assert.equal(download.suggestedFilename(), "Tenant application answers.csv");
		const csv = fs.readFileSync(String(await download.path()), "utf8");
		assert.match(
			csv,
			/^\uFEFFresponseId,status,server,identity,identifier,senderName,created,updated,full_name,email,lease\r\n/,
		);
		assert.match(csv, /,active,resp\.test,.*,Rita Remote,rita@example\.org,lease\.txt\r\n$/);

		// The file stayed on resp.test: the requester opens it through the grant, from resp.test.
		const open = detail.getByRole("button", { name: "Open lease.txt" });
		assert.match(String(await open.locator("xpath=..").textContent()), /kept on resp\.test/);
		await screenshot(detail, "request-answers-remote-file");
		const [file] = await Promise.all([detail.waitForEvent("download"), open.click()]);
		assert.equal(file.suggestedFilename(), "lease.txt");
		assert.equal(new URL(file.url()).origin, respOrigin, "downloaded from the responder's server");
		assert.equal(fs.readFileSync(String(await file.path()), "utf8"), LEASE);
		assert.deepEqual(owner.unexpectedErrors(), []);
		await device.close();
		await owner.close();
	});

	// The same way, walked in each language at each width, each step axe-clean and pictured.
	const WORDS = {
		en: {
			own: "Your server's address",
			go: "Continue on my server",
			share: "Share my answer",
			done: "Your answer is shared",
		},
		de: {
			own: "Adresse Ihres Servers",
			go: "Auf meinem Server weiter",
			share: "Antwort teilen",
			done: "Ihre Antwort ist geteilt",
		},
	};
	for (const { lang, size, viewport } of WALKS) {
		test(`answers from their own server, step by step (${lang}, ${size})`, async () => {
			const w = WORDS[lang];
			const label = `Bewerbung ${lang} ${size}`;
			const asked = await json<{ id: string; slug: string }>(
				apiCall(req, requesterToken, "POST", "/api/collections/requests/records", { label, items: ITEMS }),
			);
			const device = await Device.create(browser, {
				locale: lang === "de" ? "de-DE" : "en-US",
				viewport,
				bypassCSP: true,
			});
			await device.context.addInitScript({
				content: `localStorage.setItem("svc.lang", ${JSON.stringify(lang)}); if (location.port === ${JSON.stringify(new URL(respOrigin).port)}) sessionStorage.setItem("svc.session", ${JSON.stringify(respToken)});`,
			});
			const page = await device.open(`${req.api}/app/answer/${asked.slug}`);
			await screenReady(page, label);
			await axeHere(page, `signed out ${lang} ${size}`);
			await screenshot(page, `answer-walk-remote-1-signed-out-${lang}`);
			await page.getByLabel(w.own).fill(respOrigin);
			await page.getByRole("button", { name: w.go }).click();
			await page.waitForURL(`${respOrigin}/app/answer/remote?**`);
			await screenReady(page, label);
			await axeHere(page, `remote form ${lang} ${size}`);
			await screenshot(page, `answer-walk-remote-2-form-${lang}`);
			await page.getByRole("button", { name: w.share }).click();
			await page.getByRole("heading", { name: w.done }).waitFor();
			await axeHere(page, `done ${lang} ${size}`);
			await screenshot(page, `answer-walk-remote-3-done-${lang}`);
			assert.deepEqual(device.unexpectedErrors(), []);
			await device.close();
			// Kept on resp.test, read here through the grant: the name and the file.
			const got = await json<{
				items: {
					remote: boolean;
					values: { key: string; value: string | null; file: { name: string } | null }[];
				}[];
			}>(apiCall(req, requesterToken, "GET", `/api/requests/${asked.id}/links`));
			assert.deepEqual(
				got.items.map((i) => [i.remote, i.values.map((v) => [v.key, v.value ?? v.file?.name])]),
				[
					[
						true,
						[
							["full_name", "Rita Remote"],
							// Offered by key: the email the first answer kept in the vault.
							["email", "rita@example.org"],
							["lease", "lease.txt"],
						],
					],
				],
			);
		});
	}

	test("axe: the answer page signed out", async () => {
		await axeAll(browser, `${req.api}/app/answer/${request.slug}`, "answer-signed-out-elsewhere");
	});

	test("axe: the remote answer screen on the responder's server, signed in and out", async () => {
		const remote = `${respOrigin}/app/answer/remote?server=req.test&slug=${request.slug}`;
		await axeAll(browser, remote, "answer-remote", respToken);
		await axeAll(browser, remote, "answer-remote-signed-out");
	});
});
