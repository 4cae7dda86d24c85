// The share as one vCard 4.0 (RFC 6350): entries whose key or template type is a name, email,
// phone, address, organisation, web address or birthday become those properties; every other
// value goes into one NOTE as "name: value" lines. Files are not part of the card. The card's UID
// is derived from the share, so a contacts program updates its copy instead of adding another.
import crypto from "node:crypto";
import { contentLine, document, escapeText, structured } from "./content-line.ts";
import { type DateValue, phoneKind } from "./fields.ts";
import type { Entry, ShareModel } from "./model.ts";

/** One property of the card: as written, and as plain text for the addressbook's filters. */
export interface CardProperty {
	name: string;
	params: string[];
	/** The value as written (escaped). */
	value: string;
	/** The value as read back (unescaped; a structured value's components joined by `;`). */
	text: string;
}

/** A UUID-shaped name for the share (RFC 9562 layout, version 8), stable for its life; the slug stays secret. */
function shareUuid(slug: string): string {
	const h = crypto.createHash("sha256").update(`vcard-uid:${slug}`).digest("hex");
	const variant = ((Number.parseInt(h[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `20261122T120000Z`, the timestamp form both RFCs use. */
export function stamp(ms: number): string {
	return `${new Date(ms).toISOString().replace(/[-:]/g, "").slice(0, 15)}Z`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** A date or date-time in the basic form RFC 6350 §4.3 and RFC 5545 §3.3.4-5 share. */
export function basicDate(date: DateValue): string {
	if (date.kind === "date") return `${pad(date.year, 4)}${pad(date.month)}${pad(date.day)}`;
	const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0] = date.parts;
	return `${pad(y, 4)}${pad(mo)}${pad(d)}T${pad(h)}${pad(mi)}${pad(s)}${date.utc ? "Z" : ""}`;
}

/** An absolute http(s) address as a URI value, or undefined (then it is a note). */
function webAddress(value: string): string | undefined {
	try {
		const url = new URL(value.trim());
		if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
		// A URI value is not text-escaped: the separators of a content line are percent-encoded instead.
		return url.href.replaceAll(",", "%2C").replaceAll(";", "%3B");
	} catch {
		return undefined;
	}
}

const textProp = (name: string, text: string, params: string[] = []): CardProperty => ({
	name,
	params,
	value: escapeText(text, false),
	text,
});
const structuredProp = (name: string, parts: string[]): CardProperty => ({
	name,
	params: [],
	value: structured(parts),
	text: parts.join(";"),
});

/** The card's properties in order, VERSION first (RFC 6350 §6.7.9). */
export function cardProperties(model: ShareModel): CardProperty[] {
	const uid = `urn:uuid:${shareUuid(model.slug)}`;
	const props: CardProperty[] = [
		{ name: "VERSION", params: [], value: "4.0", text: "4.0" },
		textProp("PRODID", `-//${model.server.domain}//share//EN`),
		{ name: "UID", params: [], value: uid, text: uid },
	];
	const values = model.entries.filter((e): e is Entry & { value: string } => e.value !== null);
	const first = (field: Entry["field"]) => values.find((e) => e.field === field);
	const used = new Set<Entry>();
	const use = (e: Entry | undefined) => {
		if (e) used.add(e);
		return e?.value ?? "";
	};

	const given = use(first("given"));
	const family = use(first("family"));
	const full = use(first("name")) || [given, family].filter(Boolean).join(" ");
	props.push(textProp("FN", full || model.sharer.name || model.label || "Share"));
	if (given || family) props.push(structuredProp("N", [family, given, "", "", ""]));

	const parts = ["street", "city", "region", "postcode", "country"] as const;
	if (parts.some((p) => first(p)))
		props.push(structuredProp("ADR", ["", "", ...parts.map((p) => use(first(p)))]));
	for (const e of values) {
		if (used.has(e)) continue;
		const prop = property(e);
		if (prop) {
			props.push(prop);
			used.add(e);
		}
	}
	const notes = values.filter((e) => !used.has(e)).map((e) => `${e.name || e.key}: ${e.value}`);
	if (notes.length > 0) props.push(textProp("NOTE", notes.join("\n")));
	const rev = Math.max(0, ...model.entries.map((e) => e.updated));
	if (rev > 0) props.push({ name: "REV", params: [], value: stamp(rev), text: stamp(rev) });
	return props;
}

/** The property of one entry, or undefined when it belongs in the note. */
function property(e: Entry & { value: string }): CardProperty | undefined {
	switch (e.field) {
		case "email":
			return textProp("EMAIL", e.value);
		case "phone": {
			const kind = phoneKind(e.key);
			return textProp("TEL", e.value, kind ? [`TYPE=${kind}`] : []);
		}
		case "address":
			return structuredProp("ADR", ["", "", e.value, "", "", "", ""]);
		case "org":
			return structuredProp("ORG", [e.value]);
		case "url": {
			const uri = webAddress(e.value);
			return uri ? { name: "URL", params: [], value: uri, text: uri } : undefined;
		}
		case "birthday":
			if (!e.date) return textProp("BDAY", e.value, ["VALUE=text"]);
			return { name: "BDAY", params: [], value: basicDate(e.date), text: basicDate(e.date) };
		default:
			return undefined;
	}
}

/** The card; `keep` narrows it to some properties (the addressbook's `address-data` selection). */
export function renderVcard(model: ShareModel, keep?: (name: string) => boolean): string {
	const props = cardProperties(model).filter((p) => p.name === "VERSION" || !keep || keep(p.name));
	return document(["BEGIN:VCARD", ...props.map((p) => contentLine(p.name, p.value, p.params)), "END:VCARD"]);
}
