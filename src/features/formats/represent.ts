// One share, four representations (docs/api.md "Share page and formats"): the body of each, its
// ETag and its caching. The ETag is the model's digest (what the share grants and shows now) with
// the format, and for the page its language and, on a share with a view cap, the view count it
// shows. The data formats are byte-for-byte the same for the same digest: their tags are strong.
import { renderCsv } from "./csv.ts";
import { renderIcal } from "./ical.ts";
import type { ShareModel } from "./model.ts";
import { type Format, type Language, MEDIA_TYPES } from "./negotiate.ts";
import { renderVcard } from "./vcard.ts";

export function etagOf(model: ShareModel, format: Format, lang: Language): string {
	if (format !== "html") return `"${format}-${model.digest}"`;
	const views = model.maxViews === null ? "" : `-${model.viewCount}`;
	// Weak: the page also carries the one-time download tokens of its view.
	return `W/"html-${lang}-${model.digest}${views}"`;
}

/** The data formats' bodies; the page is rendered by html.ts with what only the page needs. */
export function renderData(model: ShareModel, format: Exclude<Format, "html">): string {
	switch (format) {
		case "csv":
			return renderCsv(model);
		case "vcf":
			return renderVcard(model);
		case "ics":
			return renderIcal(model);
	}
}

export const EXTENSIONS: Record<Format, string> = { html: "html", csv: "csv", vcf: "vcf", ics: "ics" };

export function mediaType(format: Format): string {
	return MEDIA_TYPES[format];
}

/**
 * Revalidated on every use (`no-cache`) so a change shows at once and an unchanged share answers
 * 304; a page with download buttons or "save a copy" links (`oneTime`) is not kept at all, since
 * each works once.
 */
export function cacheControl(model: ShareModel, format: Format, oneTime = false): string {
	const buttons = format === "html" && (oneTime || model.entries.some((e) => e.downloadToken));
	return buttons ? "private, no-store" : "private, no-cache";
}
