// Taking an invitation: preview it (no sign-in needed: the link is the capability) and accept it
// signed in. The token travels in the body, never in a URL that a log would keep.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { RoleSchema } from "../../http/permissions.ts";
import { errors } from "../../http/schemas.ts";
import { acceptInvitation, previewInvitation } from "./service.ts";

const tags = ["invitations"];

const TokenBody = Type.Object(
	{
		token: Type.String({ minLength: 1, maxLength: 128, description: "The token from the invitation link." }),
	},
	{ additionalProperties: false },
);

const Role = RoleSchema();

const Preview = Type.Object({
	workspace: Type.Object({ id: Type.String(), name: Type.String() }),
	email: Type.String({ description: "Who it is addressed to; a passkey sign-up from it uses this email." }),
	role: Role,
	invitedBy: Type.Union([Type.String(), Type.Null()], {
		description: "The inviter's name; null once deleted.",
	}),
	expiresAt: Type.String({ format: "date-time" }),
});

const Accepted = Type.Object({
	workspace: Type.String({ description: "The workspace joined; name it in `X-Workspace`." }),
	role: Role,
});

const REFUSALS =
	"Refused with 404 `invitation_invalid` (no such link), 410 `invitation_revoked` (revoked, or its inviter no longer holds a role that may give it: removed, demoted or deleted), `invitation_used` (accepted before) or `invitation_expired`.";

export const invitationRoutes: FastifyPluginAsyncTypebox = async (app) => {
	app.post(
		"/api/invitations/preview",
		{
			schema: {
				tags,
				summary: "What an invitation link is for (workspace, role, email), before accepting it",
				description: `No sign-in needed: the link itself is the capability. ${REFUSALS}`,
				body: TokenBody,
				response: { 200: Preview, ...errors(400, 404, 410, 429) },
			},
			config: { rateLimit: app.limits.passkey },
		},
		async (request) => previewInvitation(app.store.db, request.body.token, app.clock.now()),
	);

	app.post(
		"/api/invitations/accept",
		{
			schema: {
				tags,
				summary: "Join the invitation's workspace with the signed-in account",
				description: `Session only. Any account holding the link may accept it, once; of two accepting at once one joins and the other gets \`invitation_used\`. A member already is 409 \`member_exists\` and the invitation stays open. ${REFUSALS} Without an account, sign up with a passkey for the invitation's email: \`/api/passkeys/register/begin {invitation}\`.`,
				security: [{ Session: [] }],
				body: TokenBody,
				response: { 200: Accepted, ...errors(400, 401, 404, 409, 410, 429) },
			},
			config: { rateLimit: app.limits.passkey },
			preHandler: requireSession,
		},
		async (request) => {
			if (request.caller.kind === "guest") throw new AppError("not_authenticated");
			return acceptInvitation(app.store.db, request.body.token, request.caller.accountId, app.clock.now());
		},
	);
};
