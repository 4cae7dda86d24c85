// The share page's "save a copy" links (issue 39.4 and 39.5; docs/api.md "Share page and formats"):
// opening the page is one view; from it, each data format that carries something is downloaded
// once, within ten minutes, with a one-time token of that view, and the read log lists them under
// it. A format reached directly still takes its view. Tokens are bound to their share and format,
// spent on first presentation right or wrong, and meet the token readers' status gate.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, nextIp, patchLink, uploadFile } from "../shares/helpers.ts";
import {
	BROWSER_ACCEPT,
	contactShare,
	csv,
	html,
	icalendar,
	page,
	postForm,
	vcard,
	views,
} from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 27, 9);
const TEN_MINUTES = 10 * 60_000;

const clock = new ManualClock(T0);
let t: TestApp;
let a: TestAccount;

/** The page's save-a-copy links by format (`csv`, `vcf`, `ics`), as a browser would follow them. */
function saveLinks(body: string): Map<string, string> {
	const doc = html(body);
	const out = new Map<string, string>();
	for (const link of doc.byTag("a")) {
		const href = doc.attr(link, "href") ?? "";
		const m = /^\/s\/[^?]+\?format=(csv|vcf|ics)&dl=/.exec(href);
		if (m?.[1]) out.set(m[1], href);
	}
	return out;
}

const follow = (href: string, accept = "*/*") =>
	t.app.inject({ method: "GET", url: href, headers: { accept }, remoteAddress: nextIp() });

/** The contact share (test/formats/helpers.ts) in an account of its own (its section keys are fixed). */
async function contact(link: Record<string, unknown> = {}) {
	a = await buildAccount(t.app, { name: "Ann" });
	return contactShare(t.app, a, link);
}

async function readLog(linkId: string): Promise<string[]> {
	const res = await t.app.inject({
		method: "GET",
		url: `/api/collections/linkReads/records?filter=${encodeURIComponent(`link='${linkId}'`)}&sort=at`,
		headers: a.headers,
	});
	assert.equal(res.statusCode, 200, res.body);
	return (res.json().items as { kind: string; view: number }[]).map((r) => `${r.kind} ${r.view}`).sort();
}

async function ownerViews(linkId: string): Promise<number> {
	const res = await t.app.inject({
		method: "GET",
		url: `/api/collections/links/records/${linkId}`,
		headers: a.headers,
	});
	return res.json().viewCount as number;
}

describe("save a copy from the opened share page", () => {
	before(async () => {
		t = await makeApp({ domain: "share.example" }, { clock });
		a = await buildAccount(t.app, { name: "Ann" });
	});
	after(() => t.close());

	test("a password share with a cap of 3: one view opens the page and serves CSV, vCard and iCalendar", async () => {
		const share = await contact({ password: "open sesame", maxViews: 3 });
		const opened = await postForm(t.app, share.slug, { password: "open sesame" });
		assert.equal(opened.statusCode, 200, opened.body);
		assert.ok(opened.body.includes("2 left after this one"));
		const links = saveLinks(opened.body);
		assert.deepEqual([...links.keys()], ["csv", "vcf", "ics"]);

		const c = await follow(links.get("csv") ?? "");
		assert.equal(c.statusCode, 200, c.body);
		assert.match(String(c.headers["content-disposition"]), /^attachment; filename="For the landlord\.csv"/);
		assert.equal(c.headers["cache-control"], "private, no-store");
		assert.ok(csv(c.body).some((r) => r[1] === "email" && r[3] === "ann@example.org"));
		const v = await follow(links.get("vcf") ?? "");
		assert.equal(v.statusCode, 200, v.body);
		assert.equal(vcard(v.body).getFirstPropertyValue("email"), "ann@example.org");
		const i = await follow(links.get("ics") ?? "");
		assert.equal(i.statusCode, 200, i.body);
		const starts = icalendar(i.body)
			.getAllSubcomponents("vevent")
			.map((e) => String(e.getFirstPropertyValue("dtstart")));
		assert.ok(starts.includes("2026-12-01"));

		// One view: the owner's count and the read log agree.
		assert.equal(await ownerViews(share.id), 1);
		assert.deepEqual(await readLog(share.id), ["csv 1", "ical 1", "page 1", "vcard 1"]);
	});

	test("each link works once: again it is 401 file_download_invalid, and a browser is told in words", async () => {
		const share = await contact();
		const links = saveLinks((await page(t.app, share.slug)).body);
		const href = links.get("csv") ?? "";
		assert.equal((await follow(href)).statusCode, 200);
		const again = await follow(href);
		assert.equal(again.statusCode, 401);
		assert.equal(again.json().code, "file_download_invalid");
		const browser = await follow(links.get("vcf") ?? "");
		assert.equal(browser.statusCode, 200);
		const refused = await follow(links.get("vcf") ?? "", BROWSER_ACCEPT);
		assert.equal(refused.statusCode, 401);
		assert.match(String(refused.headers["content-type"]), /^text\/html/);
		assert.ok(refused.body.includes("This download link no longer works"));
		assert.ok(refused.body.includes("Open the share again"));
		assert.ok(!refused.body.includes("file_download_invalid"), "never the raw code");
		assert.equal(await views(t.app, share.slug), 1);
	});

	test("a token is bound to its share and its format; a wrong presentation spends it", async () => {
		const one = await contact();
		const two = await contact();
		const links = saveLinks((await page(t.app, one.slug)).body);
		const csvToken = new URL(links.get("csv") ?? "", "http://x").searchParams.get("dl") ?? "";
		const asIcs = await follow(`/s/${one.slug}?format=ics&dl=${csvToken}`);
		assert.equal(asIcs.statusCode, 401);
		assert.equal(asIcs.json().code, "file_download_invalid");
		assert.equal((await follow(links.get("csv") ?? "")).statusCode, 401, "spent by the wrong format");
		const vcfToken = new URL(links.get("vcf") ?? "", "http://x").searchParams.get("dl") ?? "";
		assert.equal((await follow(`/s/${two.slug}?format=vcf&dl=${vcfToken}`)).statusCode, 401);
		assert.equal((await follow(links.get("vcf") ?? "")).statusCode, 401, "spent at the other share");
		assert.equal((await follow(`/s/${one.slug}?format=csv&dl=not-a-token`)).statusCode, 401);
		assert.equal(await views(t.app, two.slug), 0);
	});

	test("ten minutes: served at exp-1, refused at exp and exp+1", async () => {
		const share = await contact();
		const opened = clock.now();
		const first = saveLinks((await page(t.app, share.slug)).body);
		clock.set(opened + TEN_MINUTES - 1);
		assert.equal((await follow(first.get("csv") ?? "")).statusCode, 200, "exp-1");
		clock.set(opened + TEN_MINUTES);
		assert.equal((await follow(first.get("vcf") ?? "")).statusCode, 401, "exp");
		clock.set(opened + TEN_MINUTES + 1);
		assert.equal((await follow(first.get("ics") ?? "")).statusCode, 401, "exp+1");
	});

	test("the share's status after the page: paused, revoked, past its expiry refuse; its own last view does not", async () => {
		const cases: [string, Record<string, unknown>, (id: string) => Promise<void>, number, string?][] = [
			[
				"paused",
				{},
				async (id) => void (await patchLink(t.app, a, id, { status: "paused" })),
				404,
				"link_paused",
			],
			[
				"revoked",
				{},
				async (id) => void (await patchLink(t.app, a, id, { status: "revoked" })),
				404,
				"link_revoked",
			],
			[
				"past its expiry",
				{ expiresAt: new Date(clock.now() + 60_000).toISOString() },
				async () => clock.advance(60_000),
				404,
				"link_expired",
			],
			["its last view was the page's", { maxViews: 1 }, async () => {}, 200],
		];
		for (const [name, link, apply, status, code] of cases) {
			const share = await contact(link);
			const links = saveLinks((await page(t.app, share.slug)).body);
			await apply(share.id);
			const res = await follow(links.get("csv") ?? "");
			assert.equal(res.statusCode, status, `${name}: ${res.body}`);
			if (code) assert.equal(res.json().code, code, name);
		}
	});

	test("a format reached directly still takes its view; HEAD with a token spends nothing", async () => {
		const share = await contact();
		const links = saveLinks((await page(t.app, share.slug)).body);
		const head = await t.app.inject({ method: "HEAD", url: links.get("csv") ?? "", remoteAddress: nextIp() });
		assert.equal(head.statusCode, 200);
		assert.equal((await follow(links.get("csv") ?? "")).statusCode, 200, "the token is still good");
		assert.equal((await page(t.app, share.slug, { format: "csv" })).statusCode, 200);
		assert.equal(await views(t.app, share.slug), 2, "the page's view and the direct CSV's");
		assert.deepEqual(await readLog(share.id), ["csv 1", "page 1", "page 2"]);
	});

	test("each format only when it carries something; the addressbook only with a contact", async () => {
		const iban = await createValue(t.app, a, {
			key: "iban",
			name: "IBAN",
			value: "DE89 3704 0044 0532 0130 00",
		});
		const day = await createValue(t.app, a, { key: "move_in", name: "Move-in", value: "2026-12-01" });
		const mail = await createValue(t.app, a, { key: "email", name: "Email", value: "ann@example.org" });
		const file = await uploadFile(
			t.app,
			a,
			{ key: "lease" },
			{ bytes: Buffer.from("%PDF-1.4 x"), name: "l.pdf" },
		);
		const cases: [string, string[], string[], boolean][] = [
			["a value alone", [iban.id], ["csv"], false],
			["a date", [iban.id, day.id], ["csv", "ics"], false],
			["an email", [mail.id], ["csv", "vcf"], true],
			["a file alone", [file.id], [], false],
		];
		for (const [name, records, formats, book] of cases) {
			const link = await createLink(t.app, a, { label: name, records });
			const res = await page(t.app, link.slug);
			assert.equal(res.statusCode, 200, res.body);
			assert.deepEqual([...saveLinks(res.body).keys()], formats, name);
			assert.equal(res.body.includes("/dav/s/"), book, `${name}: the addressbook`);
			assert.equal(res.body.includes(`<h2 id="save">`), formats.length > 0 || book, `${name}: the section`);
		}
		// Not offered is not refused: asked for directly, iCalendar answers as the spec says.
		const plain = await createLink(t.app, a, { records: [iban.id] });
		const ics = await page(t.app, plain.slug, { format: "ics" });
		assert.equal(ics.statusCode, 200);
	});
});
