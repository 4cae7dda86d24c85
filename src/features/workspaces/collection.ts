// The `workspaces` collection: the caller's workspaces. Create makes a new one with the caller as
// owner; owners and admins rename; the owner deletes (not a personal workspace). Sessions only.
import { sql } from "kysely";
import { Type } from "typebox";
import { RoleSchema } from "../../http/permissions.ts";
import type { BlobStore } from "../../lib/blob-store.ts";
import { invalidField, iso, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import type { WorkspaceHooks } from "./hooks.ts";
import * as service from "./service.ts";
import { selectWorkspaces, type WorkspaceRow } from "./store.ts";

export const Workspace = Type.Object(
	{
		id: Type.String(),
		name: Type.String(),
		owner: Type.String({ description: "Account id of the owner." }),
		personal: Type.Boolean({
			description: "The account's own workspace, made with it; deleted only with the account.",
		}),
		role: RoleSchema("The caller's role in it."),
		active: Type.Boolean({
			description:
				"Whether it is the caller's active workspace for this request (`X-Workspace`, else the first).",
		}),
		created: Timestamp("Creation time."),
		updated: Timestamp("Time of the last change."),
	},
	{ $id: "Workspace", description: "A workspace the caller is a member of (`workspaces` collection)." },
);

const Name = Type.String({ minLength: 1, maxLength: 200 });
const WorkspaceWrite = Type.Object({ name: Name }, { additionalProperties: false });

const rule = (scope: string) => ({ scope, apiKeys: false });

function checkName(name: string): string {
	const trimmed = name.trim();
	if (trimmed === "") throw invalidField("name", "must not be blank");
	return trimmed;
}

/** Deleting a workspace removes its blobs and runs the hooks of what its rows hold. */
export interface WorkspaceDeps {
	blobs: BlobStore;
	workspaceHooks: WorkspaceHooks;
}

export const workspacesCollection = defineCollection<
	WorkspaceRow,
	{ name: string },
	{ name: string },
	WorkspaceDeps
>({
	name: "workspaces",
	description:
		"The caller's workspaces. Deleting one deletes its records, files, sections, templates, members and API keys and revokes the identities it issued. Sessions only.",
	schemas: { item: Workspace, create: WorkspaceWrite, update: WorkspaceWrite },
	query: {
		id: { type: "text", expr: sql.ref("workspaces.id"), sort: true },
		name: { type: "text", expr: sql.ref("workspaces.name"), sort: true },
		personal: { type: "boolean", expr: sql.ref("workspaces.personal"), sort: true },
		role: { type: "text", expr: sql.ref("members.role"), sort: true },
		created: { type: "date", expr: sql.ref("workspaces.created"), sort: true },
		updated: { type: "date", expr: sql.ref("workspaces.updated"), sort: true },
	},
	defaultSort: "created",
	access: {
		list: rule("workspace:read"),
		view: rule("workspace:read"),
		create: rule("workspace:write"),
		update: rule("workspace:write"),
		delete: rule("workspace:write"),
	},
	idColumn: "workspaces.id",
	select: (db, caller) => selectWorkspaces(db, caller.accountId, caller.workspaceId),
	toItem: (row) => ({
		id: row.id,
		name: row.name,
		owner: row.owner,
		personal: row.personal === 1,
		role: row.role,
		active: row.active === 1,
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		create: async ({ db, caller, now }, input) => ({
			id: await service.createWorkspace(db, caller, checkName(input.name), now),
		}),
		update: ({ db, now }, row, input) => service.renameWorkspace(db, row, checkName(input.name), now),
		delete: ({ db, blobs, workspaceHooks, caller, now }, row) =>
			service.deleteWorkspace({ db, blobs, hooks: workspaceHooks, caller, now }, row),
	},
});
