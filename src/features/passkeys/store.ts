// Kysely queries for passkeys and their one-time artefacts. Spending is always one conditional
// DELETE ... RETURNING, so two nodes presenting the same secret cannot both win.
import type { Kysely, Transaction } from "kysely";
import type {
	Database,
	PasskeyCeremonyTable,
	PasskeyCodeTable,
	PasskeyTable,
	PasskeyTicketTable,
} from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertCeremony(db: Db, row: PasskeyCeremonyTable) {
	return db.insertInto("passkey_ceremonies").values(row).execute();
}

/** Answers a ceremony once: removes it and returns it only if it is of `kind` and still live. */
export function spendCeremony(db: Db, hash: string, kind: PasskeyCeremonyTable["kind"], now: number) {
	return db
		.deleteFrom("passkey_ceremonies")
		.where("hash", "=", hash)
		.where("kind", "=", kind)
		.where("expires", ">", now)
		.returningAll()
		.executeTakeFirst();
}

/** Ceremonies name their account without a foreign key, so they do not cascade with it. */
export function deleteAccountCeremonies(db: Db, accountId: string) {
	return db.deleteFrom("passkey_ceremonies").where("account", "=", accountId).execute();
}

export function sweepCeremonies(db: Db, now: number) {
	return db.deleteFrom("passkey_ceremonies").where("expires", "<=", now).execute();
}

export function insertCode(db: Db, row: PasskeyCodeTable) {
	return db.insertInto("passkey_codes").values(row).execute();
}

/** Spends a code on first presentation, right or wrong: the caller checks expiry and verifier after. */
export function spendCode(db: Db, hash: string) {
	return db.deleteFrom("passkey_codes").where("hash", "=", hash).returningAll().executeTakeFirst();
}

export function sweepCodes(db: Db, now: number) {
	return db.deleteFrom("passkey_codes").where("expires", "<=", now).execute();
}

export function insertTicket(db: Db, row: PasskeyTicketTable) {
	return db.insertInto("passkey_tickets").values(row).execute();
}

export function findLiveTicket(db: Db, hash: string, now: number) {
	return db
		.selectFrom("passkey_tickets")
		.selectAll()
		.where("hash", "=", hash)
		.where("expires", ">", now)
		.executeTakeFirst();
}

export function spendTicket(db: Db, hash: string, now: number) {
	return db
		.deleteFrom("passkey_tickets")
		.where("hash", "=", hash)
		.where("expires", ">", now)
		.returningAll()
		.executeTakeFirst();
}

export function sweepTickets(db: Db, now: number) {
	return db.deleteFrom("passkey_tickets").where("expires", "<=", now).execute();
}

export function insertPasskey(db: Db, row: PasskeyTable) {
	return db.insertInto("passkeys").values(row).execute();
}

export function findPasskeyByCredentialId(db: Db, credentialId: string) {
	return db.selectFrom("passkeys").selectAll().where("credential_id", "=", credentialId).executeTakeFirst();
}

export function listCredentialIds(db: Db, accountId: string) {
	return db
		.selectFrom("passkeys")
		.select(["credential_id", "transports"])
		.where("account", "=", accountId)
		.execute();
}

/** Records a successful assertion; the counter only moves forward. */
export function markUsed(db: Db, id: string, counter: number, now: number) {
	return db
		.updateTable("passkeys")
		.set({ counter, last_used: now, updated: now })
		.where("id", "=", id)
		.execute();
}

export function passkeyOwner(db: Db, id: string) {
	return db.selectFrom("passkeys").select(["id", "account"]).where("id", "=", id).executeTakeFirst();
}

export async function countPasskeys(db: Db, accountId: string): Promise<number> {
	const row = await db
		.selectFrom("passkeys")
		.select((eb) => eb.fn.countAll<string | number>().as("n"))
		.where("account", "=", accountId)
		.executeTakeFirstOrThrow();
	return Number(row.n);
}

export function deletePasskey(db: Db, id: string, accountId: string) {
	return db.deleteFrom("passkeys").where("id", "=", id).where("account", "=", accountId).executeTakeFirst();
}

export function accountExists(db: Db, id: string) {
	return db.selectFrom("accounts").select("id").where("id", "=", id).executeTakeFirst();
}
