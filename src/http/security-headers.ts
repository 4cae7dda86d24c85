// The usual security headers on every response. API answers get a CSP that allows nothing; pages
// set their own stricter-than-default policy (scripts only from this origin, no inline script).
//
// Caching (docs/api.md "Caching"): an answer to a request that carries a credential (any
// `Authorization`, `X-API-Key` or `X-Svc-Connection` header), and an answer of a route marked
// `config: { secret: true }` (it hands out a session token, a code, a ticket, a token or a link),
// is `Cache-Control: no-store` unless the route set its own. Public reads keep what their routes
// set (share formats, status lists, keys).
import type { FastifyInstance, FastifyRequest } from "fastify";

declare module "fastify" {
	interface FastifyContextConfig {
		/** The answer carries a secret: `Cache-Control: no-store` unless the route sets its own. */
		secret?: boolean;
	}
}

export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
export const PAGE_CSP =
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const fixed: Record<string, string> = {
	"x-content-type-options": "nosniff",
	"referrer-policy": "no-referrer",
	"x-frame-options": "DENY",
	"cross-origin-opener-policy": "same-origin",
	"cross-origin-resource-policy": "same-origin",
};

export function registerSecurityHeaders(app: FastifyInstance): void {
	const strictTransport = app.config.domain !== "localhost";
	// A callback hook, not an async one: on the cheapest routes a promise per response costs about
	// a tenth of their throughput (bench/README.md "Beside the reference servers").
	app.addHook("onSend", (request, reply, payload, done) => {
		reply.headers(fixed);
		reply.header("x-request-id", request.id);
		if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", API_CSP);
		if (strictTransport) reply.header("strict-transport-security", "max-age=31536000; includeSubDomains");
		if (!reply.hasHeader("cache-control") && (credentialed(request) || request.routeOptions.config?.secret)) {
			reply.header("cache-control", "no-store");
		}
		done(null, payload);
	});
}

/** A request that presents a credential of any kind, valid or not. */
function credentialed(request: FastifyRequest): boolean {
	const h = request.headers;
	return h.authorization !== undefined || h["x-api-key"] !== undefined || h["x-svc-connection"] !== undefined;
}
