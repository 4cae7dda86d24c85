// The owner's preview of a share (`GET /api/links/{id}/preview`): the share page as a reader who
// passed its gates gets it, rendered by the page's own code, for the signed-in owner, without a
// view. The shares feature decides what the owner may see (READER_GATES `ownerPreview`: the status
// as it stands, no password or identity asked, no view, no read logged); a share that is not active
// shows the page its readers meet instead. File links are left out: a download would need a token
// that only a resolve (a view) mints.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireAccount } from "../../http/auth.ts";
import { errors, media } from "../../http/schemas.ts";
import { ownerPreview } from "../shares/service.ts";
import { sharePage } from "./html.ts";
import { negotiateLanguage } from "./negotiate.ts";
import { refusalOf, refusalPage } from "./notice-pages.ts";
import { SHARE_PAGE_CSP, stylesheet } from "./page-routes.ts";
import { current, type FormatsContext } from "./read.ts";

export const previewRoutes: FastifyPluginAsyncTypebox<{ ctx: FormatsContext }> = async (app, { ctx }) => {
	const css = stylesheet().url;
	app.get(
		"/api/links/:id/preview",
		{
			onRequest: requireAccount,
			config: { rateLimit: app.limits.download, notFound: "link_not_found" },
			schema: {
				tags: ["shares"],
				summary: "The owner's preview of a share's page, as its readers see it (claims no view)",
				description:
					"The share page (`/s/{slug}`) as a reader who passed the share's password and identity gates gets it, in `lang` (else `Accept-Language`): no view is taken and no read is logged. A paused, revoked or expired share answers the page its readers meet. Files are listed without download links. Session only, with `link:read` and `record:read` (an API key: 403 `api_key_scope_missing`, a key never opens a share's values); another workspace's share: 404 `link_not_found`.",
				security: [{ Session: [] }],
				params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
				querystring: Type.Object({
					lang: Type.Optional(
						Type.Union([Type.Literal("en"), Type.Literal("de")], {
							description: "The page's language; else Accept-Language decides.",
						}),
					),
				}),
				response: {
					200: media("text/html", "The share page, or the page its readers meet"),
					...errors(401, 403, 404, 429),
				},
			},
		},
		async (request, reply) => {
			const now = app.clock.now();
			const { link, status } = await ownerPreview(ctx, request.caller, request.params.id, now);
			const lang = request.query.lang ?? negotiateLanguage(request.headers["accept-language"]);
			const page = { lang, css, domain: ctx.server.domain };
			const html =
				status === "active"
					? sharePage(await current(ctx, link, now), page, { downloads: [], addressbook: undefined })
					: refusalPage(page, refusalOf(`link_${status}`, link, now));
			return reply
				.type("text/html; charset=utf-8")
				.header("content-security-policy", SHARE_PAGE_CSP)
				.header("content-language", lang)
				.header("x-robots-tag", "noindex, nofollow")
				.header("cache-control", "private, no-store")
				.header("vary", "Accept-Language")
				.send(html);
		},
	);
};
