// Who is calling: resolved once per request from the headers, exactly as the spec's rules say.
//  - `X-API-Key: <key>` is the only header for API keys; an empty value or an unexpanded variable
//    such as `$API_KEY` is `not_authenticated`; a key that matches nothing is `invalid_api_key`.
//  - `Authorization: Bearer <session token>`; anything sent as Bearer that is not a live session
//    (an API key, say) is a guest, refused later by the collection rules.
//  - Any other Authorization scheme is `not_authenticated`.
// Connection tokens (`X-Svc-Connection`) are read only by the /api/connection routes.
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { sha256Hex } from "../lib/crypto.ts";
import { hasScope } from "../lib/scopes.ts";
import { AppError } from "./errors.ts";

export interface GuestCaller {
	kind: "guest";
}

export interface AccountCaller {
	kind: "session" | "apiKey";
	accountId: string;
	/** The active workspace: `X-Workspace` for a session (else the account's first); the bound one for a key. */
	workspaceId: string;
	/** Scopes held in that workspace: the role's for a session, the key's fixed scopes for a key. */
	scopes: readonly string[];
	/** Session id or API key id. */
	credentialId: string;
	/** A session of an answer-only account (docs/api.md "Answer-only sign-ups"). */
	answerOnly?: boolean;
}

export type Caller = GuestCaller | AccountCaller;

export const GUEST: GuestCaller = { kind: "guest" };

/** Resolves a session token hash into a caller, or undefined when no live session matches. */
export type SessionResolver = (
	tokenHash: string,
	workspaceHint: string | undefined,
	now: number,
) => Promise<AccountCaller | undefined>;

/** Resolves an API key hash into a caller, or undefined when no live key matches. */
export type ApiKeyResolver = (keyHash: string, now: number) => Promise<AccountCaller | undefined>;

export interface AuthResolvers {
	session?: SessionResolver;
	apiKey?: ApiKeyResolver;
}

declare module "fastify" {
	interface FastifyRequest {
		caller: Caller;
	}
	interface FastifyInstance {
		authResolvers: AuthResolvers;
	}
}

const UNEXPANDED = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;

export async function resolveCaller(app: FastifyInstance, request: FastifyRequest): Promise<Caller> {
	const { authResolvers: resolvers, clock } = app;
	const keyHeader = request.headers["x-api-key"];
	const authorization = request.headers.authorization;

	if (keyHeader !== undefined) {
		const key = (Array.isArray(keyHeader) ? keyHeader.join(",") : keyHeader).trim();
		if (key === "" || UNEXPANDED.test(key) || /[\s,]/.test(key)) {
			throw new AppError(
				"not_authenticated",
				"The X-API-Key header is empty or holds an unexpanded variable",
			);
		}
		const caller = await resolvers.apiKey?.(sha256Hex(key), clock.now());
		if (!caller) throw new AppError("invalid_api_key", "No API key matches (mistyped, revoked or expired)");
		// A key is bound to the workspace it was created in (design: active workspace).
		const hint = request.headers["x-workspace"];
		if (typeof hint === "string" && hint !== "" && hint !== caller.workspaceId) {
			throw new AppError(
				"api_key_workspace_mismatch",
				"The API key is bound to another workspace than X-Workspace",
			);
		}
		return caller;
	}

	if (authorization !== undefined) {
		const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
		if (!match?.[1] || UNEXPANDED.test(match[1])) {
			throw new AppError(
				"not_authenticated",
				"Use Authorization: Bearer <session token> or X-API-Key: <key>",
			);
		}
		const hint = request.headers["x-workspace"];
		const caller = await resolvers.session?.(
			sha256Hex(match[1]),
			typeof hint === "string" && hint !== "" ? hint : undefined,
			clock.now(),
		);
		// An API key (or a stale token) sent as Bearer authenticates as nobody (spec rule 1).
		return caller ?? GUEST;
	}

	return GUEST;
}

/** Decorates every request with `caller`, resolved lazily only by routes that ask for it. */
export const authPlugin = fp(async (app: FastifyInstance) => {
	app.decorate("authResolvers", {} as AuthResolvers);
	// null, not an object: Fastify forbids a reference value shared by every request.
	app.decorateRequest("caller", null as never);
});

/** preHandler for routes that take an account (session or API key). Guests get `not_authenticated`. */
export async function requireAccount(this: FastifyInstance, request: FastifyRequest): Promise<void> {
	const caller = await resolveCaller(this, request);
	if (caller.kind === "guest") throw new AppError("not_authenticated");
	request.caller = caller;
}

/** preHandler for routes that take a session only (tickets, passkey removal): never an API key. */
export async function requireSession(this: FastifyInstance, request: FastifyRequest): Promise<void> {
	const caller = await resolveCaller(this, request);
	if (caller.kind !== "session")
		throw new AppError("not_authenticated", "This needs a session token, not an API key");
	request.caller = caller;
}

/** preHandler for routes open to guests that behave differently for an account. */
export async function optionalCaller(this: FastifyInstance, request: FastifyRequest): Promise<void> {
	request.caller = await resolveCaller(this, request);
}

/**
 * Refuses a caller that lacks `scope` with the named error: `api_key_scope_missing` for a key
 * (design: named scope error), `forbidden` for a session; both carry `scope`.
 */
export function requireScope(caller: Caller, scope: string): asserts caller is AccountCaller {
	if (caller.kind === "guest") throw new AppError("not_authenticated");
	if (hasScope(caller.scopes, scope)) return;
	if (caller.kind === "apiKey") {
		throw new AppError("api_key_scope_missing", `The API key lacks the scope ${scope}`, { extra: { scope } });
	}
	throw new AppError("forbidden", `Your role lacks the scope ${scope} in this workspace`, {
		extra: { scope },
	});
}
