// Kysely queries for connections, their tokens and the one-time answers an authorization leaves.
// Spending an answer is one conditional DELETE … RETURNING, so two nodes cannot both hand it out.
import type { Kysely, Transaction } from "kysely";
import type { ConnectionGrantTable, ConnectionTable, Database } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function findByClient(db: Db, workspaceId: string, clientId: string) {
	return db
		.selectFrom("connections")
		.selectAll()
		.where("workspace", "=", workspaceId)
		.where("client_id", "=", clientId)
		.executeTakeFirst();
}

export function findById(db: Db, id: string) {
	return db.selectFrom("connections").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findInWorkspace(db: Db, workspaceId: string, id: string) {
	return db
		.selectFrom("connections")
		.selectAll()
		.where("workspace", "=", workspaceId)
		.where("id", "=", id)
		.executeTakeFirst();
}

/** Inserts the connection unless the workspace already has one for the origin; answers whether it did. */
export async function insertIfAbsent(db: Db, row: ConnectionTable): Promise<boolean> {
	const result = await db
		.insertInto("connections")
		.values(row)
		.onConflict((oc) => oc.columns(["workspace", "client_id"]).doNothing())
		.executeTakeFirst();
	return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Renews a lapsed connection (expiry at or before `now`) only: answers whether this call did, so its
 * caller deletes the lapsed tokens exactly when the connection comes back.
 */
export async function renewIfLapsed(db: Db, id: string, changes: Partial<ConnectionTable>, now: number) {
	const row = await db
		.updateTable("connections")
		.set(changes)
		.where("id", "=", id)
		.where("expires_at", "<=", now)
		.returning("id")
		.executeTakeFirst();
	return row !== undefined;
}

export function updateConnection(db: Db, id: string, changes: Partial<ConnectionTable>) {
	return db.updateTable("connections").set(changes).where("id", "=", id).executeTakeFirst();
}

/** Sets a connection's permissions in the workspace; the values now, or undefined when not its. */
export function updatePermissions(
	db: Db,
	workspaceId: string,
	id: string,
	changes: Partial<ConnectionTable>,
) {
	return db
		.updateTable("connections")
		.set(changes)
		.where("id", "=", id)
		.where("workspace", "=", workspaceId)
		.returning(["allow_revoke", "allow_hand_over"])
		.executeTakeFirst();
}

export function deleteConnection(db: Db, id: string) {
	return db.deleteFrom("connections").where("id", "=", id).executeTakeFirst();
}

export function deleteTokens(db: Db, connectionId: string) {
	return db.deleteFrom("connection_tokens").where("connection", "=", connectionId).executeTakeFirst();
}

export function insertToken(db: Db, tokenHash: string, connectionId: string, now: number) {
	return db
		.insertInto("connection_tokens")
		.values({ token_hash: tokenHash, connection: connectionId, created: now })
		.execute();
}

/** The connection a token belongs to (lapsed or not), or undefined when no token matches. */
export function connectionByToken(db: Db, tokenHash: string) {
	return db
		.selectFrom("connection_tokens")
		.innerJoin("connections", "connections.id", "connection_tokens.connection")
		.selectAll("connections")
		.where("connection_tokens.token_hash", "=", tokenHash)
		.executeTakeFirst();
}

export function insertGrant(db: Db, row: ConnectionGrantTable) {
	return db.insertInto("connection_grants").values(row).execute();
}

/** A new poll answer replaces an older one for the same challenge (one answer per verifier). */
export function deletePollGrant(db: Db, challenge: string) {
	return db.deleteFrom("connection_grants").where("poll_challenge", "=", challenge).executeTakeFirst();
}

export function sweepGrants(db: Db, now: number) {
	return db.deleteFrom("connection_grants").where("expires", "<=", now).executeTakeFirst();
}

/** Spends an answer by its code on first presentation, right or wrong: the caller checks the rest. */
export function spendCode(db: Db, codeHash: string) {
	return db
		.deleteFrom("connection_grants")
		.where("code_hash", "=", codeHash)
		.returningAll()
		.executeTakeFirst();
}

/** Hands a poll answer out once: only to its tool's origin, only while it is kept. */
export function spendPoll(db: Db, challenge: string, origin: string, now: number) {
	return db
		.deleteFrom("connection_grants")
		.where("poll_challenge", "=", challenge)
		.where("client_id", "=", origin)
		.where("expires", ">", now)
		.returningAll()
		.executeTakeFirst();
}

/** A live poll answer for the challenge, whoever asks: to tell "not yours" from "not yet". */
export function findPoll(db: Db, challenge: string, now: number) {
	return db
		.selectFrom("connection_grants")
		.select(["client_id"])
		.where("poll_challenge", "=", challenge)
		.where("expires", ">", now)
		.executeTakeFirst();
}

/** Connections of a workspace with how many shares name each, for the owner's collection. */
export function selectConnections(db: Db, workspaceId: string) {
	return db
		.selectFrom("connections")
		.where("connections.workspace", "=", workspaceId)
		.selectAll("connections")
		.select((eb) =>
			eb
				.selectFrom("links")
				.select((e) => e.fn.countAll<number | string>().as("n"))
				.whereRef("links.connection", "=", "connections.id")
				.as("link_count"),
		);
}
