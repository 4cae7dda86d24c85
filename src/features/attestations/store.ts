// Kysely queries for attestations: the attestations themselves, their status-list positions, the
// (audience, nonce) pairs a verification spent, and the credentials people keep.
import type { Kysely, Transaction } from "kysely";
import type { AttestationTable, CredentialTable, Database } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

// ---- attestations (service.ts) ----

export function insertAttestation(db: Db, row: AttestationTable) {
	return db.insertInto("attestations").values(row).execute();
}

export function findAttestation(db: Db, id: string) {
	return db.selectFrom("attestations").selectAll().where("id", "=", id).executeTakeFirst();
}

export function attestationByTokenHash(db: Db, tokenHash: string) {
	return db.selectFrom("attestations").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
}

/** One-way: an attestation already revoked is left as it is. */
/** Revokes one attestation unless it already is; answers its status before, when this call revoked it. */
export async function markRevoked(db: Db, id: string, now: number) {
	const before = await db.selectFrom("attestations").select("status").where("id", "=", id).executeTakeFirst();
	const changed = await db
		.updateTable("attestations")
		.set({ status: "revoked", updated: now })
		.where("id", "=", id)
		.where("status", "=", before?.status ?? "revoked")
		.where("status", "!=", "revoked")
		.returningAll()
		.executeTakeFirst();
	return changed && before ? { ...changed, status: before.status } : undefined;
}

export function markAllRevoked(db: Db, ids: readonly string[], now: number) {
	return db
		.updateTable("attestations")
		.set({ status: "revoked", updated: now })
		.where("id", "in", [...ids])
		.execute();
}

export function deleteAttestation(db: Db, id: string) {
	return db.deleteFrom("attestations").where("id", "=", id).execute();
}

export async function idsInWorkspace(db: Db, workspaceId: string): Promise<string[]> {
	const rows = await db
		.selectFrom("attestations")
		.select("id")
		.where("workspace", "=", workspaceId)
		.execute();
	return rows.map((r) => r.id);
}

export async function idsCreatedBy(db: Db, accountId: string): Promise<string[]> {
	const rows = await db.selectFrom("attestations").select("id").where("created_by", "=", accountId).execute();
	return rows.map((r) => r.id);
}

/**
 * The offer becomes the holder's, in one conditional statement: still offered, and either for
 * anyone or for this fingerprint. The result says whether this statement won.
 */
export function bindHolder(
	db: Db,
	id: string,
	holder: Pick<AttestationTable, "subject_fingerprint" | "subject_domain" | "subject_name" | "subject_key">,
	now: number,
) {
	const fingerprint = holder.subject_fingerprint as string;
	return db
		.updateTable("attestations")
		.set({ status: "active", ...holder, issued_at: now, updated: now })
		.where("id", "=", id)
		.where("status", "=", "offered")
		.where((eb) =>
			eb.or([eb("subject_fingerprint", "is", null), eb("subject_fingerprint", "=", fingerprint)]),
		)
		.executeTakeFirst();
}

/** The workspace an offer is made in, as its subject sees it. */
export function offerWorkspace(db: Db, workspaceId: string) {
	return db
		.selectFrom("workspaces")
		.select(["id", "name"])
		.where("id", "=", workspaceId)
		.executeTakeFirstOrThrow();
}

// ---- the status list (status-list.ts) ----

export function listCounts(db: Db) {
	return db
		.selectFrom("status_entries")
		.select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.sum<number | null>("revoked").as("set")])
		.executeTakeFirstOrThrow();
}

/** True when the position was free and is now the attestation's. */
export async function claimPosition(db: Db, position: number, attestation: string, now: number) {
	const result = await db
		.insertInto("status_entries")
		.values({ position, attestation, revoked: 0, created: now, updated: now })
		.onConflict((oc) => oc.column("position").doNothing())
		.executeTakeFirst();
	return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function positionEntry(db: Db, position: number) {
	return db
		.selectFrom("status_entries")
		.select("revoked")
		.where("position", "=", position)
		.executeTakeFirst();
}

export function setBits(db: Db, attestations: readonly string[], now: number) {
	return db
		.updateTable("status_entries")
		.set({ revoked: 1, updated: now })
		.where("attestation", "in", [...attestations])
		.where("revoked", "=", 0)
		.execute();
}

export function setPositions(db: Db) {
	return db.selectFrom("status_entries").select("position").where("revoked", "=", 1).execute();
}

// ---- verification (routes.ts) ----

/** Forgets the pairs past their time, then spends this one: false when it was spent before. */
export async function spendVerifyNonce(db: Db, hash: string, now: number, expires: number): Promise<boolean> {
	await db.deleteFrom("verify_nonces").where("expires", "<=", now).execute();
	const result = await db
		.insertInto("verify_nonces")
		.values({ hash, expires })
		.onConflict((oc) => oc.column("hash").doNothing())
		.executeTakeFirst();
	return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

// ---- held credentials (held.ts, routes.ts) ----

/** Keeps the credential; accepting the same one again (identity, issuer, status) replaces the copy. */
export function upsertCredential(db: Db, row: CredentialTable, now: number) {
	return db
		.insertInto("credentials")
		.values(row)
		.onConflict((oc) =>
			oc.columns(["identity", "issuer", "status_ref"]).doUpdateSet({
				credential: row.credential,
				claims: row.claims,
				type: row.type,
				issued_at: row.issued_at,
				expires_at: row.expires_at,
				account: row.account,
				updated: now,
			}),
		)
		.execute();
}

export function credentialByRef(db: Db, ref: Pick<CredentialTable, "identity" | "issuer" | "status_ref">) {
	return db
		.selectFrom("credentials")
		.selectAll()
		.where("identity", "=", ref.identity)
		.where("issuer", "=", ref.issuer)
		.where("status_ref", "=", ref.status_ref)
		.executeTakeFirstOrThrow();
}

export function accountCredential(db: Db, accountId: string, id: string) {
	return db
		.selectFrom("credentials")
		.selectAll()
		.where("id", "=", id)
		.where("account", "=", accountId)
		.executeTakeFirst();
}

/** The credentials people on this server hold for one of this server's status-list positions. */
export function heldAt(db: Db, statusRef: string) {
	return db
		.selectFrom("credentials")
		.innerJoin("identities", "identities.id", "credentials.identity")
		.select(["credentials.id", "credentials.account", "credentials.type", "credentials.identity"])
		.select(["identities.workspace", "identities.name as identity_name"])
		.where("credentials.status_ref", "=", statusRef)
		.execute();
}
