// Passkey sign-in over HTTP: the ceremonies, code redemption, tickets and passkey removal.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyRequest } from "fastify";
import { requireSession } from "../../http/auth.ts";
import { AppError, type ErrorCode } from "../../http/errors.ts";
import { sendProblem, toAppError } from "../../http/problem.ts";
import { errors } from "../../http/schemas.ts";
import { checkOrigin } from "./checks.ts";
import { beginLogin, finishLogin } from "./login.ts";
import { beginRegistration, finishRegistration } from "./registration.ts";
import {
	BeginResponse,
	CodeResponse,
	LoginBeginBody,
	LoginFinishBody,
	PasskeyParams,
	RegisterBeginBody,
	RegisterFinishBody,
	RegisterFinishResponse,
	TicketResponse,
	TokenBody,
	TokenResponse,
} from "./schemas.ts";
import {
	issueTicket,
	type PasskeyContext,
	redeemCode,
	relyingParty,
	removePasskey,
	ticketUrl,
} from "./service.ts";

const tags = ["passkeys"];

export const passkeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const rp = relyingParty(app.config);
	const ctx = (): PasskeyContext => ({
		db: app.store.db,
		rp,
		allowSignups: app.config.allowSignups,
		allowAnswerSignups: app.config.allowAnswerSignups,
		mail: app.mail,
		now: app.clock.now(),
	});
	// Answer-only sign-ups begun per IP and hour, on every node together (docs/operations.md).
	const answerSignupLimit = app.keyedLimit("answerSignup", {
		max: app.config.ratelimitAnswerSignups,
		timeWindow: 3_600_000,
	});
	// Ceremonies run at the server's own address only; checked before anything else is read.
	const originGate = async (request: FastifyRequest) => checkOrigin(rp, request.host, request.headers.origin);

	// A malformed body at a ceremony is the spec's `passkey_request_invalid`; at the token endpoint
	// `passkey_grant_invalid`. Other errors go on to the app's handler.
	const malformed: Record<string, ErrorCode> = {
		"/api/passkeys/login/begin": "passkey_request_invalid",
		"/api/passkeys/login/finish": "passkey_request_invalid",
		"/api/passkeys/register/begin": "passkey_request_invalid",
		"/api/passkeys/register/finish": "passkey_request_invalid",
		"/api/passkeys/token": "passkey_grant_invalid",
	};
	app.setErrorHandler((err: FastifyError, request, reply) => {
		const mapped = toAppError(err);
		const code = malformed[request.routeOptions.url ?? ""];
		if (mapped && code && (mapped.code === "validation_failed" || mapped.code === "invalid_json")) {
			return sendProblem(reply, new AppError(code, mapped.message, { extra: mapped.extra }));
		}
		throw err;
	});

	app.post(
		"/api/passkeys/login/begin",
		{
			schema: {
				tags,
				summary: "Begin a passkey login (discoverable credential, good five minutes)",
				body: LoginBeginBody,
				response: {
					200: BeginResponse("WebAuthn request options (PublicKeyCredentialRequestOptionsJSON)"),
					...errors(400, 429),
				},
			},
			onRequest: originGate,
			config: { rateLimit: app.limits.passkey, secret: true },
		},
		async (request) => beginLogin(ctx(), request.body),
	);

	app.post(
		"/api/passkeys/login/finish",
		{
			schema: {
				tags,
				summary: "Finish a passkey login; returns a one-time code bound to the PKCE challenge",
				body: LoginFinishBody,
				response: { 200: CodeResponse, ...errors(400, 401, 429) },
			},
			onRequest: originGate,
			config: { rateLimit: app.limits.passkey, secret: true },
		},
		// The schema checked the shape (and defaulted clientExtensionResults); the library's type is stricter.
		async (request) => finishLogin(ctx(), request.body as Parameters<typeof finishLogin>[1]),
	);

	app.post(
		"/api/passkeys/register/begin",
		{
			schema: {
				tags,
				summary: "Begin registering a passkey: a signup by email, or with a ticket",
				description:
					"With `request` (a request's slug) and an email: an answer-only sign-up, admitted when the request allows it (`allowAnswerSignup`) and the operator has not forbidden them (`ALLOW_ANSWER_SIGNUPS`), even with sign-ups off; 403 `answer_signup_not_allowed` or `signups_disabled` otherwise, 404 for an unknown slug, and at most `RATELIMIT_ANSWER_SIGNUPS` begun per hour per IP (429 `rate_limited`).",
				body: RegisterBeginBody,
				response: {
					200: BeginResponse("WebAuthn creation options (PublicKeyCredentialCreationOptionsJSON)"),
					...errors(400, 403, 404, 409, 410, 429),
				},
			},
			onRequest: originGate,
			config: { rateLimit: app.limits.passkey, secret: true },
		},
		async (request) => {
			if (request.body.request !== undefined) await answerSignupLimit("begin", request.ip);
			return beginRegistration(ctx(), request.body);
		},
	);

	app.post(
		"/api/passkeys/register/finish",
		{
			schema: {
				tags,
				summary: "Finish registration: writes the passkey (and for a signup the account)",
				body: RegisterFinishBody,
				response: { 200: RegisterFinishResponse, ...errors(400, 403, 404, 409, 410, 429) },
			},
			onRequest: originGate,
			config: { rateLimit: app.limits.passkey, secret: true },
		},
		// As at login/finish: the schema checked the shape the library's type names.
		async (request) => finishRegistration(ctx(), request.body as Parameters<typeof finishRegistration>[1]),
	);

	app.post(
		"/api/passkeys/token",
		{
			schema: {
				tags,
				summary: "Redeem a one-time code with its PKCE verifier for a session token",
				body: TokenBody,
				response: { 200: TokenResponse, ...errors(400, 429) },
			},
			config: { rateLimit: app.limits.redeem, secret: true },
		},
		async (request) => redeemCode(app.store.db, request.body, app.clock.now()),
	);

	app.post(
		"/api/passkeys/tickets",
		{
			schema: {
				tags,
				summary: "Issue a one-time ticket (fifteen minutes) that adds a passkey to your account",
				description: "Session only: an API key cannot issue tickets.",
				security: [{ Session: [] }],
				response: { 200: TicketResponse, ...errors(401, 403, 429) },
			},
			preHandler: requireSession,
			config: { rateLimit: app.limits.passkey },
		},
		async (request) => {
			if (request.caller.kind === "guest") throw new AppError("not_authenticated");
			const issued = await issueTicket(
				app.store.db,
				{ accountId: request.caller.accountId },
				app.clock.now(),
			);
			return { url: ticketUrl(rp, issued.ticket), expiresAt: new Date(issued.expires).toISOString() };
		},
	);

	app.delete(
		"/api/passkeys/:id",
		{
			schema: {
				tags,
				summary: "Remove one of your passkeys (never the last one)",
				security: [{ Session: [] }],
				params: PasskeyParams,
				response: { 204: { type: "null", description: "Removed" }, ...errors(401, 403, 404, 409) },
			},
			preHandler: requireSession,
		},
		async (request, reply) => {
			if (request.caller.kind === "guest") throw new AppError("not_authenticated");
			await removePasskey(app.store.db, request.caller.accountId, request.params.id);
			return reply.code(204).send(null);
		},
	);
};
