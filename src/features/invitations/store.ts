import type { Kysely, Transaction } from "kysely";
import type { Database, InvitationTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export type InvitationRow = Omit<InvitationTable, "token_hash"> & { invited_by_name: string | null };

/** The open invitations of a workspace (the token hash is never selected). */
export function selectOpenInvitations(db: Db, workspaceId: string) {
	return db
		.selectFrom("invitations")
		.leftJoin("accounts", "accounts.id", "invitations.invited_by")
		.select([
			"invitations.id",
			"invitations.workspace",
			"invitations.email",
			"invitations.role",
			"invitations.status",
			"invitations.invited_by",
			"invitations.accepted_by",
			"invitations.expires_at",
			"invitations.created",
			"invitations.updated",
			"accounts.name as invited_by_name",
		])
		.where("invitations.workspace", "=", workspaceId)
		.where("invitations.status", "=", "open");
}

export function insertInvitation(db: Db, row: InvitationTable) {
	return db.insertInto("invitations").values(row).execute();
}

/** An invitation by its token's hash, with what the invitee is shown before accepting. */
export function findByTokenHash(db: Db, tokenHash: string) {
	return db
		.selectFrom("invitations")
		.innerJoin("workspaces", "workspaces.id", "invitations.workspace")
		.leftJoin("accounts", "accounts.id", "invitations.invited_by")
		.select([
			"invitations.id",
			"invitations.workspace",
			"invitations.email",
			"invitations.role",
			"invitations.status",
			"invitations.expires_at",
			"invitations.invited_by",
			"workspaces.name as workspace_name",
			"accounts.name as invited_by_name",
		])
		.where("invitations.token_hash", "=", tokenHash)
		.executeTakeFirst();
}

/**
 * Spends an open, live invitation whose inviter is still a member of its workspace in one of
 * `inviterRoles` (the roles that may give the invitation's role): one conditional UPDATE, so of two
 * acceptances one wins, and an inviter removed, demoted or deleted (`invited_by` then null) on any
 * node before it leaves nothing to spend.
 */
export async function markAccepted(
	db: Db,
	id: string,
	accountId: string,
	now: number,
	inviterRoles: readonly string[],
): Promise<boolean> {
	if (inviterRoles.length === 0) return false;
	const r = await db
		.updateTable("invitations")
		.set({ status: "accepted", accepted_by: accountId, updated: now })
		.where("id", "=", id)
		.where("status", "=", "open")
		.where("expires_at", ">", now)
		.where("invited_by", "in", (eb) =>
			eb
				.selectFrom("members")
				.select("members.account")
				.whereRef("members.workspace", "=", "invitations.workspace")
				.where("members.role", "in", [...inviterRoles]),
		)
		.executeTakeFirst();
	return r.numUpdatedRows > 0n;
}

/** Revokes an open invitation (an accepted one stays accepted). */
export async function markRevoked(db: Db, workspaceId: string, id: string, now: number): Promise<boolean> {
	const r = await db
		.updateTable("invitations")
		.set({ status: "revoked", updated: now })
		.where("workspace", "=", workspaceId)
		.where("id", "=", id)
		.where("status", "=", "open")
		.executeTakeFirst();
	return r.numUpdatedRows > 0n;
}
