import type { Kysely } from "kysely";
import { ID, notNull, TIME } from "../columns.ts";

// Workspaces with several members (docs/api.md "Members and invitations"): an invitation is a
// one-time link kept as the SHA-256 of its token. Its row stays after it is accepted or revoked so
// a second presentation is told which (`invitation_used`, `invitation_revoked`); rows go with the
// workspace. A passkey sign-up begun from an invitation remembers it on the ceremony.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("invitations")
		.addColumn("id", ID, (c) => c.primaryKey().notNull())
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		.addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
		.addColumn("email", "varchar(320)", notNull)
		.addColumn("role", "varchar(32)", notNull)
		// `open`, `accepted` or `revoked`; open and past `expires_at` reads as expired.
		.addColumn("status", "varchar(16)", notNull)
		.addColumn("invited_by", ID, (c) => c.references("accounts.id").onDelete("set null"))
		.addColumn("accepted_by", ID, (c) => c.references("accounts.id").onDelete("set null"))
		.addColumn("expires_at", TIME, notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema
		.createIndex("invitations_workspace")
		.on("invitations")
		.columns(["workspace", "status"])
		.execute();
	// Counting a workspace's owners (the last-owner rule) reads this index.
	await db.schema
		.createIndex("members_workspace_role")
		.on("members")
		.columns(["workspace", "role"])
		.execute();
	await db.schema.alterTable("passkey_ceremonies").addColumn("invitation_hash", "varchar(64)").execute();
}
