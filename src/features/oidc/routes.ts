// The OpenID Connect provider's routes (spec "OpenID Connect provider"). The page and its two JSON
// calls answer in problem+json like the rest of the API; `/oidc/token` and `/oidc/userinfo` answer
// in OAuth's own form (`{error, error_description}`, `WWW-Authenticate` on 401), from a plugin of
// their own with its own error handler and form parser.
import fs from "node:fs";
import path from "node:path";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { AppError } from "../../http/errors.ts";
import { toAppError } from "../../http/problem.ts";
import { PAGE_CSP } from "../../http/security-headers.ts";
import { pickLanguage } from "../console/language.ts";
import { webDir } from "../passkeys/page.ts";
import { keyRing, OIDC_KEYS } from "../server/certified-keys.ts";
import { renderAuthorize, renderRefusal } from "./page-html.ts";
import { checkAuthorize, OPTIONAL_SCOPES, type OptionalScope, redirectWith } from "./request.ts";
import {
	ACCESS_TOKEN_TTL_S,
	consent,
	exchange,
	issuerFor,
	OAuthError,
	openRequest,
	signIn,
	type TokenForm,
	userinfo,
} from "./service.ts";

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

const OAuthProblem = Type.Object({ error: Type.String(), error_description: Type.String() });

/** Every parameter of a form body; one given twice is kept as an array (and refused). */
function parseForm(body: string): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = Object.create(null);
	for (const [name, value] of new URLSearchParams(body)) {
		const had = out[name];
		out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
	}
	return out;
}

const FORM_LIMIT = 16 * 1024;

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
					200: Type.String({ description: "text/html" }),
					302: Type.Unknown({
						description: "Refusal sent back: `error`, `error_description`, `state`, `iss`",
					}),
					400: Type.Unknown({ description: "text/html: client_id or redirect_uri did not check out" }),
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

	await app.register(async (oauth) => {
		oauth.addContentTypeParser(
			"application/x-www-form-urlencoded",
			{ parseAs: "string", bodyLimit: FORM_LIMIT },
			(_request, body, done) => done(null, parseForm(body as string)),
		);
		oauth.setErrorHandler((err: FastifyError, request, reply) => {
			const problem = err instanceof OAuthError ? undefined : toAppError(err);
			const oauthError = err instanceof OAuthError ? err : fromProblem(problem, request);
			if (problem?.headers) reply.headers(problem.headers);
			if (oauthError.status >= 500) request.log.error({ err }, "oidc endpoint failed");
			if (oauthError.status === 401) {
				reply.header(
					"www-authenticate",
					`Bearer error="${oauthError.error}", error_description="${oauthError.description.replaceAll('"', "'")}"`,
				);
			}
			return reply
				.code(oauthError.status)
				.header("cache-control", "no-store")
				.header("access-control-allow-origin", "*")
				.type("application/json; charset=utf-8")
				.send({ error: oauthError.error, error_description: oauthError.description });
		});

		oauth.post(
			"/oidc/token",
			{
				schema: {
					tags: ["oidc"],
					summary: "Exchanges a code (with its PKCE verifier) for an ID token and an access token",
					consumes: ["application/x-www-form-urlencoded"],
					body: Type.Object({
						grant_type: Str("`authorization_code`"),
						code: Str("The one-time code (spent on presentation)"),
						client_id: Str("The authorization request's client_id"),
						redirect_uri: Str("The authorization request's redirect_uri"),
						code_verifier: Str("The PKCE verifier"),
					}),
					response: {
						200: Type.Object({
							access_token: Type.String(),
							token_type: Type.Literal("Bearer"),
							expires_in: Type.Integer(),
							id_token: Type.String(),
							scope: Type.String(),
						}),
						400: OAuthProblem,
						429: OAuthProblem,
					},
				},
				attachValidation: true,
				config: { rateLimit: app.limits.oidcService },
			},
			async (request, reply) => {
				if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers["content-type"] ?? "")) {
					throw new OAuthError("invalid_request", "send the parameters as application/x-www-form-urlencoded");
				}
				const form = formOf(request);
				reply.header("cache-control", "no-store").header("pragma", "no-cache");
				reply.header("access-control-allow-origin", "*");
				return exchange(
					{ db: app.store.db, now: app.clock.now(), rootKey: app.rootKey, keys },
					form as TokenForm,
				);
			},
		);

		const userinfoRoute = {
			schema: {
				tags: ["oidc"],
				summary: "Claims of the granted scopes, and `svc_links` when the sign-in shared entries",
				description: `Access token in \`Authorization: Bearer\`, or (POST) the form field \`access_token\`. Valid ${ACCESS_TOKEN_TTL_S / 60} minutes.`,
				response: {
					200: Type.Record(Type.String(), Type.Unknown()),
					401: OAuthProblem,
					429: OAuthProblem,
				},
			},
			attachValidation: true,
			config: { rateLimit: app.limits.oidcService },
		};
		const answerUserinfo = async (request: FastifyRequest, reply: FastifyReply) => {
			reply.header("cache-control", "no-store").header("access-control-allow-origin", "*");
			return userinfo(
				{ db: app.store.db, now: app.clock.now(), rootKey: app.rootKey },
				accessTokenOf(request),
			);
		};
		oauth.get("/oidc/userinfo", userinfoRoute, answerUserinfo);
		// A service's page may call these from the browser (a public client): the preflight answers
		// for any origin, without credentials (the bearer token is the credential).
		for (const url of ["/oidc/token", "/oidc/userinfo"]) {
			oauth.options(url, { schema: { hide: true } }, async (_request, reply) =>
				reply
					.code(204)
					.header("access-control-allow-origin", "*")
					.header("access-control-allow-methods", url === "/oidc/token" ? "POST" : "GET, POST")
					.header("access-control-allow-headers", "authorization, content-type")
					.header("access-control-max-age", "600")
					.send(),
			);
		}
		oauth.post(
			"/oidc/userinfo",
			{
				...userinfoRoute,
				schema: { ...userinfoRoute.schema, consumes: ["application/x-www-form-urlencoded"] },
			},
			answerUserinfo,
		);
	});
};

/** The form's single values; a repeated or non-text parameter is `invalid_request` (RFC 6749 3.2). */
function formOf(request: FastifyRequest): Record<string, string | undefined> {
	const body = request.body;
	if (!body || typeof body !== "object")
		throw new OAuthError("invalid_request", "send the parameters as a form");
	const out: Record<string, string | undefined> = {};
	for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
		if (typeof value !== "string") throw new OAuthError("invalid_request", `${name} is given more than once`);
		out[name] = value;
	}
	return out;
}

/** The bearer token: the Authorization header, or the form field on POST, never both (RFC 6750 2). */
function accessTokenOf(request: FastifyRequest): string | undefined {
	const header = request.headers.authorization;
	let fromHeader: string | undefined;
	if (header !== undefined) {
		const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
		if (!m) throw new OAuthError("invalid_token", "the Authorization header is not a bearer token", 401);
		fromHeader = m[1];
	}
	const body = request.method === "POST" && request.body ? formOf(request) : {};
	const fromForm = body.access_token;
	if (fromHeader && fromForm) {
		throw new OAuthError("invalid_request", "send the access token once: header or form, not both");
	}
	return fromHeader ?? fromForm;
}

/** Our own refusals (rate limit, body size, type) in OAuth's form. */
function fromProblem(problem: AppError | undefined, request: FastifyRequest): OAuthError {
	if (!problem) return new OAuthError("server_error", "internal server error", 500);
	if (problem.code === "rate_limited") return new OAuthError("rate_limited", problem.message, 429);
	if (problem.status >= 500) return new OAuthError("server_error", problem.message, problem.status);
	const unauthorized = request.url.startsWith("/oidc/userinfo") && problem.status === 401;
	return new OAuthError(
		unauthorized ? "invalid_token" : "invalid_request",
		problem.message,
		unauthorized ? 401 : 400,
	);
}
