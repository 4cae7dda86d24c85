import type { Kysely } from "kysely";
import { FLAG, ID, notNull, pk, TIME } from "../columns.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("accounts")
		.addColumn("id", ID, pk)
		.addColumn("email", "varchar(320)", (c) => c.notNull().unique())
		.addColumn("name", "varchar(200)", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();

	await db.schema
		.createTable("workspaces")
		.addColumn("id", ID, pk)
		.addColumn("name", "varchar(200)", notNull)
		.addColumn("owner", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("personal", FLAG, (c) => c.notNull().defaultTo(0))
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.execute();
	await db.schema.createIndex("workspaces_owner").on("workspaces").column("owner").execute();

	await db.schema
		.createTable("members")
		.addColumn("id", ID, pk)
		.addColumn("workspace", ID, (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("role", "varchar(32)", notNull)
		.addColumn("created", TIME, notNull)
		.addColumn("updated", TIME, notNull)
		.addUniqueConstraint("members_workspace_account", ["workspace", "account"])
		.execute();
	await db.schema.createIndex("members_account").on("members").column("account").execute();

	await db.schema
		.createTable("sessions")
		.addColumn("id", ID, pk)
		.addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("created", TIME, notNull)
		.addColumn("expires", TIME, notNull)
		.addColumn("last_used", TIME, notNull)
		.execute();
	await db.schema.createIndex("sessions_account").on("sessions").column("account").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	for (const t of ["sessions", "members", "workspaces", "accounts"]) {
		await db.schema.dropTable(t).execute();
	}
}
