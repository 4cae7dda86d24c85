// The `members` collection: members of the active workspace. Owners and admins (scope
// `member:write`) change roles between `admin` and `member` and remove members; the owner's own
// membership is fixed. Members join through invitations, never by a create here.
import { sql } from "kysely";
import { Type } from "typebox";
import { iso, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import * as service from "./service.ts";
import { type MemberRow, selectMembers } from "./store.ts";

const Role = Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("member")]);

export const Member = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		account: Type.String({ description: "The member's account id." }),
		email: Type.String(),
		name: Type.String({ description: "The member's account name." }),
		role: Role,
		owner: Type.Boolean({
			description: "The workspace's owner (role `owner`; cannot be changed or removed).",
		}),
		created: Timestamp("When the member joined."),
		updated: Timestamp("Last role change."),
	},
	{ $id: "Member", description: "A member of the active workspace (`members` collection)." },
);

const MemberUpdate = Type.Object(
	{
		role: Type.Union([Type.Literal("admin"), Type.Literal("member")], {
			description: "`admin` or `member`.",
		}),
	},
	{ additionalProperties: false },
);

const rule = (scope: string) => ({ scope, apiKeys: true });

export const membersCollection = defineCollection<MemberRow, never, { role: "admin" | "member" }>({
	name: "members",
	description: "Members of the active workspace.",
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
		update: ({ db, now }, row, input) => service.changeRole(db, row, input.role, now),
		delete: ({ db }, row) => service.removeMember(db, row),
	},
});
