// The frame every share page is drawn in (the share itself, the password form, the refusals):
// one document with its language, this origin's stylesheet, no script. Every value, name and
// label reaches a page as escaped text.
import { MARK_SVG } from "../../lib/brand.ts";
import type { Language } from "./negotiate.ts";
import { STRINGS } from "./strings.ts";

const ENTITIES: Record<string, string> = {
	"&": "&amp;",
	"<": "&lt;",
	">": "&gt;",
	'"': "&quot;",
	"'": "&#39;",
};
const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;

/** Text for HTML content or a quoted attribute; most text has nothing to escape and is left as is. */
export function esc(value: string): string {
	return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ENTITIES[c] ?? c) : value;
}

export interface PageContext {
	lang: Language;
	/** The stylesheet's versioned address. */
	css: string;
	domain: string;
}

export function page(ctx: PageContext, title: string, main: string): string {
	const t = STRINGS[ctx.lang];
	return `<!doctype html>
<html lang="${ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${esc(ctx.css)}">
</head>
<body>
<a class="skip" href="#main">${esc(t.skip)}</a>
<header class="masthead"><div class="masthead-inner">${MARK_SVG}<p class="server">${esc(ctx.domain)}</p></div></header>
<main id="main">
${main}</main>
<footer><p>${esc(t.footer(ctx.domain))}</p></footer>
</body>
</html>
`;
}
