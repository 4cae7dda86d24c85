// Contacts from vCard (RFC 6350, and 3.0 as phones and address books still write it), parsed by
// ical.js. Each card becomes a section named after the person, holding one entry per property this
// vault gives a meaning (the keys the share formats read back: formats/fields.ts): name, email,
// phone, address, org, title, url, birthday, note. Other properties are left out and counted.
// The text is cut into cards at BEGIN/END lines first, so a refusal names the card and its line.
import ICAL from "ical.js";
import type { ContentEntry, ContentSection, Refusal, VaultContents } from "../vault/service.ts";
import { NAME_MAX, VALUE_MAX } from "../vault/service.ts";
import { MAX_ENTRIES, MAX_SECTIONS } from "./limits.ts";
import { keyFrom, uniqueKey } from "./names.ts";

/** vCard property → vault key and the entry's name. */
const PROPERTIES: Record<string, { key: string; name: string }> = {
	fn: { key: "name", name: "Name" },
	email: { key: "email", name: "Email" },
	tel: { key: "phone", name: "Phone" },
	adr: { key: "address", name: "Address" },
	org: { key: "org", name: "Organization" },
	title: { key: "title", name: "Title" },
	url: { key: "url", name: "Web address" },
	bday: { key: "birthday", name: "Birthday" },
	note: { key: "note", name: "Note" },
};

interface Card {
	number: number;
	line: number;
	text: string;
}

/** The cards of `text`, each with its number (from 1) and first line; refusals for stray lines. */
function splitCards(text: string): { cards: Card[]; refusals: Refusal[] } {
	const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
	const cards: Card[] = [];
	const refusals: Refusal[] = [];
	let open: { line: number; body: string[] } | undefined;
	lines.forEach((line, i) => {
		const upper = line.trim().toUpperCase();
		if (upper === "BEGIN:VCARD") {
			if (open)
				refusals.push({ at: `card ${cards.length + 1} (line ${open.line})`, message: "has no END:VCARD" });
			open = { line: i + 1, body: [line] };
		} else if (upper === "END:VCARD" && open) {
			open.body.push(line);
			cards.push({ number: cards.length + 1, line: open.line, text: `${open.body.join("\r\n")}\r\n` });
			open = undefined;
		} else if (open) open.body.push(line);
		else if (line.trim() !== "")
			refusals.push({ at: `line ${i + 1}`, message: "is outside any BEGIN:VCARD … END:VCARD" });
	});
	if (open)
		refusals.push({ at: `card ${cards.length + 1} (line ${open.line})`, message: "has no END:VCARD" });
	return { cards, refusals };
}

/** A property's value as one line of text: structured parts (ADR, ORG, N) joined. */
function textOf(property: ICAL.Property): string {
	const parts = property.getValues().flatMap((v: unknown) => (Array.isArray(v) ? v.flat() : [v]));
	const joiner = property.name === "adr" ? ", " : property.name === "org" ? ", " : " ";
	return parts
		.map((v) => (typeof v === "string" ? v : String(v ?? "")))
		.map((v) => v.trim())
		.filter((v) => v !== "")
		.join(joiner);
}

function typeLabel(property: ICAL.Property): string {
	const raw = property.getParameter("type");
	const types = (Array.isArray(raw) ? raw : raw ? [raw] : [])
		.map((t) => String(t).toLowerCase())
		.filter((t) => !["internet", "pref", "voice", "x400"].includes(t));
	return types.length > 0 ? ` (${types.join(", ")})` : "";
}

export function readVcards(
	text: string,
	existing: ReadonlySet<string>,
): { contents: VaultContents; refusals: Refusal[]; skipped: number } {
	const { cards, refusals } = splitCards(text);
	const sections: ContentSection[] = [];
	const entries: ContentEntry[] = [];
	const taken = new Set(existing);
	let skipped = 0;
	if (cards.length === 0 && refusals.length === 0)
		refusals.push({ at: "line 1", message: "no BEGIN:VCARD: this is not a vCard file" });
	if (cards.length > MAX_SECTIONS)
		refusals.push({
			at: `card ${MAX_SECTIONS + 1}`,
			message: `at most ${MAX_SECTIONS} cards are read at once`,
		});
	for (const card of cards.slice(0, MAX_SECTIONS)) {
		const at = `card ${card.number} (line ${card.line})`;
		let component: ICAL.Component;
		try {
			component = new ICAL.Component(ICAL.parse(card.text) as unknown as unknown[]);
		} catch (err) {
			refusals.push({ at, message: `cannot be read: ${(err as Error).message}` });
			continue;
		}
		const fn = component.getFirstPropertyValue("fn");
		const n = component.getFirstProperty("n");
		const name = (typeof fn === "string" && fn.trim()) || (n ? textOf(n) : "");
		if (name === "") {
			refusals.push({ at, message: "has no name (FN or N)" });
			continue;
		}
		const sectionKey = uniqueKey(keyFrom(name, "contact"), taken);
		sections.push({ at, key: sectionKey, name: name.slice(0, NAME_MAX), ordering: sections.length });
		let index = 0;
		for (const property of component.getAllProperties()) {
			const known = PROPERTIES[property.name];
			if (!known) {
				if (property.name !== "version" && property.name !== "n" && property.name !== "prodid") skipped++;
				continue;
			}
			const value = textOf(property);
			if (value === "") continue;
			index++;
			if (value.length > VALUE_MAX) {
				refusals.push({
					at,
					message: `${property.name.toUpperCase()} is longer than ${VALUE_MAX} characters`,
				});
				continue;
			}
			entries.push({
				at,
				ref: `${card.number}.${index}`,
				key: known.key,
				name: `${known.name}${typeLabel(property)}`.slice(0, NAME_MAX),
				section: sectionKey,
				hidden: false,
				alias: null,
				value,
				file: null,
			});
		}
	}
	if (entries.length > MAX_ENTRIES)
		refusals.push({
			at: entries[MAX_ENTRIES]?.at ?? "",
			message: `at most ${MAX_ENTRIES} entries are read at once`,
		});
	return { contents: { sections, entries, templates: [] }, refusals, skipped };
}
