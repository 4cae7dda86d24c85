// The share page as HTML (spec "What the service does" 12): read on a phone, without script,
// under a CSP that allows this origin's stylesheet and nothing else. Every value, name and label
// reaches the page as escaped text, isolated for bidirectional text (`dir="auto"`, `<bdi>`).
import type { Entry, ShareModel } from "./model.ts";
import { FORMATS, type Format, type Language } from "./negotiate.ts";
import { FORMAT, STRINGS, type Strings } from "./strings.ts";

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
function esc(value: string): string {
	return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ENTITIES[c] ?? c) : value;
}

export interface PageContext {
	lang: Language;
	/** The stylesheet's versioned address. */
	css: string;
	domain: string;
}

function page(ctx: PageContext, title: string, main: string): string {
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
<header><p class="server">${esc(ctx.domain)}</p></header>
<main id="main">
${main}</main>
<footer><p>${esc(t.footer(ctx.domain))}</p></footer>
</body>
</html>
`;
}

/** A key fingerprint in groups of four, as people compare them. */
function grouped(hex: string): string {
	return hex.match(/.{1,4}/g)?.join(" ") ?? hex;
}

function value(e: Entry, ctx: PageContext): string {
	const f = FORMAT[ctx.lang];
	const text = e.value ?? "";
	if (e.date) {
		const shown =
			e.date.kind === "date" ? f.day.format(Date.UTC(e.date.year, e.date.month - 1, e.date.day)) : null;
		const iso = e.date.kind === "date" ? text.trim() : e.date.iso;
		return `<time datetime="${esc(iso)}">${esc(shown ?? text)}</time>`;
	}
	const trimmed = text.trim();
	if (e.field === "email" && /^[^\s@]+@[^\s@]+$/.test(trimmed))
		return `<a href="mailto:${esc(trimmed)}">${esc(text)}</a>`;
	if (e.field === "phone" && /^\+?[\d\s().-]{3,}$/.test(trimmed)) {
		return `<a href="tel:${esc(trimmed.replace(/[\s()]/g, ""))}">${esc(text)}</a>`;
	}
	if (e.field === "url" && /^https?:\/\/\S+$/i.test(trimmed)) {
		return `<a href="${esc(trimmed)}" rel="noopener noreferrer nofollow">${esc(text)}</a>`;
	}
	return esc(text);
}

function size(bytes: number, ctx: PageContext): string {
	const f = FORMAT[ctx.lang];
	if (bytes < 1000) return f.bytes.format(bytes);
	return bytes >= 1_000_000 ? f.megabytes.format(bytes / 1_000_000) : f.kilobytes.format(bytes / 1000);
}

function entry(e: Entry, model: ShareModel, ctx: PageContext, t: Strings): string {
	let dd: string;
	if (e.file) {
		const href = `/api/public/links/${encodeURIComponent(model.slug)}/files/${encodeURIComponent(e.id)}?dl=${encodeURIComponent(e.downloadToken ?? "")}`;
		dd = e.downloadToken
			? `<a class="button" href="${esc(href)}" download>${esc(t.download(e.file.name))}</a> <span class="meta">${esc(size(e.file.size, ctx))}</span>`
			: `<bdi>${esc(e.file.name)}</bdi> <span class="meta">${esc(size(e.file.size, ctx))}</span>`;
	} else if (e.hidden) {
		dd = `<details><summary>${esc(t.hiddenShow)}</summary><span class="value" dir="auto">${value(e, ctx)}</span></details>`;
	} else {
		dd = `<span class="value" dir="auto">${value(e, ctx)}</span>`;
	}
	return `<div class="entry"><dt dir="auto">${esc(e.name || e.key)}</dt><dd>${dd}</dd></div>\n`;
}

export interface SharePageOptions {
	/** Links to the other formats (a share without a password: they are plain GETs). */
	formatLinks: boolean;
	/** The addressbook's address, for a share the addressbook serves. */
	addressbook: string | undefined;
}

export function sharePage(model: ShareModel, ctx: PageContext, opts: SharePageOptions): string {
	const t = STRINGS[ctx.lang];
	const f = FORMAT[ctx.lang];
	const title = model.label || t.untitled;
	const id = model.sharer.identity;
	const who = `<section aria-labelledby="who">
<h2 id="who">${esc(t.whoHeading)}</h2>
<dl class="claims">
<div><dt>${esc(t.sharedBy)}</dt><dd><bdi>${esc(model.sharer.name)}</bdi><span class="state">${esc(t.sharerState)}</span></dd></div>
${id ? `<div><dt>${esc(t.identity)}</dt><dd><bdi>${esc(id.name)}</bdi> · <code>${esc(grouped(id.fingerprint.slice(0, 16)))}</code><span class="state">${esc(t.identityState(model.server.domain))}</span></dd></div>\n` : ""}<div><dt>${esc(t.server)}</dt><dd>${esc(model.server.domain)}<span class="state">${esc(t.serverState(model.server.domain))}</span><code class="fingerprint">${esc(grouped(model.server.fingerprint))}</code></dd></div>
</dl>
</section>
`;
	const groups = model.groups
		.map((g, i) => {
			const heading = g.section ? g.section.name || g.section.key : t.entries;
			return `<section aria-labelledby="g${i}">
<h2 id="g${i}" dir="auto">${esc(heading)}</h2>
<dl class="entries">
${g.entries.map((e) => entry(e, model, ctx, t)).join("")}</dl>
</section>
`;
		})
		.join("");
	const files = model.entries.filter((e) => e.downloadToken).length;
	const archive =
		model.archiveToken && files > 1
			? `<p><a class="button" href="/api/public/links/${esc(encodeURIComponent(model.slug))}/archive?dl=${esc(encodeURIComponent(model.archiveToken))}" download>${esc(t.downloadAll)}</a></p>\n`
			: "";
	const fileNote =
		files > 0 ? `<p class="note">${esc(t.downloadNote)}${archive ? ` ${esc(t.archiveNote)}` : ""}</p>\n` : "";
	const left = model.maxViews === null ? null : Math.max(0, model.maxViews - model.viewCount);
	const views = left === null ? t.noViewLimit : left === 0 ? t.lastView : t.viewsLeft(f.number.format(left));
	const expiry =
		model.expiresAt === null
			? esc(t.noExpiry)
			: `<time datetime="${new Date(model.expiresAt).toISOString()}">${esc(`${f.moment.format(model.expiresAt)} UTC`)}</time>`;
	const base = `/s/${encodeURIComponent(model.slug)}`;
	const others = opts.formatLinks
		? `<p>${esc(t.alsoAs)}: ${FORMATS.filter((x) => x !== "html")
				.map((x) => `<a href="${esc(`${base}?format=${x}`)}">${esc(t.formats[x])}</a>`)
				.join(" · ")} <span class="note">${esc(t.alsoAsNote)}</span></p>\n`
		: "";
	const book = opts.addressbook
		? `<p>${esc(t.addressbook)}: <code class="address">${esc(opts.addressbook)}</code></p>\n`
		: "";
	const about = `<section aria-labelledby="about">
<h2 id="about">${esc(t.aboutHeading)}</h2>
<dl class="claims">
<div><dt>${esc(t.expires)}</dt><dd>${expiry}</dd></div>
<div><dt>${esc(t.views)}</dt><dd>${esc(views)}</dd></div>
</dl>
<p class="note">${esc(t.current)}${model.watermarked ? ` ${esc(t.watermarked)}` : ""}</p>
${others}${book}</section>
`;
	return page(ctx, title, `<h1 dir="auto">${esc(title)}</h1>\n${who}${groups}${archive}${fileNote}${about}`);
}

export function passwordPage(
	ctx: PageContext,
	form: { slug: string; label: string; format: Format; error?: "wrong" | "missing" },
): string {
	const t = STRINGS[ctx.lang];
	const error =
		form.error === "wrong" ? t.passwordWrong : form.error === "missing" ? t.passwordMissing : undefined;
	const options = FORMATS.map(
		(x) => `<option value="${x}"${x === form.format ? " selected" : ""}>${esc(t.formats[x])}</option>`,
	).join("");
	const main = `<h1 dir="auto">${esc(form.label || t.untitled)}</h1>
<p>${esc(t.passwordHeading)}. ${esc(t.passwordIntro)}</p>
${error ? `<p class="error" id="password-error" role="alert">${esc(error)}</p>\n` : ""}<form method="post" action="/s/${esc(encodeURIComponent(form.slug))}">
<p class="field"><label for="password">${esc(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${error ? ' aria-invalid="true" aria-describedby="password-error"' : ""}></p>
<p class="field"><label for="format">${esc(t.openAs)}</label>
<select id="format" name="format">${options}</select></p>
<p><button type="submit">${esc(t.open)}</button></p>
</form>
<p class="note">${esc(t.opensView)}</p>
`;
	return page(ctx, form.label || t.untitled, main);
}

export function appPage(ctx: PageContext, label: string): string {
	const t = STRINGS[ctx.lang];
	return page(
		ctx,
		label || t.untitled,
		`<h1 dir="auto">${esc(label || t.untitled)}</h1>\n<h2>${esc(t.appHeading)}</h2>\n<p>${esc(t.appIntro)}</p>\n`,
	);
}

/** Paused, revoked, expired or unknown (404), or another refusal (its detail shown). */
export function refusalPage(ctx: PageContext, code: string, detail: string): string {
	const t = STRINGS[ctx.lang];
	const gone = t.gone[code];
	const heading = gone ? t.goneHeading : t.errorHeading;
	const text = gone ?? (code === "rate_limited" ? t.tooMany : detail);
	return page(
		ctx,
		heading,
		`<h1>${esc(heading)}</h1>\n<p>${esc(text)}</p>\n<p class="note"><code>${esc(code)}</code></p>\n`,
	);
}
