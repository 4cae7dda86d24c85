// The look every server-rendered page shares with the console (docs/console.md "Look"): the
// product's name and mark, the design tokens (web/tokens.css, served in front of each page's own
// stylesheet), and icons from lucide (lucide-static, ISC) read once from the installed package and
// written into the page: no script, no request, no CDN. Icons are decorative (aria-hidden).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { escapeHtml } from "./html.ts";
import { webDir } from "./web-dir.ts";

/** The product's name beside its mark (the console's header says the same). */
export const PRODUCT = "svc";

/** The mark's open ring (a grant that can be cut) around a dot (the live value): web/favicon.svg and the console draw it too. */
export const MARK_ARC = "M22 10A8.5 8.5 0 1 0 24.5 16";

/** The mark as inline SVG, coloured by the tokens (.mark-*), decorative: the name follows it. */
export const MARK_SVG = `<svg class="mark" width="28" height="28" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect class="mark-tile" width="32" height="32" rx="8" fill="#1d4ed8"/><path class="mark-glyph" d="${MARK_ARC}" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/><circle class="mark-dot" cx="16" cy="16" r="3.25" fill="#fff"/></svg>`;

/** The icons the pages use, by lucide's file name. */
const LUCIDE = {
	"log-in": "log-in",
	"user-plus": "user-plus",
	languages: "languages",
	"shield-check": "shield-check",
	code: "code-xml",
	"key-round": "key-round",
	download: "download",
	"file-down": "file-down",
	lock: "lock",
	"circle-alert": "circle-alert",
	clock: "clock",
	"badge-check": "badge-check",
	"circle-help": "circle-question-mark",
	"arrow-right": "arrow-right",
} as const;

export type PageIcon = keyof typeof LUCIDE;

const require = createRequire(import.meta.url);
const cache = new Map<PageIcon, string>();

/** `<span class="icon" aria-hidden="true"><svg …></span>`: lucide's markup, compacted. */
export function icon(name: PageIcon): string {
	let html = cache.get(name);
	if (html === undefined) {
		const file = require.resolve(`lucide-static/icons/${LUCIDE[name]}.svg`);
		const svg = fs
			.readFileSync(file, "utf8")
			.replace(/<!--[\s\S]*?-->/g, "")
			.replace(/\s+/g, " ")
			.replace(/> </g, "><")
			.replace(/ (width|height)="24"/g, ' $1="1em"')
			.trim()
			.replace("<svg ", '<svg aria-hidden="true" focusable="false" ');
		html = `<span class="icon" aria-hidden="true">${svg}</span>`;
		cache.set(name, html);
	}
	return html;
}

let tokens: Buffer | undefined;

/** web/tokens.css: the design tokens, light and dark. */
export function tokensCss(): Buffer {
	tokens ??= fs.readFileSync(path.join(webDir(), "tokens.css"));
	return tokens;
}

/** A page's stylesheet with the tokens in front of it: one file, one request. */
export function withTokens(css: Buffer): Buffer {
	return Buffer.concat([tokensCss(), Buffer.from("\n"), css]);
}

/** The header of the passkey and sign-in pages: the mark, the name and, when known, the server's domain. */
export function brandHeader(domain?: string): string {
	const where = domain ? `<span class="brand-domain">${escapeHtml(domain)}</span>` : "";
	return `<header class="site-header"><p class="brand"><span class="brand-name">${MARK_SVG}${PRODUCT}</span>${where}</p></header>\n`;
}
