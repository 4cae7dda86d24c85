import type { Kysely } from "kysely";
import { ID, notNull, pk, TIME } from "../columns.ts";

// Attestations (spec "Attestation (`attestations` collection) and offer", "Status list"). The offer
// token is kept as a hash. Each attestation takes a random position in the status list when it is
// made; the position row has no foreign key, so the bit a revocation or a deletion sets outlives
// the attestation, its workspace and its issuer.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("status_entries")
		.addColumn("position", "integer", pk)
		.addColumn("attestation", ID)
		.addColumn("revoked", "integer", (c) => c.notNull().defaultTo(0))
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("status_entries_attestation")
		.on("status_entries")
		.column("attestation")
		.execute();

	await db.schema
		.createTable("attestations")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		.addColumn("type", "varchar(255)", notNull)
		// JSON object: name -> text, number or boolean. Never changed after creation.
		.addColumn("claims", "text", notNull)
		.addColumn("label", "varchar(200)", notNull)
		.addColumn("expires_at", TIME)
		.addColumn("offer_expires_at", TIME, notNull)
		// `offered`, `active`, `revoked`.
		.addColumn("status", "varchar(16)", notNull)
		.addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
		.addColumn("position", "integer", notNull)
		// Set by the offer (one identity only) or by the claim.
		.addColumn("subject_fingerprint", "varchar(64)")
		.addColumn("subject_domain", "varchar(253)")
		.addColumn("subject_name", "varchar(200)")
		// The holder's public key (JWK) the credential is bound to, and when it was first issued.
		.addColumn("subject_key", "text")
		.addColumn("issued_at", TIME)
		.addColumn("created_by", ID)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema.createIndex("attestations_workspace").on("attestations").column("workspace").execute();
	await db.schema.createIndex("attestations_created_by").on("attestations").column("created_by").execute();

	// (audience, nonce) pairs a key binding was accepted for: each verifies once.
	await db.schema
		.createTable("verify_nonces")
		.addColumn("hash", "varchar(64)", pk)
		.addColumn("expires", TIME, notNull)
		.execute();
	await db.schema.createIndex("verify_nonces_expires").on("verify_nonces").column("expires").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("verify_nonces").execute();
	await db.schema.dropTable("attestations").execute();
	await db.schema.dropTable("status_entries").execute();
}
