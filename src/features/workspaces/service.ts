// Workspace rules (spec "Workspace behaviour"): a new workspace has its creator as owner; owners
// and admins rename it; an owner deletes it, and a personal workspace goes only with its account.
// Member rules are in membership.ts. Deleting is one transaction over everything the workspace holds
// (plus what other features registered in onWorkspaceDeleted); its blobs go after the commit.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import type { BlobStore } from "../../lib/blob-store.ts";
import { newId } from "../../lib/crypto.ts";
import { deleteWorkspaceNotifications } from "../notifications/service.ts";
import { deleteFileTokens, deleteWorkspaceVault, workspaceFileKeys } from "../vault/service.ts";
import type { WorkspaceHooks } from "./hooks.ts";
import * as store from "./store.ts";

// What other features read of workspaces and members (invitations, account deletion), and the
// member rules they apply.
export type { WorkspaceHooks } from "./hooks.ts";
export { callerRole, depart, type Role, roleWithin } from "./membership.ts";
export {
	countOwners,
	findMembership,
	findWorkspace,
	lockWorkspace,
	memberByEmail,
	membershipsOf,
} from "./store.ts";

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

/** An account's personal workspace with the account as its owner, made with the account (accounts/). */
export async function createPersonalWorkspace(
	trx: Kysely<Database>,
	input: { id: string; accountId: string; accountName: string },
	now: number,
): Promise<void> {
	await store.insertWorkspace(trx, {
		id: input.id,
		name: `${input.accountName}'s vault`,
		owner: input.accountId,
		personal: 1,
		created: now,
		updated: now,
	});
	await addMember(trx, { workspace: input.id, account: input.accountId, role: "owner" }, now);
}

/** A new member (an accepted invitation): the caller has checked they are not one yet. */
export function addMember(
	trx: Kysely<Database>,
	input: { workspace: string; account: string; role: string },
	now: number,
) {
	return store.insertMember(trx, { id: newId(), ...input, created: now, updated: now });
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
	const { db, blobs, hooks, now } = deps;
	if (workspace.personal === 1) {
		throw new AppError("workspace_personal", "A personal workspace is deleted only with its account");
	}
	if (workspace.role !== "owner") throw new AppError("forbidden", "Only an owner deletes a workspace");
	// All or nothing: a crash half-way rolls back, and nothing outside the database is touched
	// until the rows are gone.
	const keys = await db.transaction().execute((trx) => deleteWorkspaceIn(trx, hooks, workspace.id, now));
	await removeBlobs(blobs, keys);
}

/**
 * The deletion itself, inside the caller's transaction (a workspace's own deletion, or an account's
 * deletion taking its personal workspace): the hooks, then the rows. Returns the blob keys to
 * remove once the transaction has committed.
 */
export async function deleteWorkspaceIn(
	trx: Transaction<Database>,
	hooks: WorkspaceHooks,
	workspaceId: string,
	now: number,
): Promise<string[]> {
	for (const hook of hooks.onWorkspaceDeleted) await hook(trx, workspaceId, now);
	const found = await workspaceFileKeys(trx, workspaceId);
	// Children first: what the vault and notifications keep for it, then its members and the row.
	await deleteWorkspaceVault(trx, workspaceId);
	await deleteWorkspaceNotifications(trx, workspaceId);
	await deleteFileTokens(trx, workspaceId);
	await store.deleteWorkspaceRows(trx, workspaceId);
	return found;
}

/** After the commit. A blob left by a crash here is unreferenced and goes with the next sweep. */
export async function removeBlobs(blobs: BlobStore, keys: readonly string[]): Promise<void> {
	for (const key of keys) await blobs.delete(key).catch(() => undefined);
}
