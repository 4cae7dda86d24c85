// The provider's queries. Every one-time artefact is spent by one conditional statement (a DELETE
// … RETURNING, or an UPDATE whose WHERE still finds it unspent): two nodes never both accept one.
import type { Kysely, Transaction } from "kysely";
import type { Database, OidcCodeTable, OidcRequestTable, OidcTokenTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertRequest(db: Db, row: OidcRequestTable) {
	return db.insertInto("oidc_requests").values(row).execute();
}

/** A request still open for a passkey sign-in: unexpired and without a ticket. */
export function openRequest(db: Db, hash: string, now: number) {
	return db
		.selectFrom("oidc_requests")
		.selectAll()
		.where("hash", "=", hash)
		.where("expires", ">", now)
		.where("ticket_hash", "is", null)
		.executeTakeFirst();
}

/** Sets the ticket once: false when another sign-in took the request first. */
export async function setTicket(
	db: Db,
	hash: string,
	fields: { ticket_hash: string; account: string; auth_time: number; expires: number },
	now: number,
): Promise<boolean> {
	const result = await db
		.updateTable("oidc_requests")
		.set(fields)
		.where("hash", "=", hash)
		.where("ticket_hash", "is", null)
		.where("expires", ">", now)
		.executeTakeFirst();
	return Number(result.numUpdatedRows) === 1;
}

/** Spends a consent ticket (right or wrong, it is gone). */
export function spendTicket(db: Db, ticketHash: string) {
	return db
		.deleteFrom("oidc_requests")
		.where("ticket_hash", "=", ticketHash)
		.returningAll()
		.executeTakeFirst();
}

export function insertCode(db: Db, row: OidcCodeTable) {
	return db.insertInto("oidc_codes").values(row).execute();
}

export function spendCode(db: Db, hash: string) {
	return db.deleteFrom("oidc_codes").where("hash", "=", hash).returningAll().executeTakeFirst();
}

export function insertToken(db: Db, row: OidcTokenTable) {
	return db.insertInto("oidc_tokens").values(row).execute();
}

export function liveToken(db: Db, hash: string, now: number) {
	return db
		.selectFrom("oidc_tokens")
		.selectAll()
		.where("hash", "=", hash)
		.where("expires", ">", now)
		.executeTakeFirst();
}

/** Drops what can no longer be used: requests, codes and tokens past their time. */
export async function sweep(db: Db, now: number) {
	await db.deleteFrom("oidc_requests").where("expires", "<=", now).execute();
	await db.deleteFrom("oidc_codes").where("expires", "<=", now).execute();
	await db.deleteFrom("oidc_tokens").where("expires", "<=", now).execute();
}

export function personalWorkspace(db: Db, account: string) {
	return db
		.selectFrom("workspaces")
		.select("id")
		.where("owner", "=", account)
		.where("personal", "=", 1)
		.executeTakeFirst();
}

/** The person's entries under `keys`, for the consent page. */
export function entriesWithKeys(db: Db, workspace: string, keys: readonly string[]) {
	if (keys.length === 0) return Promise.resolve([]);
	return db
		.selectFrom("records")
		.select(["id", "key", "name", "kind", "hidden", "updated"])
		.where("workspace", "=", workspace)
		.where("key", "in", keys)
		.orderBy("key")
		.orderBy("updated", "desc")
		.limit(1000)
		.execute();
}

/** Which of `ids` are records of the workspace. */
export function recordsOf(db: Db, workspace: string, ids: readonly string[]) {
	if (ids.length === 0) return Promise.resolve([]);
	return db
		.selectFrom("records")
		.select(["id", "key"])
		.where("workspace", "=", workspace)
		.where("id", "in", ids)
		.execute();
}

/** The person's primary identity: the first active one they made in their personal workspace. */
export function primaryIdentity(db: Db, workspace: string, account: string) {
	return db
		.selectFrom("identities")
		.select("fingerprint")
		.where("workspace", "=", workspace)
		.where("account", "=", account)
		.where("status", "=", "active")
		.orderBy("created")
		.orderBy("id")
		.executeTakeFirst();
}

/** Writes the person's slot for the service (when there is one), which locks it for the transaction. */
export async function touchSlot(db: Db, account: string, clientId: string, now: number): Promise<boolean> {
	const result = await db
		.updateTable("oidc_links")
		.set({ updated: now })
		.where("account", "=", account)
		.where("client_id", "=", clientId)
		.executeTakeFirst();
	return Number(result.numUpdatedRows) === 1;
}

/** The share in the person's slot for the service (it may have been deleted since). */
export async function slotLink(db: Db, account: string, clientId: string): Promise<string | undefined> {
	const slot = await db
		.selectFrom("oidc_links")
		.select("link")
		.where("account", "=", account)
		.where("client_id", "=", clientId)
		.executeTakeFirst();
	return slot?.link;
}

/** Claims the (person, service) slot for `link`: false when another sign-in claimed it first. */
export async function claimSignInLink(db: Db, account: string, clientId: string, link: string, now: number) {
	const result = await db
		.insertInto("oidc_links")
		.values({ account, client_id: clientId, link, updated: now })
		.onConflict((oc) => oc.columns(["account", "client_id"]).doNothing())
		.executeTakeFirst();
	return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Moves the slot from a share that no longer stands to a new one: false when another sign-in moved it first. */
export async function replaceSignInLink(
	db: Db,
	account: string,
	clientId: string,
	from: string,
	to: string,
	now: number,
): Promise<boolean> {
	const result = await db
		.updateTable("oidc_links")
		.set({ link: to, updated: now })
		.where("account", "=", account)
		.where("client_id", "=", clientId)
		.where("link", "=", from)
		.executeTakeFirst();
	return Number(result.numUpdatedRows) === 1;
}
