// Membership acts that are not collection writes: leaving a workspace and handing ownership over.
// Both are the person's own acts: sessions only.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { handOver, leaveWorkspace } from "./membership.ts";
import { selectMembers } from "./store.ts";

const tags = ["workspaces"];
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

export const workspaceRoutes: FastifyPluginAsyncTypebox = async (app) => {
	app.post(
		"/api/workspaces/:id/leave",
		{
			schema: {
				tags,
				summary: "Leave a workspace",
				description:
					"Session only. Your membership ends at once, with the API keys you made for the workspace; your sessions stay. The last owner cannot leave (409 `member_last_owner`: make another member owner or hand over first); the personal workspace stays with its account (409 `member_personal_owner`). A workspace you are not a member of is 404.",
				security: [{ Session: [] }],
				params: IdParams,
				response: { 204: Type.Null({ description: "Left" }), ...errors(401, 404, 409) },
			},
			preHandler: requireSession,
		},
		async (request, reply) => {
			if (request.caller.kind === "guest") throw new AppError("not_authenticated");
			await leaveWorkspace(app.store.db, request.caller.accountId, request.params.id, app.clock.now());
			return reply.code(204).send(null);
		},
	);

	app.post(
		"/api/members/:id/hand-over",
		{
			schema: {
				tags,
				summary: "Hand ownership of the active workspace to another member",
				description:
					"Session only; the caller must be an owner (else 403 `forbidden`). In one step the member becomes an owner and the owner of record, and the caller becomes an admin. Not for a personal workspace (409 `member_personal_owner`); a member of another workspace is 404.",
				security: [{ Session: [] }],
				params: IdParams,
				response: { 204: Type.Null({ description: "Handed over" }), ...errors(401, 403, 404, 409) },
			},
			preHandler: requireSession,
		},
		async (request, reply) => {
			const caller = request.caller;
			if (caller.kind === "guest") throw new AppError("not_authenticated");
			const member = await selectMembers(app.store.db, caller.workspaceId)
				.where("members.id", "=", request.params.id)
				.executeTakeFirst();
			if (!member) throw new AppError("not_found");
			await handOver(app.store.db, caller, member, app.clock.now());
			return reply.code(204).send(null);
		},
	);
};
