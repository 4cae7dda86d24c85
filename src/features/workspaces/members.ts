// The `members` collection: members of the active workspace. Owners and admins (scope
// `member:write`) change roles and remove members, never above their own role and never the last
// owner (rules in membership.ts). Members join through invitations, never by a create here.
import { sql } from "kysely";
import { Type } from "typebox";
import { RoleSchema } from "../../http/permissions.ts";
import { iso, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import * as membership from "./membership.ts";
import { type MemberRow, selectMembers } from "./store.ts";

export const Member = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		account: Type.String({ description: "The member's account id." }),
		email: Type.String(),
		name: Type.String({ description: "The member's account name." }),
		role: RoleSchema(),
		owner: Type.Boolean({
			description:
				"The owner of record: an owner, the one notifications meant for the workspace's owner go to (for a personal workspace, the account it belongs to). It moves to another owner when this one stops being one.",
		}),
		created: Timestamp("When the member joined."),
		updated: Timestamp("Last role change."),
	},
	{ $id: "Member", description: "A member of the active workspace (`members` collection)." },
);

const MemberUpdate = Type.Object(
	{
		role: RoleSchema(
			"Never above the caller's own role (`member_role_above_own`); the last owner cannot step down (`member_last_owner`).",
		),
	},
	{ additionalProperties: false },
);

const rule = (scope: string) => ({ scope, apiKeys: true });

export const membersCollection = defineCollection<MemberRow, never, { role: membership.Role }>({
	name: "members",
	description:
		"Members of the active workspace. Change a role (PATCH) or remove a member (DELETE) with `members:write`, never ranked above your own role (owner > admin > member > viewer); a workspace keeps at least one owner; the account a personal workspace belongs to stays its owner. Removing a member revokes the API keys they made for the workspace. Members join through invitations (`invitations`).",
	schemas: { item: Member, update: MemberUpdate },
	query: {
		id: { type: "text", expr: sql.ref("members.id"), sort: true },
		account: { type: "text", expr: sql.ref("members.account") },
		email: { type: "text", expr: sql.ref("accounts.email"), sort: true },
		name: { type: "text", expr: sql.ref("accounts.name"), sort: true },
		role: { type: "text", expr: sql.ref("members.role"), sort: true },
		created: { type: "date", expr: sql.ref("members.created"), sort: true },
		updated: { type: "date", expr: sql.ref("members.updated"), sort: true },
	},
	defaultSort: "created",
	access: {
		list: rule("member:read"),
		view: rule("member:read"),
		update: rule("member:write"),
		delete: rule("member:write"),
	},
	refusals: { create: "Members join through invitations." },
	idColumn: "members.id",
	select: (db, caller) => selectMembers(db, caller.workspaceId),
	toItem: (row) => ({
		id: row.id,
		workspace: row.workspace,
		account: row.account,
		email: row.email,
		name: row.account_name,
		role: row.role,
		owner: row.account === row.workspace_owner,
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		update: ({ db, caller, now }, row, input) => membership.changeRole(db, caller, row, input.role, now),
		delete: ({ db, caller, now }, row) => membership.removeMember(db, caller, row, now),
	},
});
