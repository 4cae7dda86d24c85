// The `invitations` collection: the open invitations of the active workspace. Create invites an
// email with a role (never above the caller's own) and hands the one-time link back once, in
// `X-Invitation-Url` (the bare token in `X-Plain-Token`); delete revokes. Accepting is at
// /api/invitations/accept (routes.ts).
import { sql } from "kysely";
import { Type } from "typebox";
import { AppError } from "../../http/errors.ts";
import { RoleSchema } from "../../http/permissions.ts";
import { iso, Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import type { Mailer } from "../mail/service.ts";
import type { Role } from "../workspaces/service.ts";
import { createInvitation, invitationMail, invitationUrl, revokeInvitation } from "./service.ts";
import { type InvitationRow, selectOpenInvitations } from "./store.ts";

export const Invitation = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		email: Type.String({ description: "Who it is addressed to; a sign-up from the link uses this email." }),
		role: RoleSchema(),
		status: Type.Union([Type.Literal("open"), Type.Literal("expired")], {
			description: "`expired` once `expiresAt` has passed; accepted and revoked ones are no longer listed.",
		}),
		invitedBy: Nullable(Type.String(), "Account id of the inviter; null once that account is deleted."),
		invitedByName: Nullable(Type.String(), "The inviter's account name."),
		expiresAt: Timestamp("The link works until this instant (seven days after creation)."),
		created: Timestamp("When it was sent."),
	},
	{
		$id: "Invitation",
		description: "An open invitation to the active workspace (`invitations` collection).",
	},
);

const InvitationCreate = Type.Object(
	{
		email: Type.String({ minLength: 1, maxLength: 320 }),
		role: RoleSchema(
			'Never above the inviter\'s own role (`member_role_above_own`). What each role sees and does: docs/api.md, "Roles: who sees and does what".',
		),
		sendEmail: Type.Optional(
			Type.Boolean({
				description:
					'Also send the link to `email` by e-mail (the link is still answered once, as without). Only while the server has mail on: else 403 `mail_disabled`. Counted against the mail caps (429 `mail_rate_limited`: then no invitation is made). docs/operations.md "Outgoing e-mail".',
			}),
		),
		language: Type.Optional(
			Type.Union([Type.Literal("en"), Type.Literal("de")], {
				description: "The mail's language; else the invitee's when they have an account, else the inviter's.",
			}),
		),
	},
	{ additionalProperties: false },
);

const rule = (scope: string) => ({ scope, apiKeys: true });

/** The server's own origin (`https://<DOMAIN>`), for the invitation link handed out; the mail part, when on. */
export interface InvitationDeps {
	origin: string;
	mail: Mailer | undefined;
}

type InvitationInput = { email: string; role: Role; sendEmail?: boolean; language?: "en" | "de" };

export const invitationsCollection = defineCollection<InvitationRow, InvitationInput, never, InvitationDeps>({
	name: "invitations",
	description:
		"Open invitations to the active workspace. Create (`members:write`) invites an email with a role no higher than the caller's own and answers the one-time link once, in `X-Invitation-Url` (token in `X-Plain-Token`); only its hash is kept. It works seven days, once, for whoever holds it (`POST /api/invitations/accept`, or a passkey sign-up for its email). Delete revokes it. An email that already belongs to a member is 409 `member_exists`.",
	schemas: {
		item: Invitation,
		create: InvitationCreate,
		createHeaders: {
			"X-Invitation-Url": Type.String({
				description: "`<origin>/app/invite#<token>`: the link to send the invitee, shown this once.",
			}),
			"X-Plain-Token": Type.String({ description: "The invitation token alone (43 base64url characters)." }),
			"X-Mail-Id": Type.String({
				description: "With `sendEmail`: the id of the mail queued to the invitee.",
			}),
		},
	},
	query: {
		id: { type: "text", expr: sql.ref("invitations.id"), sort: true },
		email: { type: "text", expr: sql.ref("invitations.email"), sort: true },
		role: { type: "text", expr: sql.ref("invitations.role"), sort: true },
		expiresAt: { type: "date", expr: sql.ref("invitations.expires_at"), sort: true },
		created: { type: "date", expr: sql.ref("invitations.created"), sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("member:read"),
		view: rule("member:read"),
		create: rule("member:write"),
		delete: rule("member:write"),
	},
	refusals: { update: "An invitation cannot be changed; revoke it and invite again." },
	idColumn: "invitations.id",
	select: (db, caller) => selectOpenInvitations(db, caller.workspaceId),
	toItem: (row, now) => ({
		id: row.id,
		workspace: row.workspace,
		email: row.email,
		role: row.role,
		status: row.expires_at <= now ? "expired" : "open",
		invitedBy: row.invited_by,
		invitedByName: row.invited_by_name,
		expiresAt: iso(row.expires_at),
		created: iso(row.created),
	}),
	handlers: {
		create: async ({ db, caller, now, origin, mail }, input) => {
			if (input.sendEmail && !mail) {
				throw new AppError("mail_disabled", "This server does not send mail: send the link yourself");
			}
			// The invitation and its mail commit together: a refused mail makes no invitation.
			const { id, token, mailId } = await db.transaction().execute(async (trx) => {
				const made = await createInvitation(trx, caller, input, now);
				if (!input.sendEmail || !mail) return { ...made, mailId: undefined };
				const mailId = await mail.queue(trx, await invitationMail(trx, mail, caller, made, input), now);
				return { ...made, mailId };
			});
			return {
				id,
				headers: {
					"x-invitation-url": invitationUrl(origin, token),
					"x-plain-token": token,
					...(mailId ? { "x-mail-id": mailId } : {}),
					"cache-control": "no-store",
				},
			};
		},
		delete: ({ db, caller, now }, row) => revokeInvitation(db, caller.workspaceId, row.id, now),
	},
});
