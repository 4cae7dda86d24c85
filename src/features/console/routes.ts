// The front page at `/` and the owner's console at `/app` (a single-page app built from
// web/console): every /app path answers the same index page, its hashed files are cached for good.
import fs from "node:fs";
import path from "node:path";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { AppError } from "../../http/errors.ts";
import { pickLanguage } from "../../http/language.ts";
import { media } from "../../http/schemas.ts";
import { PAGE_CSP } from "../../http/security-headers.ts";
import { escapeHtml } from "../../lib/html.ts";
import { webDir } from "../../lib/web-dir.ts";
import { type ConsoleBundle, consoleBundle } from "./bundle.ts";
import { renderFrontPage } from "./front-page.ts";

const ASSET_NAME = /^[A-Za-z0-9_-]{1,80}\.(js|css|svg|png|woff2)$/;

/** What the operator turned on, for the console to say up front what is off (web/console/server-info.ts). */
interface Switches {
	signups: boolean;
	attestations: boolean;
	/** ALLOW_ANSWER_SIGNUPS: a request may admit answer-only sign-ups (its requester's choice). */
	answerSignups: boolean;
	/** SMTP_URL set: the console offers "send by e-mail". */
	mail: boolean;
}

function indexHtml(bundle: ConsoleBundle, lang: string, domain: string, on: Switches): string {
	const a = (name: string) => `/app/assets/${escapeHtml(name)}`;
	const { manifest } = bundle;
	return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>svc console</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${manifest.css.map((c) => `<link rel="stylesheet" href="${a(c)}">`).join("\n")}
${manifest.preload.map((c) => `<link rel="modulepreload" href="${a(c)}">`).join("\n")}
<script type="module" src="${a(manifest.entry)}"></script>
</head>
<body data-domain="${escapeHtml(domain)}" data-signups="${String(on.signups)}" data-attestations="${String(on.attestations)}" data-answer-signups="${String(on.answerSignups)}" data-mail="${String(on.mail)}">
<div id="app"></div>
<noscript><p>${lang === "de" ? "Die Konsole braucht JavaScript." : "The console needs JavaScript."}</p></noscript>
</body>
</html>
`;
}

const LangQuery = Type.Object({
	lang: Type.Optional(
		Type.String({ maxLength: 8, description: "`en` or `de`; else Accept-Language decides" }),
	),
});

export const consoleRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const page = (reply: FastifyReply, html: string) =>
		reply
			.type("text/html; charset=utf-8")
			.header("content-security-policy", PAGE_CSP)
			.header("cache-control", "no-cache")
			.send(html);

	app.get(
		"/",
		{
			schema: {
				tags: ["console"],
				summary: "The front page: what this server is, its fingerprint, sign-in and the API documents",
				querystring: LangQuery,
				response: { 200: media("text/html", "The front page") },
			},
		},
		async (request, reply) => {
			// The page reads well without its stylesheet: a console that fails to build leaves it plain.
			const bundle = await consoleBundle().catch((err: unknown) => {
				request.log.error({ err }, "console build failed");
				return undefined;
			});
			const html = renderFrontPage({
				lang: pickLanguage(request.headers["accept-language"], request.query.lang),
				domain: app.config.domain,
				fingerprint: app.rootKey.fingerprint,
				txtHost: `_svc.${app.config.domain}`,
				allowSignups: app.config.allowSignups,
				stylesheet: bundle?.manifest.front,
			});
			return page(reply, html);
		},
	);

	const consolePage = async (request: FastifyRequest, reply: FastifyReply) => {
		const bundle = await consoleBundle();
		const lang = pickLanguage(request.headers["accept-language"]);
		const on = {
			signups: app.config.allowSignups,
			attestations: app.config.allowAttestations,
			answerSignups: app.config.allowAnswerSignups,
			mail: app.config.smtpUrl !== "",
		};
		return page(reply, indexHtml(bundle, lang, app.config.domain, on));
	};
	// The server's mark, for browsers that ask /favicon.ico on their own and for the pages' icon link.
	const favicon = fs.readFileSync(path.join(webDir(), "favicon.svg"));
	const icon = async (_request: FastifyRequest, reply: FastifyReply) =>
		reply.type("image/svg+xml").header("cache-control", "public, max-age=86400").send(favicon);
	for (const url of ["/favicon.ico", "/favicon.svg"]) {
		app.get(
			url,
			{
				schema: {
					tags: ["console"],
					summary: "The server's icon (an SVG image, under both names)",
					response: { 200: media("image/svg+xml", "The icon") },
				},
			},
			icon,
		);
	}

	app.get(
		"/app",
		{
			schema: {
				tags: ["console"],
				summary: "The owner's console (a single-page app; every /app/… path answers this page)",
				response: { 200: media("text/html", "The console's page") },
			},
		},
		consolePage,
	);
	app.get("/app/*", { schema: { hide: true } }, consolePage);

	app.get(
		"/app/assets/:file",
		{ schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 200 }) }) } },
		async (request, reply) => {
			const { file } = request.params;
			const bundle = await consoleBundle();
			const found = ASSET_NAME.test(file) ? bundle.files.get(file) : undefined;
			if (!found) throw new AppError("not_found");
			// Names carry a hash of their content: a changed file is a new name, so cache for good.
			reply
				.type(found.type)
				.header("cache-control", "public, max-age=31536000, immutable")
				.header("vary", "accept-encoding");
			const gzip = found.gzip && /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""));
			if (gzip && found.gzip) return reply.header("content-encoding", "gzip").send(found.gzip);
			return reply.send(found.body);
		},
	);
};
