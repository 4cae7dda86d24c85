// The signed-in account: who am I (with workspaces and the active one), sign-out, and deleting the
// account after confirming with one of its passkeys.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { RoleSchema } from "../../http/permissions.ts";
import { errors } from "../../http/schemas.ts";
import {
	BeginResponse,
	beginConfirmation,
	checkOrigin,
	finishConfirmation,
	LoginFinishBody,
	type PasskeyContext,
	relyingParty,
} from "../passkeys/service.ts";
import { deleteAccount } from "./deletion.ts";
import { accountById, accountRecord, accountWorkspaces, endSession } from "./service.ts";

const tags = ["accounts"];

const Account = Type.Object({
	id: Type.String(),
	email: Type.String(),
	emailVerified: Type.Boolean({
		description:
			"true once the address was confirmed through a mailed link (`POST /api/auth/email/verify`, only while the server has mail on)",
	}),
	name: Type.String(),
	created: Type.String({ format: "date-time" }),
	updated: Type.String({ format: "date-time" }),
});

const Workspace = Type.Object({
	id: Type.String(),
	name: Type.String(),
	personal: Type.Boolean({ description: "the workspace created with the account" }),
	role: RoleSchema("The caller's role in it."),
	created: Type.String({ format: "date-time" }),
	updated: Type.String({ format: "date-time" }),
});

const Me = Type.Object({
	record: Account,
	workspaces: Type.Array(Workspace),
	workspace: Type.String({ description: "the active workspace: `X-Workspace`, else the first" }),
	scopes: Type.Array(Type.String(), { description: "what the session holds in the active workspace" }),
	answerOnly: Type.Boolean({
		description:
			"an answer-only account (made by a request's sign-up): it answers requests and keeps its answers, nothing more",
	}),
});

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
	app.get(
		"/api/auth/me",
		{
			schema: {
				tags,
				summary: "The signed-in account, its workspaces and the active one",
				security: [{ Session: [] }],
				response: { 200: Me, ...errors(401, 403) },
			},
			preHandler: requireSession,
		},
		async (request) => {
			const caller = request.caller;
			if (caller.kind === "guest") throw new AppError("not_authenticated");
			const account = await accountById(app.store.db, caller.accountId);
			if (!account) throw new AppError("not_authenticated");
			return {
				record: accountRecord(account),
				workspaces: await accountWorkspaces(app.store.db, caller.accountId),
				workspace: caller.workspaceId,
				scopes: [...caller.scopes],
				answerOnly: caller.answerOnly === true,
			};
		},
	);

	app.post(
		"/api/auth/logout",
		{
			schema: {
				tags,
				summary: "Sign out: the session token stops working at once",
				security: [{ Session: [] }],
				response: { 204: Type.Null({ description: "Signed out" }), ...errors(401) },
			},
			preHandler: requireSession,
		},
		async (request, reply) => {
			if (request.caller.kind === "guest") throw new AppError("not_authenticated");
			await endSession(app.store.db, request.caller.credentialId);
			return reply.code(204).send(null);
		},
	);

	const rp = relyingParty(app.config);
	const ctx = (): PasskeyContext => ({
		db: app.store.db,
		rp,
		allowSignups: app.config.allowSignups,
		allowAnswerSignups: app.config.allowAnswerSignups,
		now: app.clock.now(),
	});
	// The confirmation is a passkey ceremony: it runs at the server's own address only.
	const originGate = async (request: FastifyRequest) => checkOrigin(rp, request.host, request.headers.origin);

	app.post(
		"/api/auth/delete/begin",
		{
			schema: {
				tags,
				summary: "Begin deleting the signed-in account: a passkey request to confirm it",
				description:
					"Session only. Answer the options with one of the account's passkeys at `/api/auth/delete/finish` within five minutes.",
				security: [{ Session: [] }],
				response: {
					200: BeginResponse("WebAuthn request options (PublicKeyCredentialRequestOptionsJSON)"),
					...errors(400, 401, 429),
				},
			},
			onRequest: originGate,
			preHandler: requireSession,
			config: { rateLimit: app.limits.passkey },
		},
		async (request) => {
			if (request.caller.kind === "guest") throw new AppError("not_authenticated");
			return beginConfirmation(ctx(), request.caller.accountId);
		},
	);

	app.post(
		"/api/auth/delete/finish",
		{
			schema: {
				tags,
				summary: "Delete the signed-in account, confirmed with one of its passkeys",
				description:
					"Session only. The ceremony is answered once (`passkey_ceremony_invalid` when unknown, expired, answered or begun by another account); another account's passkey is 401 `account_confirmation_invalid`, a bad signature 401 `passkey_verification_failed`. Then, in one transaction: refused with 409 `account_last_owner` (naming `workspaces`) while the account is the last owner of a shared workspace; otherwise its personal workspace is deleted by the workspace deletion rules, it leaves every other workspace, and its sessions, passkeys and API keys go. 204; every token of the account is refused from then on.",
				security: [{ Session: [] }],
				body: LoginFinishBody,
				response: { 204: Type.Null({ description: "Deleted" }), ...errors(400, 401, 409, 429) },
			},
			onRequest: originGate,
			preHandler: requireSession,
			config: { rateLimit: app.limits.passkey },
		},
		async (request, reply) => {
			const caller = request.caller;
			if (caller.kind === "guest") throw new AppError("not_authenticated");
			await finishConfirmation(
				ctx(),
				caller.accountId,
				request.body as Parameters<typeof finishConfirmation>[2],
			);
			await deleteAccount(
				{ db: app.store.db, blobs: app.blobs, hooks: app.workspaceHooks },
				caller.accountId,
				app.clock.now(),
			);
			return reply.code(204).send(null);
		},
	);
};
