// Helpers for the share formats: a share of contact entries made through the API, reads of
// `/s/{slug}` and `/dav/s/{slug}/` from fresh client addresses, and outside parsers (parse5 for
// HTML, csv-parse for CSV, ical.js for vCard and iCalendar) to read every answer back.
import assert from "node:assert/strict";
import { parse as parseCsv } from "csv-parse/sync";
import ICAL from "ical.js";
import { type DefaultTreeAdapterMap, parse as parseHtml } from "parse5";
import type { App } from "../../src/app.ts";
import type { TestAccount } from "../helpers/factories.ts";
import { createLink, createSection, createValue, nextIp } from "../shares/helpers.ts";

export interface ContactShare {
	slug: string;
	id: string;
	ids: Record<string, string>;
}

/** The values of the contact share, by vault key. */
export const CONTACT: Record<string, { name: string; value: string; section?: "contact" | "dates" }> = {
	name: { name: "Name", value: "Ann Example", section: "contact" },
	email: { name: "Email", value: "ann@example.org", section: "contact" },
	mobile: { name: "Mobile", value: "+49 151 2345678", section: "contact" },
	address: { name: "Address", value: "Hauptstr. 1\n10115 Berlin", section: "contact" },
	company: { name: "Employer", value: "Example GmbH", section: "contact" },
	website: { name: "Website", value: "https://ann.example.org/about", section: "contact" },
	birthday: { name: "Birthday", value: "1990-05-01", section: "dates" },
	move_in: { name: "Move-in", value: "2026-12-01", section: "dates" },
	iban: { name: "IBAN", value: "DE89 3704 0044 0532 0130 00" },
};

/** A share of CONTACT (and `extra` records) through two sections and directly. */
export async function contactShare(
	app: App,
	who: TestAccount,
	link: Record<string, unknown> = {},
): Promise<ContactShare> {
	const contact = await createSection(app, who, "contact", 1);
	const dates = await createSection(app, who, "dates", 2);
	const sections = { contact: contact.id, dates: dates.id };
	const ids: Record<string, string> = {};
	for (const [key, { name, value, section }] of Object.entries(CONTACT)) {
		ids[key] = (
			await createValue(app, who, { key, name, value, ...(section ? { section: sections[section] } : {}) })
		).id;
	}
	const made = await createLink(app, who, {
		label: "For the landlord",
		records: [ids.iban],
		sections: [contact.id, dates.id],
		...link,
	});
	return { slug: made.slug, id: made.id, ids };
}

/** What a browser sends, unless a test sends its own `Accept`. */
export const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

export function page(
	app: App,
	slug: string,
	opts: { format?: string; headers?: Record<string, string>; method?: "GET" | "HEAD" } = {},
) {
	return app.inject({
		method: opts.method ?? "GET",
		url: `/s/${slug}${opts.format ? `?format=${opts.format}` : ""}`,
		headers: { accept: BROWSER_ACCEPT, ...opts.headers },
		remoteAddress: nextIp(),
	});
}

export function postForm(
	app: App,
	slug: string,
	fields: Record<string, string>,
	headers: Record<string, string> = {},
) {
	return app.inject({
		method: "POST",
		url: `/s/${slug}`,
		headers: { "content-type": "application/x-www-form-urlencoded", accept: BROWSER_ACCEPT, ...headers },
		payload: new URLSearchParams(fields).toString(),
		remoteAddress: nextIp(),
	});
}

export function dav(
	app: App,
	method: string,
	url: string,
	opts: { body?: string; headers?: Record<string, string> } = {},
) {
	return app.inject({
		method: method as "GET",
		url,
		headers: {
			...(opts.body ? { "content-type": "application/xml; charset=utf-8" } : {}),
			...(opts.headers ?? {}),
		},
		...(opts.body ? { payload: opts.body } : {}),
		remoteAddress: nextIp(),
	});
}

/** The share's stored view count (the probe does not report it). */
export async function views(app: App, slug: string): Promise<number> {
	const row = await app.store.db
		.selectFrom("links")
		.select("view_count")
		.where("slug", "=", slug)
		.executeTakeFirstOrThrow();
	return Number(row.view_count);
}

// ---- outside parsers ----------------------------------------------------------------------------

type Node = DefaultTreeAdapterMap["node"];
type El = DefaultTreeAdapterMap["element"];

export function html(text: string) {
	const doc = parseHtml(text);
	const all: El[] = [];
	const walk = (n: Node) => {
		if ("tagName" in n) all.push(n);
		if ("childNodes" in n) for (const c of n.childNodes) walk(c);
		if ("content" in n && n.content) walk(n.content as Node);
	};
	walk(doc);
	const textOf = (n: Node): string =>
		"value" in n && n.nodeName === "#text"
			? String(n.value)
			: "childNodes" in n
				? n.childNodes.map(textOf).join("")
				: "";
	const attr = (e: El, name: string) => e.attrs.find((a) => a.name === name)?.value;
	const byTag = (tag: string) => all.filter((e) => e.tagName === tag);
	return {
		all,
		byTag,
		textOf,
		attr,
		/** The first element with this tag that passes `where`; the test fails without one. */
		first(tag: string, where: (e: El) => boolean = () => true): El {
			const found = byTag(tag).find(where);
			assert.ok(found, `no <${tag}> found`);
			return found;
		},
		/** An attribute the element must have. */
		must(e: El, name: string): string {
			const value = attr(e, name);
			assert.ok(value !== undefined, `<${e.tagName}> has no ${name}`);
			return value;
		},
		/** The entries as the page shows them: the text of each `dd` after its `dt`. */
		entries(): Map<string, string> {
			const out = new Map<string, string>();
			for (const div of all.filter((e) => e.tagName === "div" && attr(e, "class") === "entry")) {
				const [dt, dd] = div.childNodes.filter((c): c is El => "tagName" in c);
				if (dt && dd) out.set(textOf(dt), textOf(dd));
			}
			return out;
		},
	};
}

export function csv(text: string): string[][] {
	return parseCsv(text, { bom: true, relax_column_count: false }) as string[][];
}

export function vcard(text: string) {
	return new ICAL.Component(ICAL.parse(text) as unknown[]);
}

export function icalendar(text: string) {
	return new ICAL.Component(ICAL.parse(text) as unknown[]);
}

/** RFC 5545 §3.1 and RFC 6350 §3.2: CRLF line ends, no bare CR or LF, at most 75 octets a line. */
export function assertContentLines(text: string): void {
	assert.ok(text.endsWith("\r\n"), "ends with CRLF");
	const lines = text.slice(0, -2).split("\r\n");
	for (const line of lines) {
		assert.ok(!/[\r\n]/.test(line), `a bare line break inside ${JSON.stringify(line)}`);
		assert.ok(Buffer.byteLength(line) <= 75, `${Buffer.byteLength(line)} octets: ${JSON.stringify(line)}`);
	}
}
