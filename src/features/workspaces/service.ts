// Workspace rules (spec "Workspace behaviour"): a new workspace has its creator as owner; owners
// and admins rename it and manage members; only the owner deletes it, and a personal workspace
// goes only with its account. Deleting is one transaction over everything the workspace holds
// (plus what other features registered in onWorkspaceDeleted); its blobs go after the commit.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import type { BlobStore } from "../../lib/blob-store.ts";
import { newId } from "../../lib/crypto.ts";
import type { WorkspaceHooks } from "./hooks.ts";
import * as store from "./store.ts";

const MANAGERS = new Set(["owner", "admin"]);

export async function createWorkspace(
	db: Kysely<Database>,
	caller: AccountCaller,
	name: string,
	now: number,
) {
	const id = newId();
	await db.transaction().execute(async (trx) => {
		await store.insertWorkspace(trx, {
			id,
			name,
			owner: caller.accountId,
			personal: 0,
			created: now,
			updated: now,
		});
		await store.insertMember(trx, {
			id: newId(),
			workspace: id,
			account: caller.accountId,
			role: "owner",
			created: now,
			updated: now,
		});
	});
	return id;
}

export async function renameWorkspace(
	db: Kysely<Database>,
	workspace: store.WorkspaceRow,
	name: string,
	now: number,
): Promise<void> {
	if (!MANAGERS.has(workspace.role))
		throw new AppError("forbidden", "Only the owner or an admin renames a workspace");
	if (name !== workspace.name) await store.renameWorkspace(db, workspace.id, name, now);
}

export interface DeleteDeps {
	db: Kysely<Database>;
	blobs: BlobStore;
	hooks: WorkspaceHooks;
	caller: AccountCaller;
	now: number;
}

export async function deleteWorkspace(deps: DeleteDeps, workspace: store.WorkspaceRow): Promise<void> {
	const { db, blobs, hooks, caller, now } = deps;
	if (workspace.personal === 1) {
		throw new AppError("workspace_personal", "A personal workspace is deleted only with its account");
	}
	if (workspace.owner !== caller.accountId)
		throw new AppError("forbidden", "Only the owner deletes a workspace");
	// All or nothing: a crash half-way rolls back, and nothing outside the database is touched
	// until the rows are gone.
	const keys = await db.transaction().execute(async (trx) => {
		for (const hook of hooks.onWorkspaceDeleted) await hook(trx, workspace.id, now);
		const found = await store.fileKeys(trx, workspace.id);
		await store.deleteWorkspaceRows(trx, workspace.id);
		return found;
	});
	// A blob left by a crash here is unreferenced and goes with the next sweep.
	for (const key of keys) await blobs.delete(key).catch(() => undefined);
}

export async function changeRole(
	db: Kysely<Database>,
	member: store.MemberRow,
	role: string,
	now: number,
): Promise<void> {
	if (member.account === member.workspace_owner) {
		throw new AppError("forbidden", "The owner's membership cannot be changed");
	}
	if (role !== member.role) await store.setRole(db, member.id, role, now);
}

export async function removeMember(db: Kysely<Database>, member: store.MemberRow): Promise<void> {
	if (member.account === member.workspace_owner)
		throw new AppError("forbidden", "The owner cannot be removed");
	await store.deleteMember(db, member.id);
}
