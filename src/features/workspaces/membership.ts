// Membership rules (docs/api.md "Members and invitations"): roles rank owner > admin > member > viewer and
// nobody gives or changes a role above their own; a workspace keeps at least one owner; the account
// a personal workspace belongs to stays its owner. Every change that could take the last owner
// away first locks the workspace row, so two such changes on two nodes take turns and the second
// one sees what the first did.
//
// A departure (leave, removal, the account's deletion) ends what the member held through the
// workspace in the same transaction: the membership, the API keys they created for it, their file
// tokens and their notifications about it. Their sessions stay; the workspace is simply no longer
// theirs to name in X-Workspace.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import type { Role } from "../../http/permissions.ts";
import { revokeMemberKeys } from "../apikeys/service.ts";
import { deleteConnectionsOf } from "../connections/service.ts";
import { deleteWorkspaceNotifications } from "../notifications/service.ts";
import { deleteFileTokens } from "../vault/service.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export type { Role };

const RANK: Record<string, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };

/** True when someone holding `held` may give, take or change `role`. */
export function roleWithin(held: string, role: string): boolean {
	return (RANK[role] ?? Number.POSITIVE_INFINITY) <= (RANK[held] ?? 0);
}

/** The caller's own role in its active workspace (an API key acts with its creator's role). */
export async function callerRole(db: Db, caller: AccountCaller): Promise<string> {
	const row = await store.findMembership(db, caller.workspaceId, caller.accountId);
	if (!row) throw new AppError("not_found", "Not a member of this workspace");
	return row.role;
}

function refuseAbove(held: string, role: string, what: string): void {
	if (!roleWithin(held, role)) {
		throw new AppError("member_role_above_own", `${what}: the role ${role} is above your own (${held})`, {
			extra: { role },
		});
	}
}

function isPersonalOwner(
	member: Pick<store.MemberRow, "account" | "workspace_owner" | "workspace_personal">,
) {
	return member.workspace_personal === 1 && member.account === member.workspace_owner;
}

/** PATCH on a member: the new role and the current one must both be within the caller's own. */
export async function changeRole(
	db: Kysely<Database>,
	caller: AccountCaller,
	member: store.MemberRow,
	role: Role,
	now: number,
): Promise<void> {
	const held = await callerRole(db, caller);
	refuseAbove(held, member.role, "Changing this member");
	refuseAbove(held, role, "Giving this role");
	if (role === member.role) return;
	if (isPersonalOwner(member)) {
		throw new AppError(
			"member_personal_owner",
			"The account this personal workspace belongs to stays its owner",
		);
	}
	await db.transaction().execute(async (trx) => {
		if (!(await store.lockWorkspace(trx, member.workspace))) throw new AppError("not_found");
		const current = await store.findMembership(trx, member.workspace, member.account);
		if (!current) throw new AppError("not_found", "The member left meanwhile");
		if (current.role === "owner" && role !== "owner") await keepAnOwner(trx, member.workspace);
		await store.setRole(trx, current.id, role, now);
		if (current.role === "owner" && role !== "owner")
			await moveOwnerOfRecord(trx, member.workspace, member.account, now);
	});
}

/** DELETE on a member: removing someone ranked above you is refused like giving that role. */
export async function removeMember(
	db: Kysely<Database>,
	caller: AccountCaller,
	member: store.MemberRow,
	now: number,
): Promise<void> {
	refuseAbove(await callerRole(db, caller), member.role, "Removing this member");
	if (isPersonalOwner(member)) {
		throw new AppError(
			"member_personal_owner",
			"The account this personal workspace belongs to stays its owner",
		);
	}
	await db.transaction().execute((trx) => depart(trx, member.workspace, member.account, now));
}

/** The caller leaves a workspace it is a member of (not the personal workspace it owns). */
export async function leaveWorkspace(
	db: Kysely<Database>,
	accountId: string,
	workspaceId: string,
	now: number,
): Promise<void> {
	const workspace = await store.findWorkspace(db, workspaceId);
	const membership = workspace && (await store.findMembership(db, workspaceId, accountId));
	if (!workspace || !membership) throw new AppError("not_found", "Not a member of this workspace");
	if (workspace.personal === 1 && workspace.owner === accountId) {
		throw new AppError("member_personal_owner", "A personal workspace goes only with its account");
	}
	await db.transaction().execute((trx) => depart(trx, workspaceId, accountId, now));
}

/**
 * Hands ownership to another member: they become an owner and the owner of record, the caller an
 * admin. One transaction; the caller must be an owner (checked again under the lock).
 */
export async function handOver(
	db: Kysely<Database>,
	caller: AccountCaller,
	member: store.MemberRow,
	now: number,
): Promise<void> {
	if (member.account === caller.accountId) {
		throw new AppError("conflict", "Hand ownership to another member, not yourself");
	}
	if (member.workspace_personal === 1) {
		throw new AppError("member_personal_owner", "A personal workspace stays with its account");
	}
	await db.transaction().execute(async (trx) => {
		if (!(await store.lockWorkspace(trx, member.workspace))) throw new AppError("not_found");
		const mine = await store.findMembership(trx, member.workspace, caller.accountId);
		if (mine?.role !== "owner") {
			throw new AppError("forbidden", "Only an owner hands over ownership", { extra: { scope: "owner" } });
		}
		const theirs = await store.findMembership(trx, member.workspace, member.account);
		if (!theirs) throw new AppError("not_found", "The member left meanwhile");
		await store.setRole(trx, theirs.id, "owner", now);
		await store.setRole(trx, mine.id, "admin", now);
		await store.setOwnerOfRecord(trx, member.workspace, member.account, now);
	});
}

/**
 * Removes `accountId` from the workspace inside `trx`: refused (`member_last_owner`) when it is the
 * last owner. Exported for account deletion, which departs every shared workspace in its own
 * transaction.
 */
export async function depart(
	trx: Transaction<Database>,
	workspaceId: string,
	accountId: string,
	now: number,
): Promise<void> {
	if (!(await store.lockWorkspace(trx, workspaceId))) throw new AppError("not_found");
	const current = await store.findMembership(trx, workspaceId, accountId);
	if (!current) throw new AppError("not_found", "Not a member of this workspace");
	if (current.role === "owner") await keepAnOwner(trx, workspaceId);
	await store.deleteMember(trx, current.id);
	await revokeMemberKeys(trx, workspaceId, accountId);
	await deleteFileTokens(trx, workspaceId, accountId);
	await deleteWorkspaceNotifications(trx, workspaceId, accountId);
	// The tools they connected; what those tools proposed stays with the workspace.
	await deleteConnectionsOf(trx, workspaceId, accountId);
	await moveOwnerOfRecord(trx, workspaceId, accountId, now);
}

/** Run under the workspace lock, before an owner stops being one. */
async function keepAnOwner(trx: Transaction<Database>, workspaceId: string): Promise<void> {
	if ((await store.countOwners(trx, workspaceId)) <= 1) {
		const ws = await store.findWorkspace(trx, workspaceId);
		throw new AppError(
			"member_last_owner",
			"A workspace keeps at least one owner: make another member owner first",
			{
				extra: { workspace: { id: workspaceId, name: ws?.name ?? "" } },
			},
		);
	}
}

/** The owner of record (notifications meant for "the workspace's owner") follows a remaining owner. */
async function moveOwnerOfRecord(
	trx: Transaction<Database>,
	workspaceId: string,
	leaving: string,
	now: number,
): Promise<void> {
	const ws = await store.findWorkspace(trx, workspaceId);
	if (ws?.owner !== leaving) return;
	const next = await store.firstOtherOwner(trx, workspaceId, leaving);
	if (next) await store.setOwnerOfRecord(trx, workspaceId, next.account, now);
}
