import type { Kysely } from "kysely";
import { notNull, TIME } from "../columns.ts";

// The server's keys (root/CA key now; OIDC and credential keys later) live in the database so
// every node of a cluster signs with the same key.
export async function up(db: Kysely<unknown>): Promise<void> {
	await db.schema
		.createTable("server_keys")
		.addColumn("name", "varchar(64)", (c) => c.primaryKey().notNull())
		.addColumn("private_pem", "text", notNull)
		.addColumn("public_pem", "text", notNull)
		.addColumn("certificate_pem", "text")
		.addColumn("created", TIME, notNull)
		.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
	await db.schema.dropTable("server_keys").execute();
}
