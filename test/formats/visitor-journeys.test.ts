// The visitor of a share, in headless Chromium, as a person would go (issue 39.4-9): a password
// share with long values, many entries and files is opened through its form and every format is
// saved from the opened page with that one view (the read log, the owner's view count and the
// console agree); a spent save link says so in words; a share whose views are used up, one past its
// expiry, a paused one and a revoked one each say what happened and what to do, never a code. In
// English and German, at 1280 and 390 px, axe-clean and no wider than the screen. With
// SCREENSHOTS=1 each step is written to docs/screenshots/share-visit-<step>-<lang>-<width>.png.
//
// Runs once, not per database: a visitor's journey through share pages in Chromium; the pages reach the database through the same reads as formats/*.test.ts and shares/gate-matrix/, which run on both.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page, ViewportSize } from "playwright-core";
import { ManualClock } from "../../src/lib/clock.ts";
import {
	AXE_TAGS,
	type AxeViolation,
	DESKTOP,
	describeViolations,
	launchBrowser,
	PHONE,
	type Server,
	screenReady,
	startServer,
} from "../helpers/browser.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { REPO_ROOT } from "../helpers/root.ts";
import { createLink, createSection, createValue, patchLink, uploadFile } from "../shares/helpers.ts";
import { csv, icalendar, vcard } from "./helpers.ts";

const ROOT = REPO_ROOT;
const axeSource = fs.readFileSync(path.join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
const T0 = Date.UTC(2026, 10, 27, 9);
const clock = new ManualClock(T0);

const LONG_URL = `https://documents.example.org/tenancy/applications/2026/${"a1b2c3d4e5".repeat(12)}/index.html`;
const LONG_NAME = "Mietvertrag-Wohnung-3B-Hauptstraße-1-10115-Berlin-unterschrieben-2026-11-27.pdf";
const PASSWORD = "open sesame";

type Lang = "en" | "de";
const SIZES: [string, ViewportSize][] = [
	["desktop", DESKTOP],
	["phone", PHONE],
];

/** What each step shows, in each language: the words a visitor reads. */
const WORDS = {
	en: {
		password: "Password",
		open: "Open",
		lead: "Shared with you by Ann Example",
		save: { csv: "CSV (spreadsheet)", vcf: "vCard (contact)", ics: "iCalendar (dates)" },
		usedLink: "This download link no longer works",
		usedUp: "This share's views are used up",
		expired: "This share has expired",
		expiredOn: "could be opened until",
		paused: "This share is paused",
		revoked: "This share was withdrawn",
		ask: "ask Ann Example",
	},
	de: {
		password: "Passwort",
		open: "Öffnen",
		lead: "Mit Ihnen geteilt von Ann Example",
		save: { csv: "CSV (Tabelle)", vcf: "vCard (Kontakt)", ics: "iCalendar (Termine)" },
		usedLink: "Dieser Download-Link funktioniert nicht mehr",
		usedUp: "Die Aufrufe dieser Freigabe sind aufgebraucht",
		expired: "Diese Freigabe ist abgelaufen",
		expiredOn: "ließ sich bis",
		paused: "Diese Freigabe ist pausiert",
		revoked: "Diese Freigabe wurde zurückgezogen",
		ask: "Ann Example",
	},
} as const;

let server: Server;
let browser: Browser;
let ann: TestAccount;
/** The entries every share here names outside its sections: some long, three files. */
const records: string[] = [];
let sections: string[] = [];

async function axe(page: Page): Promise<AxeViolation[]> {
	await page.addScriptTag({ content: axeSource });
	return page.evaluate<AxeViolation[]>(
		`axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(AXE_TAGS)} } }).then((r) => r.violations)`,
	);
}

async function shot(page: Page, step: string, lang: Lang, size: string): Promise<void> {
	if (process.env.SCREENSHOTS !== "1") return;
	const file = path.join(ROOT, "docs/screenshots", `share-visit-${step}-${lang}-${size}.png`);
	await page.screenshot({ path: file, fullPage: true, animations: "disabled", caret: "hide" });
}

/** The step as a person sees it: the heading, nothing wider than the screen, axe-clean; then its picture. */
async function check(page: Page, step: string, lang: Lang, size: string, heading: string | RegExp) {
	await page.getByRole("heading", { level: 1, name: heading }).waitFor();
	const overflow = await page.evaluate<number>(
		"document.documentElement.scrollWidth - document.documentElement.clientWidth",
	);
	assert.equal(overflow, 0, `${step} ${lang} ${size}: nothing wider than the screen`);
	const text = String(await page.locator("body").textContent());
	assert.doesNotMatch(text, /\blink_[a-z_]+|file_download_invalid/, `${step}: no raw code`);
	const violations = await axe(page);
	assert.deepEqual(violations, [], `${step} ${lang} ${size}: ${describeViolations(violations)}`);
	await shot(page, step, lang, size);
}

/** A browser of one visitor: its language and screen; CSP bypassed so axe-core can be injected. */
async function visitor(lang: Lang, viewport: ViewportSize) {
	const context = await browser.newContext({
		locale: lang === "de" ? "de-DE" : "en-US",
		viewport,
		bypassCSP: true,
		acceptDownloads: true,
	});
	const page = await context.newPage();
	return { page, close: () => context.close() };
}

async function share(body: Record<string, unknown>) {
	return createLink(server.t.app, ann, { records, sections, ...body });
}

async function readLog(linkId: string): Promise<string[]> {
	const res = await server.t.app.inject({
		method: "GET",
		url: `/api/collections/linkReads/records?filter=${encodeURIComponent(`link='${linkId}'`)}`,
		headers: ann.headers,
	});
	return (res.json().items as { kind: string; view: number }[]).map((r) => `${r.kind} ${r.view}`).sort();
}

/** Clicks a save link and reads what the browser saved. */
async function save(page: Page, name: string): Promise<string> {
	const [download] = await Promise.all([
		page.waitForEvent("download"),
		page.getByRole("link", { name }).click(),
	]);
	const file = await download.path();
	assert.ok(file, `${name}: saved`);
	return fs.readFileSync(file, "utf8");
}

describe("a visitor of a share in Chromium", { timeout: 600_000 }, () => {
	before(async () => {
		server = await startServer({ domain: "localhost" }, { clock });
		browser = await launchBrowser();
		const app = server.t.app;
		ann = await buildAccount(app, { name: "Ann" });
		await app.inject({
			method: "PATCH",
			url: `/api/collections/workspaces/records/${ann.workspaceId}`,
			headers: ann.headers,
			payload: { name: "Ann Example" },
		});
		const contact = await createSection(app, ann, "contact", 1);
		const more = await createSection(app, ann, "references", 2);
		sections = [contact.id, more.id];
		const values: [string, string, string, string?][] = [
			["name", "Name", "Ann Example", contact.id],
			[
				"email",
				"Email",
				"ann.example.with.a.rather.long.address@tenancy-applications.example.org",
				contact.id,
			],
			["mobile", "Mobile", "+49 151 2345678", contact.id],
			["address", "Address", "Hauptstraße 1\nHinterhaus, 3. Obergeschoss links\n10115 Berlin", contact.id],
			["website", "Website", LONG_URL, contact.id],
			["birthday", "Birthday", "1990-05-01", contact.id],
			["move_in", "Move-in", "2026-12-01"],
			["iban", "IBAN", "DE89 3704 0044 0532 0130 00"],
			["note", "Notes for the landlord", `${"Rücksichtsvolle Nichtraucherin ohne Haustiere. ".repeat(6)}`],
			["reference_code", "Reference", "Grundstücksverkehrsgenehmigungszuständigkeitsübertragungsverordnung"],
		];
		for (let i = 1; i <= 14; i++)
			values.push([`reference_${i}`, `Reference ${i}`, `Landlord ${i}, +49 30 100${i}`, more.id]);
		for (const [key, name, value, section] of values) {
			const made = await createValue(app, ann, { key, name, value, ...(section ? { section } : {}) });
			// Entries in a section come with it; the others are named one by one.
			if (!section) records.push(made.id);
		}
		for (const [key, name] of [
			["lease", LONG_NAME],
			["payslip", "payslip-october.pdf"],
			["id_card", "id.pdf"],
		] as const) {
			records.push((await uploadFile(app, ann, { key }, { bytes: Buffer.from(`%PDF-1.4 ${key}`), name })).id);
		}
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	for (const lang of ["en", "de"] as const) {
		for (const [size, viewport] of SIZES) {
			const w = WORDS[lang];

			test(`${lang}, ${size}: a password share opened once, every format saved from it with that one view`, async () => {
				const made = await share({
					label: "For the landlord of the flat in Hauptstraße 1, Hinterhaus, 3B",
					password: PASSWORD,
					maxViews: 3,
					expiresAt: new Date(clock.now() + 14 * 86_400_000).toISOString(),
				});
				const { page, close } = await visitor(lang, viewport);
				try {
					await page.goto(`${server.origin}/s/${made.slug}`);
					await check(page, "password", lang, size, /For the landlord/);
					await page.getByLabel(w.password).fill(PASSWORD);
					await page.getByRole("button", { name: w.open }).click();
					await page.getByText(w.lead).waitFor();
					await check(page, "opened", lang, size, /For the landlord/);
					// The values lead: the first entry comes before the checks of who shares it.
					const order = await page.evaluate<string[]>(
						'[...document.querySelectorAll("main h2")].map((h) => h.id)',
					);
					assert.ok(order.indexOf("who") > order.indexOf("g0"), "values before the checks");

					const rows = csv(await save(page, w.save.csv));
					assert.ok(rows.some((r) => r[1] === "iban" && r[3] === "DE89 3704 0044 0532 0130 00"));
					const card = vcard(await save(page, w.save.vcf));
					assert.equal(card.getFirstPropertyValue("fn"), "Ann Example");
					const events = icalendar(await save(page, w.save.ics)).getAllSubcomponents("vevent");
					assert.ok(events.some((e) => String(e.getFirstPropertyValue("dtstart")) === "2026-12-01"));

					// One view: the read log lists the page and its three formats under it.
					assert.deepEqual(await readLog(made.id), ["csv 1", "ical 1", "page 1", "vcard 1"]);
					assert.equal(made.viewCount, 0);
					const owner = await server.t.app.inject({
						method: "GET",
						url: `/api/collections/links/records/${made.id}`,
						headers: ann.headers,
					});
					assert.equal(owner.json().viewCount, 1);

					// The same link again: the browser is told, in words, what to do.
					await page.getByRole("link", { name: w.save.csv }).click();
					await check(page, "used-link", lang, size, w.usedLink);
				} finally {
					await close();
				}
			});

			test(`${lang}, ${size}: used up, expired, paused and revoked shares say what happened and whom to ask`, async () => {
				const usedUp = await share({ label: "Used up", maxViews: 1 });
				const expired = await share({
					label: "Expired",
					expiresAt: new Date(clock.now() + 60_000).toISOString(),
				});
				const paused = await share({ label: "Paused" });
				const revoked = await share({ label: "Revoked" });
				const { page, close } = await visitor(lang, viewport);
				try {
					await page.goto(`${server.origin}/s/${usedUp.slug}`);
					await page.getByText(w.lead).waitFor();
					await page.goto(`${server.origin}/s/${usedUp.slug}`);
					await check(page, "used-up", lang, size, w.usedUp);
					assert.match(String(await page.locator("main").textContent()), new RegExp(w.ask));

					clock.advance(60_000);
					const res = await page.goto(`${server.origin}/s/${expired.slug}`);
					assert.equal(res?.status(), 404);
					await check(page, "expired", lang, size, w.expired);
					assert.match(String(await page.locator("main").textContent()), new RegExp(w.expiredOn));

					assert.equal((await patchLink(server.t.app, ann, paused.id, { status: "paused" })).statusCode, 200);
					await page.goto(`${server.origin}/s/${paused.slug}`);
					await check(page, "paused", lang, size, w.paused);

					assert.equal(
						(await patchLink(server.t.app, ann, revoked.id, { status: "revoked" })).statusCode,
						200,
					);
					await page.goto(`${server.origin}/s/${revoked.slug}`);
					await check(page, "revoked", lang, size, w.revoked);
					assert.match(String(await page.locator("main").textContent()), new RegExp(w.ask));
				} finally {
					await close();
				}
			});
		}
	}

	test("the owner's console shows the one view and its four reads", async () => {
		const made = await share({ label: "Seen once", password: PASSWORD, maxViews: 3 });
		const { page, close } = await visitor("en", DESKTOP);
		try {
			await page.goto(`${server.origin}/s/${made.slug}`);
			await page.getByLabel("Password").fill(PASSWORD);
			await page.getByRole("button", { name: "Open" }).click();
			for (const name of Object.values(WORDS.en.save)) await save(page, name);
		} finally {
			await close();
		}
		const context = await browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		try {
			await context.addInitScript({
				content: `sessionStorage.setItem("svc.session", ${JSON.stringify(ann.token)});`,
			});
			const page = await context.newPage();
			await page.goto(`${server.origin}/app/shares/${made.id}`);
			await screenReady(page, "Seen once");
			await page.locator(".share-views", { hasText: /^1 of 3$/ }).waitFor({ timeout: 30_000 });
			const log = page.getByRole("table", { name: "Reads of this share" });
			await log.locator("tbody tr").nth(3).waitFor({ timeout: 30_000 });
			const rows = await log.locator("tbody tr").allTextContents();
			assert.equal(rows.length, 4);
			for (const kind of ["Share page", "CSV from the share page", "vCard from", "iCalendar from"]) {
				assert.ok(
					rows.some((r) => r.includes(kind)),
					kind,
				);
			}
			const viewCells = await log.locator("tbody tr td:nth-child(3)").allTextContents();
			assert.deepEqual(new Set(viewCells.map((c) => c.trim())), new Set(["1"]));
		} finally {
			await context.close();
		}
	});
});
