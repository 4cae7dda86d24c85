// The share page as HTML (spec "What the service does" 12): read on a phone, without script,
// under a CSP that allows this origin's stylesheet and nothing else. It leads with the values and
// who shares them; saving a copy, the share's limits, what the visitor can do and how to check
// who shares it follow (issue 39.8). Every value, name and label reaches the page as escaped text,
// isolated for bidirectional text (`dir="auto"`, `<bdi>`).
import { icon } from "../../lib/brand.ts";
import type { Entry, ShareModel } from "./model.ts";
import type { DataFormat } from "./offers.ts";
import { esc, type PageContext, page } from "./page-shell.ts";
import { FORMAT, STRINGS, type Strings } from "./strings.ts";

export { appPage, passwordPage, type Refusal, refusalOf, refusalPage } from "./notice-pages.ts";
export type { PageContext } from "./page-shell.ts";

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
			? `<a class="button" href="${esc(href)}" download>${icon("download")}${esc(t.download(e.file.name))}</a> <span class="meta">${esc(size(e.file.size, ctx))}</span>`
			: `<bdi>${esc(e.file.name)}</bdi> <span class="meta">${esc(size(e.file.size, ctx))}</span>`;
	} else if (e.hidden) {
		dd = `<details><summary>${esc(t.hiddenShow)}</summary><span class="value" dir="auto">${value(e, ctx)}</span></details>`;
	} else {
		dd = `<span class="value" dir="auto">${value(e, ctx)}</span>`;
	}
	return `<div class="entry"><dt dir="auto">${esc(e.name || e.key)}</dt><dd>${dd}</dd></div>\n`;
}

export interface SharePageOptions {
	/** The data formats to save a copy in, each with its one-time address (minted with this page's view). */
	downloads: { format: DataFormat; href: string }[];
	/** The addressbook's address, for a share the addressbook serves. */
	addressbook: string | undefined;
}

/** "Shared with you by Ann Example, as Ann (personal)": who shares, right under the title. */
function lead(model: ShareModel, t: Strings): string {
	const name = model.sharer.name.trim();
	if (!name) return "";
	const id = model.sharer.identity;
	const as = id?.name ? `<bdi>${esc(id.name)}</bdi>` : "";
	const who = `<strong><bdi>${esc(name)}</bdi></strong>`;
	// The name goes in as markup: split the sentence around a placeholder, escape the rest.
	const [before = "", after = ""] = t.sharedWithYou("\u0000").split("\u0000");
	const via = as ? esc(t.viaIdentity("\u0000")).replace("\u0000", as) : "";
	return `<p class="lead">${esc(before)}${who}${esc(after)}${via}</p>\n`;
}

function save(opts: SharePageOptions, t: Strings): string {
	if (opts.downloads.length === 0 && !opts.addressbook) return "";
	const links = opts.downloads
		.map(
			(d) =>
				`<li><a class="button secondary" href="${esc(d.href)}">${icon("file-down")}${esc(t.formats[d.format])}</a></li>`,
		)
		.join("\n");
	const list = links
		? `<ul class="downloads">\n${links}\n</ul>\n<p class="note">${esc(t.saveNote)}</p>\n`
		: "";
	const book = opts.addressbook
		? `<p>${esc(t.addressbook)}: <code class="address">${esc(opts.addressbook)}</code></p>\n<p class="note">${esc(t.addressbookNote)}</p>\n`
		: "";
	return `<section aria-labelledby="save">
<h2 id="save">${icon("download")}${esc(t.saveHeading)}</h2>
${list}${book}</section>
`;
}

function about(model: ShareModel, ctx: PageContext, t: Strings): string {
	const f = FORMAT[ctx.lang];
	const left = model.maxViews === null ? null : Math.max(0, model.maxViews - model.viewCount);
	const views = left === null ? t.noViewLimit : left === 0 ? t.lastView : t.viewsLeft(f.number.format(left));
	const expiry =
		model.expiresAt === null
			? esc(t.noExpiry)
			: `<time datetime="${new Date(model.expiresAt).toISOString()}">${esc(`${f.moment.format(model.expiresAt)} UTC`)}</time>`;
	return `<section aria-labelledby="about">
<h2 id="about">${icon("clock")}${esc(t.aboutHeading)}</h2>
<dl class="claims">
<div><dt>${esc(t.expires)}</dt><dd>${expiry}</dd></div>
<div><dt>${esc(t.views)}</dt><dd>${esc(views)}</dd></div>
</dl>
<p class="note">${esc(t.current)}${model.watermarked ? ` ${esc(t.watermarked)}` : ""}</p>
</section>
`;
}

/** The page's own help: what a visitor can do, in a few lines. */
function help(model: ShareModel, opts: SharePageOptions, t: Strings): string {
	const saving = opts.downloads.length > 0 || model.entries.some((e) => e.downloadToken);
	const who = model.sharer.name.trim() || t.someone;
	const lines = [t.helpRead, ...(saving ? [t.helpSave] : []), t.helpAgain, t.helpAsk(who)];
	return `<section aria-labelledby="help">
<h2 id="help">${icon("circle-help")}${esc(t.helpHeading)}</h2>
<ul class="help">
${lines.map((l) => `<li>${esc(l)}</li>`).join("\n")}
</ul>
</section>
`;
}

/** Who shares this, and how to check it, in plain words: the claims, where they help least in the way. */
function who(model: ShareModel, t: Strings): string {
	const id = model.sharer.identity;
	const identity = id
		? `<div><dt>${esc(t.identity)}</dt><dd><bdi>${esc(id.name)}</bdi> · <code>${esc(grouped(id.fingerprint.slice(0, 16)))}</code><span class="state">${esc(t.identityState(model.server.domain))}</span></dd></div>\n`
		: "";
	return `<section aria-labelledby="who">
<h2 id="who">${icon("badge-check")}${esc(t.whoHeading)}</h2>
<dl class="claims">
<div><dt>${esc(t.sharedBy)}</dt><dd><bdi>${esc(model.sharer.name)}</bdi><span class="state">${esc(t.sharerState)}</span></dd></div>
${identity}<div><dt>${esc(t.server)}</dt><dd>${esc(model.server.domain)}<span class="state">${esc(t.serverState(model.server.domain))}</span><code class="fingerprint">${esc(grouped(model.server.fingerprint))}</code></dd></div>
</dl>
</section>
`;
}

export function sharePage(model: ShareModel, ctx: PageContext, opts: SharePageOptions): string {
	const t = STRINGS[ctx.lang];
	const title = model.label || t.untitled;
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
			? `<p><a class="button" href="/api/public/links/${esc(encodeURIComponent(model.slug))}/archive?dl=${esc(encodeURIComponent(model.archiveToken))}" download>${icon("download")}${esc(t.downloadAll)}</a></p>\n`
			: "";
	const fileNote =
		files > 0 ? `<p class="note">${esc(t.downloadNote)}${archive ? ` ${esc(t.archiveNote)}` : ""}</p>\n` : "";
	return page(
		ctx,
		title,
		`<h1 dir="auto">${esc(title)}</h1>\n${lead(model, t)}${groups}${archive}${fileNote}${save(opts, t)}${about(model, ctx, t)}${help(model, opts, t)}${who(model, t)}`,
	);
}
