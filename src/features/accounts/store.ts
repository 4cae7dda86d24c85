import type { Kysely, Transaction } from "kysely";
import type { AccountTable, Database, EmailVerificationTable, SessionTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertAccount(db: Db, row: AccountTable) {
	return db.insertInto("accounts").values(row).execute();
}

export function findAccountByEmail(db: Db, email: string) {
	return db.selectFrom("accounts").selectAll().where("email", "=", email).executeTakeFirst();
}

export function findAccount(db: Db, id: string) {
	return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Whether the server has any account yet (the start-up banner names the ticket command until then). */
export async function anyAccount(db: Db): Promise<boolean> {
	return (await db.selectFrom("accounts").select("id").limit(1).executeTakeFirst()) !== undefined;
}

export function insertSession(db: Db, row: SessionTable) {
	return db.insertInto("sessions").values(row).execute();
}

export function deleteSession(db: Db, id: string) {
	return db.deleteFrom("sessions").where("id", "=", id).execute();
}

/** The live session for a token hash with the caller's membership in the hinted (or first) workspace. */
export async function findSessionMembership(
	db: Db,
	tokenHash: string,
	workspace: string | undefined,
	now: number,
) {
	let q = db
		.selectFrom("sessions")
		.innerJoin("members", "members.account", "sessions.account")
		.innerJoin("accounts", "accounts.id", "sessions.account")
		.select([
			"sessions.id as sessionId",
			"sessions.account as accountId",
			"members.workspace",
			"members.role",
			"accounts.answer_only",
		])
		.where("sessions.token_hash", "=", tokenHash)
		.where("sessions.expires", ">", now);
	q =
		workspace === undefined
			? q.orderBy("members.created").orderBy("members.id")
			: q.where("members.workspace", "=", workspace);
	return q.limit(1).executeTakeFirst();
}

export function sessionExists(db: Db, tokenHash: string, now: number) {
	return db
		.selectFrom("sessions")
		.select("id")
		.where("token_hash", "=", tokenHash)
		.where("expires", ">", now)
		.executeTakeFirst();
}

/** Memberships with their workspace, ordered like the default active workspace (first joined). */
export function listMemberships(db: Db, accountId: string) {
	return db
		.selectFrom("members")
		.innerJoin("workspaces", "workspaces.id", "members.workspace")
		.select([
			"workspaces.id",
			"workspaces.name",
			"workspaces.personal",
			"workspaces.created",
			"workspaces.updated",
			"members.role",
		])
		.where("members.account", "=", accountId)
		.orderBy("members.created")
		.orderBy("members.id")
		.execute();
}

/** Serialises changes to one account (the passkeys' idiom): false when the account is gone. */
export async function lockAccount(db: Db, accountId: string): Promise<boolean> {
	const r = await db
		.updateTable("accounts")
		.set((eb) => ({ updated: eb.ref("updated") }))
		.where("id", "=", accountId)
		.executeTakeFirst();
	return r.numUpdatedRows > 0n;
}

/**
 * The account row, after its workspaces are dealt with. Sessions, passkeys, codes, tickets, API keys,
 * notifications and file tokens cascade; identities, requests and invitations keep their rows with
 * the account set to null.
 */
export async function deleteAccountRow(db: Db, accountId: string): Promise<void> {
	await db.deleteFrom("accounts").where("id", "=", accountId).execute();
}

export function setLanguage(db: Db, accountId: string, language: string, now: number) {
	return db.updateTable("accounts").set({ language, updated: now }).where("id", "=", accountId).execute();
}

export function insertVerification(db: Db, row: EmailVerificationTable) {
	return db.insertInto("email_verifications").values(row).execute();
}

/** Removes an account's verify links that lapsed, and every one when `all`. */
export function sweepVerifications(db: Db, accountId: string, now: number, all = false) {
	return db
		.deleteFrom("email_verifications")
		.where("account", "=", accountId)
		.$if(!all, (qb) => qb.where("expires", "<=", now))
		.execute();
}

/** Spends a verify link: the statement that removes it answers it, so it counts once. */
export function spendVerification(db: Db, tokenHash: string) {
	return db
		.deleteFrom("email_verifications")
		.where("token_hash", "=", tokenHash)
		.returningAll()
		.executeTakeFirst();
}

/** Marks the address verified, only while the account still has the address the link was for. */
export async function markVerified(db: Db, accountId: string, email: string, now: number): Promise<boolean> {
	const row = await db
		.updateTable("accounts")
		.set({ email_verified_at: now, updated: now })
		.where("id", "=", accountId)
		.where("email", "=", email)
		.executeTakeFirst();
	return Number(row.numUpdatedRows) === 1;
}
