// `/oidc/token` and `/oidc/userinfo` (spec "OpenID Connect provider"): called by services, not by
// the page, they answer in OAuth's own form (`{error, error_description}`, `WWW-Authenticate` on
// 401), from a plugin of their own with its own error handler and form parser.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { AppError } from "../../http/errors.ts";
import { toAppError } from "../../http/problem.ts";
import type { KeyRingCache } from "../server/service.ts";
import { ACCESS_TOKEN_TTL_S, exchange, OAuthError, type TokenForm, userinfo } from "./service.ts";

const Str = (description: string) => Type.Optional(Type.String({ description }));
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

/** The service-facing endpoints, given the provider's signing keys. */
export function oauthEndpoints(keys: KeyRingCache): FastifyPluginAsyncTypebox {
	return async (app) => {
		app.addContentTypeParser(
			"application/x-www-form-urlencoded",
			{ parseAs: "string", bodyLimit: FORM_LIMIT },
			(_request, body, done) => done(null, parseForm(body as string)),
		);
		app.setErrorHandler((err: FastifyError, request, reply) => {
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

		app.post(
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
						401: OAuthProblem,
						429: OAuthProblem,
						503: OAuthProblem,
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
				description: `Access token in \`Authorization: Bearer\`, or (POST) the form field \`access_token\`. Valid ${ACCESS_TOKEN_TTL_S / 60} minutes. \`svc_links\` lists the sign-in's grant only while it stands (active or paused, with this sign-in's token): not once revoked, expired, deleted or re-tokened by a later sign-in.`,
				response: {
					200: Type.Record(Type.String(), Type.Unknown()),
					// Every refusal is an OAuth error body (RFC 6750 3.1), a malformed request's too.
					400: OAuthProblem,
					401: OAuthProblem,
					429: OAuthProblem,
					503: OAuthProblem,
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
		app.get("/oidc/userinfo", userinfoRoute, answerUserinfo);
		// A service's page may call these from the browser (a public client): the preflight answers
		// for any origin, without credentials (the bearer token is the credential).
		for (const url of ["/oidc/token", "/oidc/userinfo"]) {
			app.options(url, { schema: { hide: true } }, async (_request, reply) =>
				reply
					.code(204)
					.header("access-control-allow-origin", "*")
					.header("access-control-allow-methods", url === "/oidc/token" ? "POST" : "GET, POST")
					.header("access-control-allow-headers", "authorization, content-type")
					.header("access-control-max-age", "600")
					.send(),
			);
		}
		app.post(
			"/oidc/userinfo",
			{
				...userinfoRoute,
				schema: { ...userinfoRoute.schema, consumes: ["application/x-www-form-urlencoded"] },
			},
			answerUserinfo,
		);
	};
}

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
