// HTTP for `/s/{slug}` (spec "Shares"): the share page and its CSV, vCard and iCalendar forms,
// negotiated (negotiate.ts), conditional (ETag, If-None-Match), with the password as a plain POST
// form or HTTP Basic, and the page's stylesheet under a versioned address. The opened page offers
// the data formats that carry something, each with a one-time token of the page's view (`dl`).
// Refusals of a page are pages, in words; refusals of the data formats are problem+json with the
// gates' codes (a browser following a spent format link gets a page).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { publicOrigin } from "../../config.ts";
import type { FormatTokenKind } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { sendProblem, toAppError } from "../../http/problem.ts";
import { pageErrors } from "../../http/schemas.ts";
import { withTokens } from "../../lib/brand.ts";
import { contentDisposition } from "../../lib/sniff.ts";
import {
	findBySlug,
	isUngated,
	logTokenRead,
	mintFormatTokens,
	type PublicLinkRow,
	type ShareReader,
} from "../shares/service.ts";
import { appPage, type PageContext, passwordPage, refusalOf, refusalPage, sharePage } from "./html.ts";
import {
	asksForHtml,
	FORMATS,
	type Format,
	type Language,
	negotiateFormat,
	negotiateLanguage,
} from "./negotiate.ts";
import { type DataFormat, offeredFormats } from "./offers.ts";
import { type FormatsContext, parseIfNoneMatch, readByToken, readShare } from "./read.ts";
import { cacheControl, EXTENSIONS, etagOf, mediaType, renderData } from "./represent.ts";

/** No script at all; this origin's stylesheet; an empty icon (so no favicon request); the form posts here. */
export const SHARE_PAGE_CSP =
	"default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const ROBOTS = "noindex, nofollow";
const FORM_BODY_LIMIT = 4096;

/** The reader of each format, whose gates it passes (shares' READER_GATES). */
const READERS: Record<Format, ShareReader> = { html: "page", csv: "csv", vcf: "vcard", ics: "ical" };
/** The one-time token kind of each data format offered by the opened page (shares' link_tokens). */
const TOKEN_KINDS: Record<DataFormat, FormatTokenKind> = { csv: "csv", vcf: "vcard", ics: "ical" };

const Slug = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 128 }) });
const FormatParam = Type.Union(
	FORMATS.map((f) => Type.Literal(f)),
	{ description: "`html`, `csv`, `vcf` or `ics`; wins over `Accept`." },
);
const Query = Type.Object({
	format: Type.Optional(FormatParam),
	dl: Type.Optional(
		Type.String({
			minLength: 1,
			maxLength: 128,
			description:
				"With `format` `csv`, `vcf` or `ics`: the one-time token the opened share page put in its \"Save a copy\" link. Serves the format once, within ten minutes of the page's read, under the page's view (no view taken, no password asked); 401 `file_download_invalid` when missing, spent, expired or for another share or format. Ignored by HEAD and for the page.",
		}),
	),
});
const Form = Type.Object(
	{
		password: Type.Optional(Type.String({ maxLength: 200 })),
		format: Type.Optional(FormatParam),
	},
	{ description: "The page's form (`application/x-www-form-urlencoded`); JSON is read too." },
);
// OpenAPI 3.1's Media Type Object has no `description`: it goes on the schema.
const text = (description: string) => ({ schema: Type.String({ description }) });
const Representations = {
	description:
		"The page, or the CSV, vCard or iCalendar form of the share; `ETag` always; one view taken (docs/api.md).",
	content: {
		"text/html": text("The share page."),
		"text/csv": text("RFC 4180 with a UTF-8 byte order mark: section, key, name, value."),
		"text/vcard": text("One vCard 4.0 (RFC 6350)."),
		"text/calendar": text("iCalendar (RFC 5545), one event per date entry."),
	},
};

/** The stylesheet, with its content hash in the address so it can be cached for good. */
export function stylesheet(): { url: string; body: Buffer } {
	let dir = import.meta.dirname;
	for (let i = 0; i < 6; i++) {
		const file = path.join(dir, "web", "share", "share.css");
		if (fs.existsSync(file)) {
			// The design tokens (web/tokens.css) first, then the page's own rules: one file.
			const body = withTokens(fs.readFileSync(file));
			const hash = crypto.createHash("sha256").update(body).digest("hex").slice(0, 12);
			return { url: `/assets/share-${hash}.css`, body };
		}
		dir = path.dirname(dir);
	}
	throw new Error("web/share/share.css not found next to the server's sources");
}

/** The password of `Authorization: Basic` (any user name), for clients that cannot post the form. */
function basicPassword(request: FastifyRequest): string | undefined {
	const header = request.headers.authorization;
	const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
	if (!match?.[1]) return undefined;
	const decoded = Buffer.from(match[1], "base64").toString("utf8");
	const colon = decoded.indexOf(":");
	return colon < 0 ? undefined : decoded.slice(colon + 1);
}

function requested(
	request: FastifyRequest,
	override?: Format,
): { format: Format; lang: Language; pages: boolean } {
	const query = request.query as { format?: unknown } | undefined;
	const asked =
		override ?? (FORMATS.includes(query?.format as Format) ? (query?.format as Format) : undefined);
	const format = negotiateFormat(asked, request.headers.accept);
	return {
		format,
		lang: negotiateLanguage(request.headers["accept-language"]),
		// Refusals as pages: the page, asked for by a browser.
		pages: format === "html" && asksForHtml(request.headers.accept),
	};
}

export const pageRoutes: FastifyPluginAsyncTypebox<{ ctx: FormatsContext }> = async (app, { ctx }) => {
	const css = stylesheet();
	const origin = publicOrigin(app.config);
	const pageContext = (lang: Language): PageContext => ({ lang, css: css.url, domain: ctx.server.domain });

	app.get(css.url, { schema: { hide: true } }, async (_request, reply) =>
		reply
			.type("text/css; charset=utf-8")
			.header("cache-control", "public, max-age=31536000, immutable")
			.send(css.body),
	);

	function sendPage(reply: FastifyReply, status: number, lang: Language, html: string) {
		return reply
			.code(status)
			.type(mediaType("html"))
			.header("content-security-policy", SHARE_PAGE_CSP)
			.header("content-language", lang)
			.header("x-robots-tag", ROBOTS)
			.header("vary", "Accept, Accept-Language")
			.header("cache-control", "no-store")
			.send(html);
	}

	// Refusals before a share is read (unknown slug, rate limit, bad query) as a page for a page.
	app.setErrorHandler((err: FastifyError, request, reply) => {
		const problem = toAppError(err) ?? new AppError("internal_error", "Internal server error");
		if (problem.status >= 500) request.log.error({ err }, "share page failed");
		const { lang, pages } = requested(request);
		if (!pages) {
			return sendProblem(reply.header("x-robots-tag", ROBOTS).header("cache-control", "no-store"), problem);
		}
		if (problem.headers) reply.headers(problem.headers);
		return sendPage(
			reply,
			problem.status,
			lang,
			refusalPage(pageContext(lang), refusalOf(problem.code, undefined, app.clock.now())),
		);
	});
	// The form's body: the password and the format, nothing else, within a small limit.
	app.addContentTypeParser(
		"application/x-www-form-urlencoded",
		{ parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
		(_request, body, done) => {
			const form = new URLSearchParams(body as string);
			const out: Record<string, string> = Object.create(null);
			for (const name of ["password", "format"]) {
				const value = form.get(name);
				if (value !== null) out[name] = value;
			}
			done(null, out);
		},
	);

	async function answer(
		request: FastifyRequest,
		reply: FastifyReply,
		ask: {
			slug: string;
			format: Format;
			lang: Language;
			pages: boolean;
			password: string | undefined;
			posted: boolean;
			/** The opened page's one-time token for this data format (`dl`). */
			token?: string | undefined;
		},
	) {
		const { format, lang, password } = ask;
		const now = app.clock.now();
		if (ask.token !== undefined && format !== "html" && request.method !== "HEAD") {
			return byToken(request, reply, { slug: ask.slug, format, lang, token: ask.token }, now);
		}
		const link = await findBySlug(ctx, ask.slug);
		let read: Awaited<ReturnType<typeof readShare>>;
		try {
			read = await readShare(
				ctx,
				link,
				{
					input: { password },
					ifNoneMatch: ask.posted ? undefined : parseIfNoneMatch(request.headers["if-none-match"]),
					head: request.method === "HEAD",
					etag: (model) => etagOf(model, format, lang),
					reader: READERS[format],
					// A browser cannot prove an identity: the page tells it to open the app instead.
					client: { browser: ask.pages, ip: request.ip },
				},
				now,
			);
		} catch (err) {
			if (!(err instanceof AppError)) throw err;
			if (ask.pages) return refusedPage(reply, link, err, { ...ask, now });
			if (err.code === "link_password_required" || err.code === "link_password_invalid") {
				// A client other than a browser may send the password as HTTP Basic.
				throw new AppError(err.code, err.message, {
					headers: { "www-authenticate": 'Basic realm="share", charset="UTF-8"' },
				});
			}
			throw err;
		}
		const { model } = read;
		// The opened page: a one-time token of its view for each data format that carries something.
		// A page read never proves an identity (READER_GATES.page refuses a browser a handshake share,
		// and the page's GET and form carry no challenge), so its tokens name no reader.
		const offered = format === "html" && read.kind === "values" ? offeredFormats(model) : [];
		const tokens = await mintFormatTokens(
			ctx,
			offered.map((f) => TOKEN_KINDS[f]),
			{ link: link.id, view: model.viewCount, line: null, reader: null, now },
		);
		reply
			.header("etag", etagOf(model, format, lang))
			.header("vary", "Accept, Accept-Language")
			.header("x-robots-tag", ROBOTS)
			.header("cache-control", cacheControl(model, format, tokens.size > 0));
		if (read.kind === "unchanged") return reply.code(304).send();
		if (format !== "html") {
			const name = `${model.label.trim() || "share"}.${EXTENSIONS[format]}`;
			reply.type(mediaType(format)).header("content-disposition", contentDisposition("inline", name));
			return reply.send(read.kind === "headers" ? "" : renderData(model, format));
		}
		reply
			.type(mediaType("html"))
			.header("content-security-policy", SHARE_PAGE_CSP)
			.header("content-language", lang);
		if (read.kind === "headers") return reply.send("");
		const base = `/s/${encodeURIComponent(link.slug)}`;
		const downloads = offered.map((f) => ({
			format: f,
			href: `${base}?format=${f}&dl=${encodeURIComponent(tokens.get(TOKEN_KINDS[f]) ?? "")}`,
		}));
		// The addressbook is offered only where it opens (an ungated share) and has a contact to carry.
		const book = isUngated(link) && offered.includes("vcf");
		return reply.send(
			sharePage(model, pageContext(lang), {
				downloads,
				addressbook: book ? `${origin}/dav/s/${encodeURIComponent(link.slug)}/` : undefined,
			}),
		);
	}

	/** A data format from the opened page, by its one-time token: no view, logged under the page's. */
	async function byToken(
		request: FastifyRequest,
		reply: FastifyReply,
		ask: { slug: string; format: DataFormat; lang: Language; token: string },
		now: number,
	) {
		let got: Awaited<ReturnType<typeof readByToken>>;
		try {
			got = await readByToken(ctx, ask.slug, TOKEN_KINDS[ask.format], ask.token, now);
		} catch (err) {
			// A browser following a spent or stale link from the page is told so in words.
			if (!(err instanceof AppError) || !asksForHtml(request.headers.accept)) throw err;
			const page = refusalPage(pageContext(ask.lang), refusalOf(err.code, undefined, now));
			return sendPage(reply, err.status, ask.lang, page);
		}
		const { model, read } = got;
		const body = renderData(model, ask.format);
		const name = `${model.label.trim() || "share"}.${EXTENSIONS[ask.format]}`;
		await logTokenRead(ctx, read, now);
		return reply
			.type(mediaType(ask.format))
			.header("content-disposition", contentDisposition("attachment", name))
			.header("x-robots-tag", ROBOTS)
			.header("cache-control", "private, no-store")
			.send(body);
	}

	function refusedPage(
		reply: FastifyReply,
		link: PublicLinkRow,
		err: AppError,
		ask: { format: Format; lang: Language; posted: boolean; now: number },
	) {
		const form = { slug: link.slug, label: link.label, format: ask.format };
		const page = pageContext(ask.lang);
		switch (err.code) {
			case "link_password_required":
				return sendPage(
					reply,
					200,
					ask.lang,
					passwordPage(page, { ...form, ...(ask.posted ? { error: "missing" } : {}) }),
				);
			case "link_password_invalid":
				return sendPage(reply, 403, ask.lang, passwordPage(page, { ...form, error: "wrong" }));
			case "challenge_required":
			case "challenge_invalid":
			case "signature_invalid":
			case "identity_revoked":
				return sendPage(reply, 403, ask.lang, appPage(page, link.label));
			default:
				if (err.headers) reply.headers(err.headers);
				return sendPage(reply, err.status, ask.lang, refusalPage(page, refusalOf(err.code, link, ask.now)));
		}
	}

	app.get(
		"/s/:slug",
		{
			config: { rateLimit: app.limits.gate, notFound: "link_not_found" },
			schema: {
				tags: ["shares"],
				summary: "The share page, or the share as CSV, vCard or iCalendar (content negotiation)",
				description:
					"`?format=` wins over `Accept`; the page's language follows `Accept-Language` (English, German). An answer carrying values is a resolve and takes one view; `If-None-Match` matching the current `ETag` answers 304 without a view; HEAD takes none. A password share: the page shows a form (POST), other formats take the password as HTTP Basic (401 `link_password_required` or `link_password_invalid` with `WWW-Authenticate`); password attempts at one share by one client, HEAD included, are counted with the resolve's and the form's: the 31st in a minute is 429 `rate_limited`. 401 `challenge_required` for a share needing a proven identity (the page says to use the app, 403). 404 `link_not_found`, `link_paused`, `link_revoked`, `link_expired` (the page: a page with status 404). See docs/api.md \"Share page and formats\".",
				params: Slug,
				querystring: Query,
				response: {
					200: Representations,
					304: { description: "Not modified: no body, no view taken." },
					...pageErrors(400, 401, 403, 404, 429),
				},
			},
		},
		async (request, reply) => {
			const { slug } = request.params;
			const password = basicPassword(request);
			return answer(request, reply, {
				slug,
				...requested(request, request.query.format),
				password,
				posted: false,
				token: request.query.dl,
			});
		},
	);

	app.post(
		"/s/:slug",
		{
			config: { rateLimit: app.limits.gate, notFound: "link_not_found" },
			preValidation: async (request) => {
				if (request.body === undefined || request.body === null) request.body = {};
			},
			schema: {
				tags: ["shares"],
				summary: "The share page's password form: the share with its password, in the format asked for",
				description:
					"Body `password` and `format` (form fields; JSON too). Takes one view when the password opens the share. A wrong password shows the form again (status 403) or, for the data formats, 401 `link_password_invalid`.",
				params: Slug,
				querystring: Query,
				body: Form,
				consumes: ["application/x-www-form-urlencoded", "application/json"],
				response: { 200: Representations, ...pageErrors(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const { slug } = request.params;
			const ask = requested(request, request.body.format ?? request.query.format);
			return answer(request, reply, { slug, ...ask, password: request.body.password, posted: true });
		},
	);
};
