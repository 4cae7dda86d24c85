// `GET /s/{slug}` in each of its four forms, read back with parsers we did not write (parse5,
// csv-parse, ical.js): the current values in the right places, hostile values kept as text in
// one field or property, the negotiation of format and language, and the headers of each answer.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { TYPES_TTL_MS } from "../../src/features/formats/store.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, nextIp, RECORDS } from "../shares/helpers.ts";
import {
	assertContentLines,
	CONTACT,
	type ContactShare,
	contactShare,
	csv,
	html,
	icalendar,
	page,
	vcard,
} from "./helpers.ts";

const HOSTILE =
	'<script>alert("x")</script>, a; b "quoted"\r\nEMAIL:evil@attacker.example\r\n\u200f\u202eعربى 漢字 ÄÖü';

describe("share formats", () => {
	let t: TestApp;
	let a: TestAccount;
	let share: ContactShare;
	before(async () => {
		t = await makeApp({ domain: "share.example" });
		a = await buildAccount(t.app, { name: "Ann" });
		share = await contactShare(t.app, a);
	});
	after(() => t.close());

	test("the page (parse5) shows the label, the sharer, the server and every entry with its current value", async () => {
		const res = await page(t.app, share.slug);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.headers["content-type"], "text/html; charset=utf-8");
		const doc = html(res.body);
		assert.equal(doc.attr(doc.first("html"), "lang"), "en");
		assert.equal(doc.textOf(doc.first("h1")), "For the landlord");
		assert.ok(
			doc.byTag("main").length === 1 && doc.byTag("header").length === 1 && doc.byTag("footer").length === 1,
		);
		const robots = doc.first("meta", (m) => doc.attr(m, "name") === "robots");
		assert.match(doc.must(robots, "content"), /noindex/);
		const entries = doc.entries();
		assert.equal(entries.get("Email"), "ann@example.org");
		assert.equal(entries.get("Address"), "Hauptstr. 1\n10115 Berlin");
		assert.equal(entries.get("IBAN"), "DE89 3704 0044 0532 0130 00");
		assert.equal(entries.get("Birthday"), "May 1, 1990", "a date in the reader's language");
		// The values and who shares them lead; saving, the limits, help and the checks follow.
		const headings = doc.byTag("h2").map((h) => doc.textOf(h));
		assert.deepEqual(headings, [
			"Entries",
			"contact",
			"dates",
			"Save a copy",
			"About this share",
			"What you can do",
			"Who shares this",
		]);
		const lead = doc.first("p", (p) => doc.attr(p, "class") === "lead");
		assert.equal(doc.textOf(lead), "Shared with you by Ann's vault");
		assert.ok(res.body.includes("share.example"), "the server");
		assert.match(res.body, /the app compares this key with the one share\.example publishes in its DNS/);
		const links = doc.byTag("a").map((l) => doc.attr(l, "href"));
		assert.ok(links.includes("mailto:ann@example.org"));
		assert.ok(links.includes("tel:+491512345678"));
		// Each format that carries something, with its one-time token of this view.
		for (const f of ["csv", "vcf", "ics"]) {
			assert.ok(
				links.some((l) => new RegExp(`^/s/${share.slug}\\?format=${f}&dl=[A-Za-z0-9_-]{43}$`).test(l ?? "")),
				f,
			);
		}
	});

	test("CSV (csv-parse): a header, then one row per entry: section, key, name, value; UTF-8 with a BOM", async () => {
		const res = await page(t.app, share.slug, { format: "csv" });
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.headers["content-type"], "text/csv; charset=utf-8; header=present");
		assert.ok(
			res.rawPayload.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])),
			"a UTF-8 byte order mark",
		);
		assert.ok(res.body.includes("\r\n"), "CRLF between records");
		const rows = csv(res.body);
		assert.deepEqual(rows[0], ["section", "key", "name", "value"]);
		const byKey = new Map(rows.slice(1).map((r) => [r[1], r]));
		assert.equal(rows.length, 1 + Object.keys(CONTACT).length);
		for (const [key, { name, value, section }] of Object.entries(CONTACT)) {
			assert.deepEqual(byKey.get(key), [section ?? "", key, name, value], key);
		}
	});

	test("vCard 4.0 (ical.js): names, email, phone, address, organisation, url, birthday; the rest in the note", async () => {
		const res = await page(t.app, share.slug, { format: "vcf" });
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.headers["content-type"], "text/vcard; charset=utf-8");
		assertContentLines(res.body);
		const card = vcard(res.body);
		assert.equal(card.name, "vcard");
		assert.equal(card.getFirstPropertyValue("version"), "4.0");
		assert.equal(card.getFirstPropertyValue("fn"), "Ann Example");
		assert.equal(card.getFirstPropertyValue("email"), "ann@example.org");
		const tel = card.getFirstProperty("tel");
		assert.equal(tel?.getFirstValue(), "+49 151 2345678");
		assert.equal(tel?.getParameter("type"), "cell");
		assert.deepEqual(card.getFirstPropertyValue("adr"), [
			"",
			"",
			"Hauptstr. 1\n10115 Berlin",
			"",
			"",
			"",
			"",
		]);
		assert.equal(card.getFirstPropertyValue("org"), "Example GmbH");
		assert.equal(card.getFirstPropertyValue("url"), "https://ann.example.org/about");
		assert.equal(String(card.getFirstPropertyValue("bday")), "1990-05-01");
		assert.equal(
			card.getFirstPropertyValue("note"),
			"IBAN: DE89 3704 0044 0532 0130 00\nMove-in: 2026-12-01",
		);
		assert.match(String(card.getFirstPropertyValue("uid")), /^urn:uuid:[0-9a-f-]{36}$/);
	});

	test("iCalendar (ical.js): one event per date, all day, the birthday yearly, each UID the record's", async () => {
		const res = await page(t.app, share.slug, { format: "ics" });
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.headers["content-type"], "text/calendar; charset=utf-8");
		assertContentLines(res.body);
		const cal = icalendar(res.body);
		const events = cal.getAllSubcomponents("vevent");
		assert.equal(events.length, 2);
		const byUid = new Map(events.map((e) => [String(e.getFirstPropertyValue("uid")), e]));
		const birthday = byUid.get(`${share.ids.birthday}@share.example`);
		const moveIn = byUid.get(`${share.ids.move_in}@share.example`);
		assert.ok(birthday && moveIn, [...byUid.keys()].join());
		const start = birthday.getFirstPropertyValue("dtstart") as unknown as {
			isDate: boolean;
			toString(): string;
		};
		assert.equal(start.isDate, true, "all day");
		assert.equal(start.toString(), "1990-05-01");
		assert.equal(birthday.getFirstPropertyValue("summary"), "Birthday");
		assert.match(String(birthday.getFirstPropertyValue("rrule")), /FREQ=YEARLY/);
		assert.equal(String(moveIn.getFirstPropertyValue("dtstart")), "2026-12-01");
		assert.equal(moveIn.getFirstPropertyValue("rrule"), null);
		// The same record keeps its UID as its value changes, so a calendar updates the event.
		await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${share.ids.move_in}`,
			headers: a.headers,
			payload: { value: "2027-01-15" },
		});
		const again = icalendar((await page(t.app, share.slug, { format: "ics" })).body);
		const moved = again
			.getAllSubcomponents("vevent")
			.find((e) => e.getFirstPropertyValue("uid") === `${share.ids.move_in}@share.example`);
		assert.equal(String(moved?.getFirstPropertyValue("dtstart")), "2027-01-15");
		assert.equal(moved?.getFirstPropertyValue("sequence"), 1);
		await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${share.ids.move_in}`,
			headers: a.headers,
			payload: { value: "2026-12-01" },
		});
	});

	test("hostile text stays text: one HTML text node, one CSV field, one vCard property, one iCalendar property", async () => {
		const note = await createValue(t.app, a, { key: "remarks", name: 'Remarks <b>"x"</b>', value: HOSTILE });
		const when = await createValue(t.app, a, {
			key: "appointment",
			name: "Meet\r\nATTENDEE:mailto:evil@x.example",
			value: "2026-12-24T18:30:00+01:00",
		});
		const link = await createLink(t.app, a, {
			label: "Label </title><script>x()</script>",
			records: [note.id, when.id],
		});

		const pageRes = await page(t.app, link.slug);
		const doc = html(pageRes.body);
		assert.equal(doc.byTag("script").length, 0, "no script element");
		assert.equal(doc.byTag("b").length, 0);
		assert.equal(doc.textOf(doc.first("title")), "Label </title><script>x()</script>");
		// HTML parsing turns CRLF into LF; everything else arrives as written.
		assert.equal(doc.entries().get('Remarks <b>"x"</b>'), HOSTILE.replaceAll("\r\n", "\n"));

		const rows = csv((await page(t.app, link.slug, { format: "csv" })).body);
		assert.equal(rows.length, 3, "a header and two rows");
		assert.deepEqual(rows[1], ["", "remarks", 'Remarks <b>"x"</b>', HOSTILE]);

		const cardText = (await page(t.app, link.slug, { format: "vcf" })).body;
		assertContentLines(cardText);
		const card = vcard(cardText);
		assert.equal(card.getAllProperties("email").length, 0, "a line break in a value opens no property");
		assert.equal(card.getAllProperties("note").length, 1);
		assert.equal(
			card.getFirstPropertyValue("note"),
			`Remarks <b>"x"</b>: ${HOSTILE.replaceAll("\r\n", "\n")}\nMeet\nATTENDEE:mailto:evil@x.example: 2026-12-24T18:30:00+01:00`,
		);

		const calText = (await page(t.app, link.slug, { format: "ics" })).body;
		assertContentLines(calText);
		const events = icalendar(calText).getAllSubcomponents("vevent");
		assert.equal(events.length, 1);
		const [event] = events;
		assert.ok(event);
		assert.equal(event.getAllProperties("attendee").length, 0);
		assert.equal(event.getFirstPropertyValue("summary"), "Meet\nATTENDEE:mailto:evil@x.example");
		assert.equal(
			String(event.getFirstPropertyValue("dtstart")),
			"2026-12-24T17:30:00Z",
			"a date-time with an offset, in UTC",
		);
	});

	test("a value a spreadsheet would run is led by an apostrophe; numbers and phone numbers are not", async () => {
		const formula = await createValue(t.app, a, {
			key: "f",
			value: '=HYPERLINK("https://evil.example","x")',
		});
		const minus = await createValue(t.app, a, { key: "g", value: "-2+3+cmd|' /C calc'!A0" });
		const phone = await createValue(t.app, a, { key: "h", value: "+49 30 1234567" });
		const amount = await createValue(t.app, a, { key: "i", value: "-12.50" });
		const link = await createLink(t.app, a, { records: [formula.id, minus.id, phone.id, amount.id] });
		const values = csv((await page(t.app, link.slug, { format: "csv" })).body)
			.slice(1)
			.map((r) => r[3]);
		assert.deepEqual(values, [
			`'=HYPERLINK("https://evil.example","x")`,
			"'-2+3+cmd|' /C calc'!A0",
			"+49 30 1234567",
			"-12.50",
		]);
	});

	test("long values fold at 75 octets without splitting a character, and unfold to the value", async () => {
		const long = "漢字かな交じり文".repeat(20) + "x".repeat(100);
		const rec = await createValue(t.app, a, { key: "bio", name: "Bio", value: long });
		const link = await createLink(t.app, a, { records: [rec.id] });
		const text = (await page(t.app, link.slug, { format: "vcf" })).body;
		assertContentLines(text);
		assert.ok(text.split("\r\n").filter((l) => l.startsWith(" ")).length > 5, "folded");
		assert.equal(vcard(text).getFirstPropertyValue("note"), `Bio: ${long}`);
	});

	test("a template's types map keys the vault does not name: its phone is a TEL, its date an event", async () => {
		const items = [
			{ key: "reach_me", label: "Reach me", type: "phone", required: false },
			{ key: "handover", label: "Handover", type: "date", required: false },
		];
		const tpl = await t.app.inject({
			method: "POST",
			url: "/api/collections/templates/records",
			headers: a.headers,
			payload: { name: "Flat", items },
		});
		assert.equal(tpl.statusCode, 200, tpl.body);
		const reach = await createValue(t.app, a, { key: "reach_me", value: "030 123" });
		const handover = await createValue(t.app, a, { key: "handover", value: "2026-11-30" });
		const link = await createLink(t.app, a, { records: [reach.id, handover.id] });
		const card = vcard((await page(t.app, link.slug, { format: "vcf" })).body);
		assert.equal(card.getFirstPropertyValue("tel"), "030 123");
		const events = icalendar((await page(t.app, link.slug, { format: "ics" })).body).getAllSubcomponents(
			"vevent",
		);
		assert.equal(String(events[0]?.getFirstPropertyValue("dtstart")), "2026-11-30");
	});

	test("an alias reads as its target's current value in every format", async () => {
		const target = await createValue(t.app, a, { key: "email", value: "old@example.org" });
		const alias = await createValue(t.app, a, { key: "email", name: "Work email", alias: target.id });
		const link = await createLink(t.app, a, { records: [alias.id] });
		await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${target.id}`,
			headers: a.headers,
			payload: { value: "new@example.org" },
		});
		assert.equal(
			html((await page(t.app, link.slug)).body)
				.entries()
				.get("Work email"),
			"new@example.org",
		);
		assert.equal(csv((await page(t.app, link.slug, { format: "csv" })).body)[1]?.[3], "new@example.org");
		assert.equal(
			vcard((await page(t.app, link.slug, { format: "vcf" })).body).getFirstPropertyValue("email"),
			"new@example.org",
		);
	});

	describe("negotiation", () => {
		const cases: [string, Record<string, string>, string, string][] = [
			["no Accept", {}, "", "text/html"],
			[
				"a browser's Accept",
				{ accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
				"",
				"text/html",
			],
			["text/csv", { accept: "text/csv" }, "", "text/csv"],
			["text/vcard", { accept: "text/vcard" }, "", "text/vcard"],
			["text/x-vcard (older clients)", { accept: "text/x-vcard" }, "", "text/vcard"],
			["text/calendar", { accept: "text/calendar" }, "", "text/calendar"],
			["by q-value", { accept: "text/html;q=0.5, text/calendar;q=0.9" }, "", "text/calendar"],
			["q=0 refuses a type", { accept: "text/csv;q=0, text/vcard" }, "", "text/vcard"],
			["nothing we serve: the page", { accept: "application/pdf" }, "", "text/html"],
			["?format wins over Accept", { accept: "text/html" }, "vcf", "text/vcard"],
		];
		for (const [name, headers, format, type] of cases) {
			test(name, async () => {
				// No Accept at all is a request of its own, not the helper's browser.
				const res =
					name === "no Accept"
						? await t.app.inject({ url: `/s/${share.slug}`, remoteAddress: nextIp() })
						: await page(t.app, share.slug, { headers, ...(format ? { format } : {}) });
				assert.equal(res.statusCode, 200, res.body);
				assert.ok(String(res.headers["content-type"]).startsWith(type), `${res.headers["content-type"]}`);
				assert.equal(res.headers.vary, "Accept, Accept-Language");
			});
		}

		test("an unknown ?format is 400 (a page for a page, problem+json otherwise)", async () => {
			const res = await page(t.app, share.slug, { format: "pdf" });
			assert.equal(res.statusCode, 400);
			assert.match(String(res.headers["content-type"]), /text\/html/);
			const api = await page(t.app, share.slug, { format: "pdf", headers: { accept: "text/csv" } });
			assert.equal(api.statusCode, 400);
			assert.equal(api.json().code, "validation_failed");
		});

		test("German from Accept-Language: words, dates and numbers; English otherwise", async () => {
			const de = await page(t.app, share.slug, { headers: { "accept-language": "de-DE,de;q=0.9,en;q=0.8" } });
			assert.equal(de.headers["content-language"], "de");
			const doc = html(de.body);
			assert.equal(doc.attr(doc.first("html"), "lang"), "de");
			assert.equal(doc.entries().get("Birthday"), "1. Mai 1990");
			assert.ok(de.body.includes("Wer das teilt"));
			const en = await page(t.app, share.slug, {
				headers: { "accept-language": "fr-FR, en;q=0.5, de;q=0.1" },
			});
			assert.equal(en.headers["content-language"], "en");
			assert.notEqual(de.headers.etag, en.headers.etag, "each language its own ETag");
		});
	});

	test("the page's headers: a strict CSP without script, noindex, no referrer, and a versioned stylesheet kept for good", async () => {
		const res = await page(t.app, share.slug);
		const csp = String(res.headers["content-security-policy"]);
		assert.match(csp, /default-src 'none'/);
		assert.match(csp, /style-src 'self'/);
		assert.doesNotMatch(csp, /script-src|unsafe-inline/);
		assert.equal(res.headers["x-robots-tag"], "noindex, nofollow");
		assert.equal(res.headers["referrer-policy"], "no-referrer");
		// Its save-a-copy links work once each: the page is not kept.
		assert.equal(res.headers["cache-control"], "private, no-store");
		const doc = html(res.body);
		const sheet = doc.must(
			doc.first("link", (l) => doc.attr(l, "rel") === "stylesheet"),
			"href",
		);
		assert.match(sheet, /^\/assets\/share-[0-9a-f]{12}\.css$/);
		const css = await t.app.inject({ url: sheet });
		assert.equal(css.statusCode, 200);
		assert.equal(css.headers["content-type"], "text/css; charset=utf-8");
		assert.equal(css.headers["cache-control"], "public, max-age=31536000, immutable");
		for (const format of ["csv", "vcf", "ics"]) {
			const data = await page(t.app, share.slug, { format });
			assert.equal(data.headers["x-robots-tag"], "noindex, nofollow");
			assert.match(String(data.headers["content-disposition"]), /^inline; filename="For the landlord\./);
		}
	});

	test("a template change reaches the formats within ten seconds (the types are kept that long)", async () => {
		const clock = new ManualClock(Date.UTC(2026, 10, 24, 12));
		const own = await makeApp({ domain: "share.example" }, { clock });
		try {
			const b = await buildAccount(own.app);
			const items = (type: string) => [{ key: "contact_line", label: "Contact", type, required: false }];
			const tpl = await own.app.inject({
				method: "POST",
				url: "/api/collections/templates/records",
				headers: b.headers,
				payload: { name: "T", items: items("text") },
			});
			const rec = await createValue(own.app, b, { key: "contact_line", value: "030 123" });
			const link = await createLink(own.app, b, { records: [rec.id] });
			const tel = async () =>
				vcard((await page(own.app, link.slug, { format: "vcf" })).body).getFirstPropertyValue("tel");
			assert.equal(await tel(), null, "a text: in the note");
			await own.app.inject({
				method: "PATCH",
				url: `/api/collections/templates/records/${tpl.json().id}`,
				headers: b.headers,
				payload: { items: items("phone") },
			});
			clock.advance(TYPES_TTL_MS - 1);
			assert.equal(await tel(), null, "kept");
			clock.advance(1);
			assert.equal(await tel(), "030 123", "read again");
		} finally {
			await own.close();
		}
	});
});
