// HTTP for connected tools: the owner's authorization and permissions (Session), the token endpoint
// a tool's page calls from its own origin (the only route with CORS), and the tool's own routes
// (`X-Svc-Connection`).
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { publicOrigin } from "../../config.ts";
import { requireScope, requireSession } from "../../http/auth.ts";
import { errors } from "../../http/schemas.ts";
import { AppLinkError, parseToolOrigin } from "../../lib/app-links.ts";
import {
	AuthorizeBody,
	AuthorizeResponse,
	LinkParams,
	Pending,
	PermissionsBody,
	PermissionsResponse,
	TokenBody,
	TokenResponse,
	ToolConnection,
	ToolLink,
} from "./schemas.ts";
import {
	authorize,
	type ConnectionPolicy,
	connectionFor,
	describe,
	disconnect,
	redeem,
	revokeLink,
	setPermissions,
} from "./service.ts";

const tags = ["connections"];
const TOKEN_URL = "/api/connect/token";
const CONNECTION_HEADER = "x-svc-connection";

export const connectionRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const db = app.store.db;
	const policy: ConnectionPolicy = {
		allowLoopback: app.config.domain === "localhost",
		origin: publicOrigin(app.config),
	};

	/**
	 * CORS for the token endpoint only: a request whose Origin is a tool origin (as `clientId`
	 * takes it) is answered with that Origin, never `*` and never with credentials; any other
	 * Origin gets no CORS header at all. Set on every answer of the route, errors and 429 included.
	 */
	const toolOrigin = (request: FastifyRequest): string | undefined => {
		const origin = request.headers.origin;
		if (typeof origin !== "string") return undefined;
		try {
			return parseToolOrigin(origin, { allowLoopback: policy.allowLoopback });
		} catch (err) {
			if (err instanceof AppLinkError) return undefined;
			throw err;
		}
	};
	const cors = async (request: FastifyRequest, reply: FastifyReply) => {
		reply.header("vary", "Origin");
		const origin = toolOrigin(request);
		if (origin !== undefined) reply.header("access-control-allow-origin", origin);
	};

	app.options(
		TOKEN_URL,
		{
			schema: {
				tags,
				summary: "CORS preflight of the token endpoint",
				description:
					"Answers 204. When `Origin` is a tool origin (`https://host[:port]`; with DOMAIN=localhost also `http://localhost[:port]`, `http://127.0.0.1[:port]`), with `Access-Control-Allow-Origin` set to it, `Access-Control-Allow-Methods: POST`, `Access-Control-Allow-Headers: content-type` and `Access-Control-Max-Age: 600`; any other Origin gets no CORS header. No other route of the API answers CORS.",
				response: { 204: { type: "null", description: "No body." } },
			},
			onSend: cors,
		},
		async (request, reply) => {
			if (toolOrigin(request) !== undefined) {
				reply.header("access-control-allow-methods", "POST");
				reply.header("access-control-allow-headers", "content-type");
				reply.header("access-control-max-age", "600");
			}
			return reply.code(204).send(null);
		},
	);

	app.post(
		TOKEN_URL,
		{
			schema: {
				tags,
				summary: "Redeem a connection answer for a token (by code, or by polling with the verifier)",
				description:
					"With `code`: the code is spent on first presentation, right or wrong; it must be under five minutes old, its challenge must be the verifier's S256, `redirectUri` the authorized address, and a browser's `Origin` the tool's own. Without `code` (polling, `{verifier}` alone; a `redirectUri` given must match): the answer the owner left with `poll` is found by the verifier's challenge and handed out once, only to a request whose `Origin` is the tool's; 202 `{pending: true}` until then (ask again every few seconds). An answer issued as a code only is never found by polling. Limited to `RATELIMIT_CONNECT_REQUESTS` per minute per IP. The only route with CORS: see the preflight.",
				body: TokenBody,
				response: { 200: TokenResponse, 202: Pending, ...errors(400, 429) },
			},
			config: { rateLimit: app.limits.connectToken },
			onSend: cors,
		},
		async (request, reply) => {
			const origin = typeof request.headers.origin === "string" ? request.headers.origin : undefined;
			const answer = await redeem(db, request.body, origin, app.clock.now());
			reply.header("cache-control", "no-store");
			if (answer === "pending") return reply.code(202).send({ pending: true as const });
			return answer;
		},
	);

	app.post(
		"/api/connections/authorize",
		{
			schema: {
				tags,
				summary: "Connect a tool to the active workspace (the owner's consent), or reuse its connection",
				description:
					'Finds or creates the connection for `clientId` in the active workspace and renews it for 90 days (a lapsed one comes back without its old tokens). Needs `link:write`. Sessions only. The owner\'s app calls it on consent to an `svc://connect` or `svc://p` app link; the links\' grammar (parameters, percent-encoding, lengths, tool origins, the `XXX-XXX` check code) is in docs/api.md, "Connected tools" → "App links", and `src/lib/app-links.ts` parses them.',
				body: AuthorizeBody,
				response: { 200: AuthorizeResponse, ...errors(400, 401, 403, 409) },
				security: [{ Session: [] }],
			},
			preHandler: requireSession,
		},
		async (request, reply) => {
			// Connecting a tool lets it propose shares: creating them (`link:*` covers it).
			requireScope(request.caller, "link:create");
			reply.header("cache-control", "no-store");
			return authorize(db, request.caller, request.body, policy, app.clock.now());
		},
	);

	app.post(
		"/api/connections/:id/permissions",
		{
			schema: {
				tags,
				summary: "Change what a connected tool may do",
				description: "A field left out stays. Needs `link:write`; sessions only.",
				params: LinkParams,
				body: PermissionsBody,
				response: { 200: PermissionsResponse, ...errors(400, 401, 403, 404) },
				security: [{ Session: [] }],
			},
			preHandler: requireSession,
		},
		async (request) => {
			requireScope(request.caller, "link:write");
			return setPermissions(db, request.caller, request.params.id, request.body, app.clock.now());
		},
	);

	const connection = (request: FastifyRequest) =>
		connectionFor(db, request.headers[CONNECTION_HEADER], app.clock.now());

	app.get(
		"/api/connection",
		{
			schema: {
				tags,
				summary: "The tool's connection and the status of the shares its proposals became",
				response: { 200: ToolConnection, ...errors(401) },
				security: [{ Connection: [] }],
			},
		},
		async (request, reply) => {
			const found = await connection(request);
			reply.header("cache-control", "no-store");
			return describe(db, found, policy, app.clock.now());
		},
	);

	app.delete(
		"/api/connection",
		{
			schema: {
				tags,
				summary: "Disconnect: the tool's connection and its tokens are deleted",
				description: "The owner's shares stay and no longer name the tool.",
				response: { 204: { type: "null", description: "Deleted." }, ...errors(401) },
				security: [{ Connection: [] }],
			},
		},
		async (request, reply) => {
			const found = await connection(request);
			await disconnect(db, found.id);
			return reply.code(204).send(null);
		},
	);

	app.post(
		"/api/connection/links/:id/revoke",
		{
			schema: {
				tags,
				summary: "Revoke a share the tool's proposal became (needs `allowRevoke`)",
				description:
					"Revoking again succeeds. The owner is notified in-app (kind `link_revoked`, `by: tool`, with the tool's origin and name).",
				params: LinkParams,
				response: { 200: ToolLink, ...errors(401, 403, 404, 409) },
				security: [{ Connection: [] }],
			},
			config: { notFound: "link_not_found" },
		},
		async (request) => {
			const found = await connection(request);
			return revokeLink(db, found, request.params.id, app.grantHooks, policy, app.clock.now());
		},
	);
};
