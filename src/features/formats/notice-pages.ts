// The share's pages that show no values: the password form, "open it in the app", and the
// refusals. A refusal says in words what happened (paused, withdrawn, views used up, expired on a
// date) and what the visitor can do; the API's codes stay in the API (issue 39.6).

import { icon } from "../../lib/brand.ts";
import { type PublicLinkRow, pastExpiry } from "../shares/service.ts";
import type { Format } from "./negotiate.ts";
import { esc, type PageContext, page } from "./page-shell.ts";
import { FORMAT, STRINGS } from "./strings.ts";

export function passwordPage(
	ctx: PageContext,
	form: { slug: string; label: string; format: Format; error?: "wrong" | "missing" },
): string {
	const t = STRINGS[ctx.lang];
	const error =
		form.error === "wrong" ? t.passwordWrong : form.error === "missing" ? t.passwordMissing : undefined;
	// A data format asked for directly (a CSV link) is delivered once the password opens it; the
	// page itself offers the formats after opening, without another view.
	const direct = form.format !== "html";
	const main = `<h1 dir="auto">${esc(form.label || t.untitled)}</h1>
<p>${esc(t.passwordHeading)}. ${esc(t.passwordIntro)}</p>
${error ? `<p class="error" id="password-error" role="alert">${esc(error)}</p>\n` : ""}<form method="post" action="/s/${esc(encodeURIComponent(form.slug))}">
<p class="field"><label for="password">${esc(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${error ? ' aria-invalid="true" aria-describedby="password-error"' : ""}></p>
${direct ? `<input type="hidden" name="format" value="${esc(form.format)}">\n` : ""}<p><button type="submit">${icon("lock")}${esc(t.open)}</button></p>
</form>
<p class="note">${esc(direct ? t.opensFormat(t.formats[form.format]) : t.opensView)}</p>
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

/** Why a page shows no values, in the visitor's terms. */
export interface Refusal {
	kind: "paused" | "revoked" | "usedUp" | "expired" | "notFound" | "tooMany" | "token" | "other";
	/** For `expired` by its date: until when it could be opened (milliseconds). */
	until?: number | undefined;
	/** Who to ask: the sharer's name where the share is known. */
	sharer?: string | undefined;
	/** The share's label, as its probe tells anyone with the slug. */
	label?: string | undefined;
}

/**
 * What a refusal means to the visitor: a share's status in words, and for an expired one whether
 * its date passed (and when) or its views are used up (issue 39.6). `link` is the share as read
 * before its gates, when it was found.
 */
export function refusalOf(code: string, link: PublicLinkRow | undefined, now: number): Refusal {
	const about = link ? { sharer: link.sharer_name, label: link.label } : {};
	switch (code) {
		case "link_paused":
			return { kind: "paused", ...about };
		case "link_revoked":
			return { kind: "revoked", ...about };
		case "link_expired": {
			if (link?.expires_at != null && pastExpiry(link, now)) {
				return { kind: "expired", until: link.expires_at, ...about };
			}
			// Not past its date: a share expires otherwise only when its views are used up.
			return link ? { kind: "usedUp", ...about } : { kind: "expired" };
		}
		case "link_not_found":
			return { kind: "notFound" };
		case "rate_limited":
			return { kind: "tooMany" };
		case "file_download_invalid":
			return { kind: "token" };
		default:
			return { kind: "other" };
	}
}

/** A sentence that starts with "the person who shared it" starts with a capital. */
const capital = (text: string) => text.charAt(0).toLocaleUpperCase() + text.slice(1);

export function refusalPage(ctx: PageContext, refusal: Refusal): string {
	const t = STRINGS[ctx.lang];
	const words = t.refused[refusal.kind];
	const who = refusal.sharer?.trim() || t.someone;
	const text =
		refusal.kind === "expired" && refusal.until !== undefined
			? t.expiredOn(`${FORMAT[ctx.lang].moment.format(refusal.until)} UTC`)
			: capital(words.text(who));
	const label = refusal.label?.trim() ? `<p class="subject" dir="auto">${esc(refusal.label)}</p>\n` : "";
	return page(
		ctx,
		words.heading,
		`<h1>${esc(words.heading)}</h1>\n${label}<p>${esc(text)}</p>\n<p>${esc(words.next(who))}</p>\n`,
	);
}
