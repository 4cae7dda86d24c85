// The OpenID Connect provider's routes (spec "OpenID Connect provider"): discovery, the keys, and
// the sign-in and consent page with its two JSON calls, which answer in problem+json like the rest
// of the API. `/oidc/token` and `/oidc/userinfo` answer in OAuth's own form (oauth-routes.ts).
import fs from "node:fs";
import path from "node:path";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { AppError } from "../../http/errors.ts";
import { pickLanguage } from "../../http/language.ts";
import { media, problemContent } from "../../http/schemas.ts";
import { PAGE_CSP } from "../../http/security-headers.ts";
import { webDir } from "../../lib/web-dir.ts";
import { keyRing, OIDC_KEYS } from "../server/service.ts";
import { checkAuthorize, OPTIONAL_SCOPES, type OptionalScope, redirectWith } from "./authorize-checks.ts";
import { oauthEndpoints } from "./oauth-routes.ts";
import { renderAuthorize, renderRefusal } from "./page-html.ts";
import { consent, issuerFor, openRequest, signIn } from "./service.ts";

const Str = (description: string) => Type.Optional(Type.String({ description }));

const AuthorizeQuery = Type.Object({
	client_id: Str("The service's origin (`https://host[:port]`). Required."),
	redirect_uri: Str("An absolute address on client_id's origin. Required."),
	response_type: Str("`code`. Required."),
	scope: Str("`openid` plus any of `profile`, `email`, `svc_identity`. Required."),
	code_challenge: Str("PKCE S256 challenge (43 base64url). Required."),
	code_challenge_method: Str("`S256`. Required."),
	state: Str("Echoed on the redirect (at most 500 characters)."),
	nonce: Str("Echoed in the ID token (1 to 500 characters)."),
	prompt: Str("`none` always answers `login_required`; other values are accepted and change nothing."),
	claims: Str('JSON: `{"userinfo":{"svc_links":{"values":[keys]}}}`, at most 20 vault keys.'),
	ui_locales: Str("`de` or `en` first picks the page's language; else Accept-Language."),
});

const SessionBody = Type.Object(
	{
		request: Type.String({ minLength: 1, maxLength: 200, description: "The page's request handle" }),
		code: Type.String({ minLength: 1, maxLength: 200, description: "One-time passkey login code" }),
		verifier: Type.String({ minLength: 1, maxLength: 200, description: "The PKCE verifier of the code" }),
	},
	{ additionalProperties: false },
);

const ConsentBody = Type.Object(
	{
		ticket: Type.String({ minLength: 1, maxLength: 200 }),
		approve: Type.Boolean(),
		scopes: Type.Array(Type.String({ maxLength: 32 }), {
			maxItems: 3,
			description: "The optional scopes kept, each one that was asked for",
		}),
		links: Type.Record(Type.String({ maxLength: 64 }), Type.String({ minLength: 1, maxLength: 64 }), {
			maxProperties: 20,
			description: "Requested key -> id of the person's entry that answers it; keys left out are not shared",
		}),
	},
	{ additionalProperties: false },
);

const ConsentAnswer = Type.Object({
	ticket: Type.String(),
	expiresAt: Type.String({ format: "date-time" }),
	client: Type.String(),
	account: Type.Object({ name: Type.String(), email: Type.String() }),
	scopes: Type.Array(
		Type.Object({
			scope: Type.String(),
			reveals: Type.Record(Type.String(), Type.Union([Type.String(), Type.Boolean()])),
		}),
	),
	keys: Type.Array(
		Type.Object({
			key: Type.String(),
			entries: Type.Array(
				Type.Object({ id: Type.String(), name: Type.String(), type: Type.String(), hidden: Type.Boolean() }),
			),
		}),
	),
});

export const oidcRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { config } = app;
	const keys = keyRing(app.store.db, OIDC_KEYS, app.rootKey, config.domain, () => app.clock.now());
	const allowLoopback = config.domain === "localhost";
	const web = webDir();
	const assets: Record<string, { type: string; body: Buffer }> = {
		"/assets/oidc.js": {
			type: "text/javascript; charset=utf-8",
			body: fs.readFileSync(path.join(web, "oidc.js")),
		},
		"/assets/oidc.css": {
			type: "text/css; charset=utf-8",
			body: fs.readFileSync(path.join(web, "oidc.css")),
		},
	};
	for (const [url, asset] of Object.entries(assets)) {
		app.get(url, { schema: { hide: true } }, async (_request, reply) =>
			reply.type(asset.type).header("cache-control", "public, max-age=300").send(asset.body),
		);
	}

	app.get(
		"/.well-known/openid-configuration",
		{
			schema: {
				tags: ["oidc"],
				summary:
					"Provider metadata (issuer from the Host: `localhost` as http://localhost:<port>, else DOMAIN)",
				response: { 200: Type.Record(Type.String(), Type.Unknown()) },
			},
			config: { rateLimit: app.limits.discovery },
		},
		async (request, reply) => {
			const issuer = issuerFor(config, request.headers.host);
			reply.header("cache-control", "public, max-age=300").header("access-control-allow-origin", "*");
			return {
				issuer,
				authorization_endpoint: `${issuer}/oidc/authorize`,
				token_endpoint: `${issuer}/oidc/token`,
				userinfo_endpoint: `${issuer}/oidc/userinfo`,
				jwks_uri: `${issuer}/oidc/jwks`,
				response_types_supported: ["code"],
				response_modes_supported: ["query"],
				grant_types_supported: ["authorization_code"],
				subject_types_supported: ["pairwise"],
				id_token_signing_alg_values_supported: ["RS256"],
				token_endpoint_auth_methods_supported: ["none"],
				code_challenge_methods_supported: ["S256"],
				scopes_supported: ["openid", ...OPTIONAL_SCOPES],
				claims_supported: [
					"sub",
					"iss",
					"aud",
					"iat",
					"exp",
					"auth_time",
					"nonce",
					"name",
					"email",
					"email_verified",
					"svc_identity",
					"svc_links",
				],
				claims_parameter_supported: true,
				request_parameter_supported: false,
				request_uri_parameter_supported: false,
				authorization_response_iss_parameter_supported: true,
				prompt_values_supported: ["none", "login", "consent"],
				ui_locales_supported: ["en", "de"],
			};
		},
	);

	app.get(
		"/oidc/jwks",
		{
			schema: {
				tags: ["oidc"],
				summary: "ID-token signing keys (RS256), each certified by the root key in `svc_certification`",
				response: { 200: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }) },
			},
			config: { rateLimit: app.limits.discovery },
		},
		async (_request, reply) => {
			const ring = await keys.get();
			reply.header("cache-control", "public, max-age=300").header("access-control-allow-origin", "*");
			return { keys: ring.all.map((k) => k.jwk) };
		},
	);

	app.get(
		"/oidc/authorize",
		{
			schema: {
				tags: ["oidc"],
				summary: "The sign-in and consent page; refusals tied to a checked redirect address go back there",
				querystring: AuthorizeQuery,
				response: {
					200: media("text/html", "The sign-in and consent page"),
					302: Type.Unknown({
						description: "Refusal sent back: `error`, `error_description`, `state`, `iss`",
					}),
					400: {
						description:
							"A page: client_id or redirect_uri did not check out (problem+json only for text no query may hold)",
						content: { "text/html": { schema: Type.String() }, ...problemContent },
					},
				},
			},
			// Malformed parameters get the page's own answer, not a bare validation error.
			attachValidation: true,
			config: { rateLimit: app.limits.probe },
		},
		async (request, reply) => {
			const query = request.query as Record<string, unknown>;
			const locales = typeof query.ui_locales === "string" ? query.ui_locales.split(" ")[0] : undefined;
			const lang = pickLanguage(request.headers["accept-language"], locales?.slice(0, 2));
			const issuer = issuerFor(config, request.headers.host);
			const checked = checkAuthorize(query, { allowLoopback });
			const page = (status: 200 | 400, html: string) =>
				reply
					.code(status)
					.type("text/html; charset=utf-8")
					.header("content-security-policy", PAGE_CSP)
					.header("content-language", lang)
					.header("x-robots-tag", "noindex")
					.header("cache-control", "no-store")
					.send(html);
			if (checked.kind === "shown") return page(400, renderRefusal(lang, checked.detail));
			if (checked.kind === "redirect") {
				return reply
					.code(302)
					.header("cache-control", "no-store")
					.redirect(
						redirectWith(checked.redirectUri, {
							error: checked.error,
							error_description: checked.detail,
							state: checked.state,
							iss: issuer,
						}),
					);
			}
			const handle = await openRequest(
				{ db: app.store.db, now: app.clock.now() },
				checked.request,
				issuer,
				lang,
			);
			return page(
				200,
				renderAuthorize(lang, {
					handle,
					client: checked.request.clientId,
					domain: config.domain,
					scopes: checked.request.scopes,
					keys: checked.request.keys,
				}),
			);
		},
	);

	app.post(
		"/oidc/authorize/session",
		{
			schema: {
				tags: ["oidc"],
				summary:
					"Signs the person in for one request with a passkey code; answers the consent data and a ticket",
				body: SessionBody,
				response: { 200: ConsentAnswer },
			},
			config: { rateLimit: app.limits.redeem },
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return signIn({ db: app.store.db, now: app.clock.now() }, request.body);
		},
	);

	app.post(
		"/oidc/authorize/consent",
		{
			schema: {
				tags: ["oidc"],
				summary: "The person's answer: a redirect address with a code, or with error=access_denied",
				body: ConsentBody,
				response: { 200: Type.Object({ redirect: Type.String() }) },
			},
			config: { rateLimit: app.limits.redeem },
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			const known = request.body.scopes.filter((s) => (OPTIONAL_SCOPES as readonly string[]).includes(s));
			if (known.length !== request.body.scopes.length) {
				throw new AppError("oidc_request_invalid", `scopes may hold ${OPTIONAL_SCOPES.join(", ")} only`);
			}
			return consent(
				{ db: app.store.db, now: app.clock.now() },
				{
					...request.body,
					scopes: known as OptionalScope[],
				},
			);
		},
	);

	await app.register(oauthEndpoints(keys));
};
