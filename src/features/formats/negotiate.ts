// Content negotiation for `GET /s/{slug}` (spec "Shares": content negotiation): `?format=` for a
// pasted link wins, else the `Accept` header with its q-values (RFC 9110 §12.5.1); anything
// unmatched is the page. The page's language comes from `Accept-Language`: English or German.

export const FORMATS = ["html", "csv", "vcf", "ics"] as const;
export type Format = (typeof FORMATS)[number];

export const MEDIA_TYPES: Record<Format, string> = {
	html: "text/html; charset=utf-8",
	csv: "text/csv; charset=utf-8; header=present",
	vcf: "text/vcard; charset=utf-8",
	ics: "text/calendar; charset=utf-8",
};

/** The media types each format answers to (`text/x-vcard` and `text/directory` for older clients). */
const ACCEPTED: [string, Format][] = [
	["text/html", "html"],
	["application/xhtml+xml", "html"],
	["text/csv", "csv"],
	["text/vcard", "vcf"],
	["text/x-vcard", "vcf"],
	["text/directory", "vcf"],
	["text/calendar", "ics"],
];

const LANGUAGES = ["en", "de"] as const;
export type Language = (typeof LANGUAGES)[number];

interface Weighted {
	value: string;
	q: number;
	order: number;
}

/** The members of a list header with their weights, `q=0` dropped, best first (ties keep their order). */
function weighted(header: string | undefined): Weighted[] {
	if (!header) return [];
	const out: Weighted[] = [];
	for (const [order, part] of header.split(",").entries()) {
		const [value = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
		if (value === "") continue;
		let q = 1;
		for (const p of params) {
			if (!p.startsWith("q=")) continue;
			const n = Number(p.slice(2));
			q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 0;
		}
		if (q > 0) out.push({ value, q, order });
	}
	return out.sort((a, b) => b.q - a.q || a.order - b.order);
}

/** The format a request asks for: `format` when given, else the best `Accept` match, else the page. */
export function negotiateFormat(format: Format | undefined, accept: string | undefined): Format {
	if (format) return format;
	// One media type without parameters (what scripts send): no list to weigh.
	if (accept !== undefined && !accept.includes(",") && !accept.includes(";")) {
		return ACCEPTED.find(([type]) => type === accept.trim().toLowerCase())?.[1] ?? "html";
	}
	for (const { value } of weighted(accept)) {
		const exact = ACCEPTED.find(([type]) => type === value);
		if (exact) return exact[1];
		// `text/*` and `*/*` are satisfied by the page.
		if (value === "*/*" || value === "text/*") return "html";
	}
	return "html";
}

/**
 * Whether the client asks for HTML by name (a browser does): its refusals are pages. Any other
 * client (no `Accept`, or only wildcards) gets them as problem+json with the gates' codes.
 */
export function asksForHtml(accept: string | undefined): boolean {
	return weighted(accept).some(({ value }) => value === "text/html" || value === "application/xhtml+xml");
}

/** English unless German is preferred over it (a bare `de` or any `de-*` range counts). */
export function negotiateLanguage(acceptLanguage: string | undefined): Language {
	for (const { value } of weighted(acceptLanguage)) {
		const primary = value.split("-")[0];
		if (primary === "de") return "de";
		if (primary === "en" || value === "*") return "en";
	}
	return "en";
}
