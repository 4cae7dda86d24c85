// Shared route schemas: the problem body and helpers to declare error responses in OpenAPI.
import type { RouteOptions } from "fastify";
import { Type } from "typebox";

export const ProblemSchema = Type.Object(
	{
		type: Type.String({ description: "Always `about:blank`." }),
		title: Type.String(),
		status: Type.Integer(),
		code: Type.String({ description: "The spec's error code, e.g. `link_password_required`." }),
		detail: Type.String(),
		field: Type.Optional(Type.String({ description: "The offending field on `validation_failed`." })),
		scope: Type.Optional(Type.String({ description: "The missing scope on `api_key_scope_missing`." })),
	},
	{ $id: "Problem", additionalProperties: true, description: "RFC 9457 problem details" },
);

const problemRef = Type.Unsafe<unknown>({ $ref: "Problem#" });

/**
 * An error response as the server sends it (src/http/problem.ts): `application/problem+json`.
 * Keyed by media type, so the OpenAPI document names that type (not `application/json`), and
 * fastify serializes with the schema what is sent with that type.
 */
export const problemContent = { "application/problem+json": { schema: problemRef } };
const problemResponse = {
	description: "RFC 9457 problem details with the error's `code` (docs/api.md)",
	content: problemContent,
};

/** Response entries for error statuses, all carrying the problem body: `...errors(400, 404)`. */
export function errors(...statuses: number[]): Record<number, typeof problemResponse> {
	const out: Record<number, typeof problemResponse> = {};
	for (const s of statuses) out[s] = problemResponse;
	return out;
}

/**
 * An answer in a media type other than JSON (a page, a CSV, a signed list), declared under that
 * type in the OpenAPI document: `200: media("text/html", "the share page")`. The body is sent as
 * the handler writes it; no schema serializes it.
 */
export function media(types: string | readonly string[], description: string) {
	const content: Record<string, { schema: { type: "string" } }> = {};
	for (const t of typeof types === "string" ? [types] : types) content[t] = { schema: { type: "string" } };
	return { description, content };
}

/**
 * Error answers of a route that people open in a browser: a page explaining the refusal
 * (`text/html`) to a reader asking for one, problem+json to the others: `...pageErrors(404)`.
 */
export function pageErrors(...statuses: number[]) {
	const response = {
		description:
			"A page saying what went wrong (text/html), or RFC 9457 problem details with the error's `code`",
		content: { "text/html": { schema: { type: "string" as const } }, ...problemContent },
	};
	const out: Record<number, typeof response> = {};
	for (const s of statuses) out[s] = response;
	return out;
}

/**
 * A query-string flag, default false. Every query boolean takes `true`/`1` and `false`/`0`
 * (src/http/validation.ts); this says so in the OpenAPI document.
 */
export function QueryBoolean(description: string) {
	return Type.Boolean({
		default: false,
		description: `${description} \`true\` or \`1\`, \`false\` or \`0\`.`,
	});
}

/** Methods whose requests may carry a body (the body limit and the content-coding refusal apply). */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Declares on a route (an `onRoute` hook, before the OpenAPI document is built) the refusals every
 * route of its kind can answer, whatever its handler does, where the route has not declared them
 * itself: 400 for text no query may hold (NUL, a lone surrogate: src/http/text-guard.ts, every
 * route); 413 and 415 where a body may come (the body limit, a `Content-Encoding`); 429 on a
 * rate-limited route, and 503 there while the Redis its counters live in cannot be reached.
 */
export function declareCommonErrors(route: RouteOptions): void {
	const schema = route.schema as
		| ({ hide?: boolean; response?: Record<string, unknown> } & object)
		| undefined;
	if (!schema || schema.hide || !schema.response) return;
	const methods = [route.method].flat();
	const statuses = [400];
	if (methods.some((m) => BODY_METHODS.has(m))) statuses.push(413, 415);
	if ((route.config as { rateLimit?: unknown } | undefined)?.rateLimit) statuses.push(429, 503);
	for (const status of statuses) {
		if (!(status in schema.response) && !(`${String(status)[0]}XX` in schema.response)) {
			schema.response[status] = problemResponse;
		}
	}
}
