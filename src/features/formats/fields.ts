// What an entry of a share is, for the formats that give entries a meaning (vCard properties,
// calendar events, links on the page): read from its vault key, or from the type a template gives
// that key (docs/api.md "Share page and formats"). One table, used by every format.
import type { TemplateItemType } from "../vault/templates/service.ts";

export type Field =
	| "name"
	| "given"
	| "family"
	| "email"
	| "phone"
	| "address"
	| "street"
	| "city"
	| "region"
	| "postcode"
	| "country"
	| "org"
	| "url"
	| "birthday"
	| "date"
	| "note";

const BY_KEY = new Map<string, Field>();
const table: [Field, string[]][] = [
	["name", ["name", "full_name", "fullname", "display_name", "displayname"]],
	["given", ["first_name", "firstname", "given_name", "givenname", "forename", "vorname"]],
	["family", ["last_name", "lastname", "family_name", "familyname", "surname", "nachname"]],
	["address", ["address", "postal_address", "home_address", "anschrift", "adresse"]],
	["street", ["street", "street_address", "strasse"]],
	["city", ["city", "town", "locality", "ort", "stadt"]],
	["region", ["region", "state", "province"]],
	["postcode", ["postal_code", "postcode", "post_code", "zip", "zip_code", "plz"]],
	["country", ["country", "land"]],
	["org", ["organisation", "organization", "org", "company", "employer", "firma"]],
	["birthday", ["birthday", "birthdate", "birth_date", "date_of_birth", "dob", "bday", "geburtstag"]],
];
for (const [field, keys] of table) for (const key of keys) BY_KEY.set(key, field);

/** Keys naming an email, a phone or a web address anywhere as one word: `work_email`, `phone_mobile`. */
const WORDS: [Field, Set<string>][] = [
	["email", new Set(["email", "mail"])],
	["phone", new Set(["phone", "tel", "telephone", "mobile", "cell", "fax", "telefon", "handy"])],
	["url", new Set(["url", "website", "homepage", "web"])],
];

/** A vault key in one spelling: lower case, words joined by `_`. */
function words(key: string): string[] {
	return key.toLowerCase().replaceAll("-", "_").split("_").filter(Boolean);
}

function byKey(key: string): Field {
	// Most keys are written as the table writes them: one look-up, no splitting.
	const direct = BY_KEY.get(key);
	if (direct) return direct;
	const parts = words(key);
	const exact = BY_KEY.get(parts.join("_"));
	if (exact) return exact;
	if (parts.join("") === "email") return "email";
	for (const [field, set] of WORDS) if (parts.some((p) => set.has(p))) return field;
	return "note";
}

/** Fields of keys read lately: the page's hot path reads the same keys over and over. */
const seen = new Map<string, Field>();
const SEEN_MAX = 4096;

/** The field of an entry: a template's email, phone, url, address or date type wins over the key. */
export function fieldOf(key: string, type: TemplateItemType | undefined): Field {
	let fromKey = seen.get(key);
	if (fromKey === undefined) {
		fromKey = byKey(key);
		if (seen.size >= SEEN_MAX) seen.clear();
		seen.set(key, fromKey);
	}
	switch (type) {
		case "email":
		case "phone":
		case "url":
		case "address":
			return type;
		case "date":
			return fromKey === "birthday" ? "birthday" : "date";
		default:
			return fromKey;
	}
}

/** The phone kind a key names, for vCard's TYPE parameter. */
export function phoneKind(key: string): "cell" | "fax" | undefined {
	const parts = words(key);
	if (parts.some((p) => p === "mobile" || p === "cell" || p === "handy")) return "cell";
	if (parts.includes("fax")) return "fax";
	return undefined;
}

/** A date an entry holds: a calendar date, or a moment (UTC when the value named a zone, else floating). */
export type DateValue =
	| { kind: "date"; year: number; month: number; day: number }
	| { kind: "moment"; iso: string; utc: boolean; parts: number[] };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MOMENT =
	/^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function validDate(year: number, month: number, day: number): boolean {
	const d = new Date(Date.UTC(year, month - 1, day));
	return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** An ISO 8601 date (`2026-12-01`) or date-time (`2026-12-01T10:00`, with `Z` or an offset), else undefined. */
export function parseDate(value: string): DateValue | undefined {
	const text = value.trim();
	const d = DATE.exec(text);
	if (d) {
		const [year, month, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
		return validDate(year, month, day) ? { kind: "date", year, month, day } : undefined;
	}
	const m = MOMENT.exec(text);
	if (!m) return undefined;
	const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
		number,
		number,
		number,
		number,
		number,
		number,
	];
	if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
	const zone = m[7];
	if (zone === undefined) {
		const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${String(second).padStart(2, "0")}`;
		return { kind: "moment", iso, utc: false, parts: [year, month, day, hour, minute, second] };
	}
	const offset =
		zone.toUpperCase() === "Z"
			? 0
			: (zone.startsWith("-") ? -1 : 1) *
				(Number(zone.slice(1, 3)) * 60 + Number(zone.slice(zone.includes(":") ? 4 : 3)));
	const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second) - offset * 60_000);
	const parts = [
		at.getUTCFullYear(),
		at.getUTCMonth() + 1,
		at.getUTCDate(),
		at.getUTCHours(),
		at.getUTCMinutes(),
		at.getUTCSeconds(),
	];
	return { kind: "moment", iso: at.toISOString(), utc: true, parts };
}

/** Types by key from template item lists (JSON text), the first list naming a key deciding it. */
export function typesByKey(lists: readonly { items: string }[]): Map<string, TemplateItemType> {
	const types = new Map<string, TemplateItemType>();
	for (const { items } of lists) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(items);
		} catch {
			continue;
		}
		if (!Array.isArray(parsed)) continue;
		for (const item of parsed) {
			const { key, type } = (item ?? {}) as { key?: unknown; type?: unknown };
			if (typeof key === "string" && typeof type === "string" && !types.has(key)) {
				types.set(key, type as TemplateItemType);
			}
		}
	}
	return types;
}
