import type { Kysely } from "kysely";
import { ID, notNull, pk, TIME } from "../columns.ts";

// Grant events for another server (spec "Grants between servers", "Retry rules for events"): one
// row per event about a grant handed to a peer, queued in the transaction of the change and sent
// by the outbox worker in signed batches, all due events of one peer together. No foreign key to
// the link: a deleted grant's `grant.revoked` must outlive it.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("peer_events")
		.addColumn("id", ID, pk)
		// The receiving server's domain.
		.addColumn("peer", "varchar(253)", notNull)
		// The grant (the link's id) and the request it answers there.
		.addColumn("grant_id", ID, notNull)
		.addColumn("request_slug", "varchar(128)")
		// `grant.changed`, `grant.revoked`, `grant.expired`, and the grant's status after it.
		.addColumn("event", "varchar(32)", notNull)
		.addColumn("status", "varchar(16)", notNull)
		// When it happened (ms): with the grant it identifies the event at the receiver.
		.addColumn("at", TIME, notNull)
		// `pending`, `sending` (claimed under a lease), `delivered`, `failed`.
		.addColumn("state", "varchar(16)", notNull)
		.addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
		.addColumn("next_attempt", TIME, notNull)
		.addColumn("lease", "varchar(64)")
		.addColumn("lease_until", TIME)
		.addColumn("last_status", "integer")
		.addColumn("last_error", "varchar(500)")
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("peer_events_due")
		.on("peer_events")
		.columns(["state", "next_attempt"])
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("peer_events").execute();
}
