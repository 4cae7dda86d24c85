// The signed-in account: who am I (with workspaces and the active one) and sign-out.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { accountById, accountRecord, accountWorkspaces, endSession } from "./service.ts";

const tags = ["accounts"];

const Account = Type.Object({
	id: Type.String(),
	email: Type.String(),
	name: Type.String(),
	created: Type.String({ format: "date-time" }),
	updated: Type.String({ format: "date-time" }),
});

const Workspace = Type.Object({
	id: Type.String(),
	name: Type.String(),
	personal: Type.Boolean({ description: "the workspace created with the account" }),
	role: Type.String({ description: "`owner`, `admin` or `member`" }),
	created: Type.String({ format: "date-time" }),
	updated: Type.String({ format: "date-time" }),
});

const Me = Type.Object({
	record: Account,
	workspaces: Type.Array(Workspace),
	workspace: Type.String({ description: "the active workspace: `X-Workspace`, else the first" }),
	scopes: Type.Array(Type.String(), { description: "what the session holds in the active workspace" }),
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
};
