import type { Kysely } from "kysely";
import { FLAG, ID, notNull, TIME } from "../columns.ts";

// Per-kind notice settings of an account (issue 40 item 8): a row only for a kind the person
// changed; without one, an in-app notice of that kind is raised (the default).
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("notification_settings")
		.addColumn("account", ID, (c) => c.notNull().references("accounts.id").onDelete("cascade"))
		.addColumn("kind", "varchar(64)", notNull)
		.addColumn("in_app", FLAG, notNull)
		.addColumn("updated", TIME, notNull)
		.addPrimaryKeyConstraint("notification_settings_pk", ["account", "kind"])
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("notification_settings").execute();
}
