// The `passkeys` collection: the caller's own passkeys, read-only — name, created, last used, and
// never the credential id, public key or counter. Passkeys are added by a registration ceremony
// and removed with DELETE /api/passkeys/{id} (which keeps the last one). Sessions only.
import { sql } from "kysely";
import { Type } from "typebox";
import { iso, isoOrNull, Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";

export const Passkey = Type.Object(
	{
		id: Type.String(),
		name: Type.String(),
		created: Timestamp("When it was registered."),
		lastUsed: Nullable(Timestamp("Last sign-in with it."), "Null until first used to sign in."),
	},
	{
		$id: "Passkey",
		description: "One of the caller's passkeys (`passkeys` collection); never key material.",
	},
);

interface PasskeyRow {
	id: string;
	name: string;
	created: number;
	last_used: number | null;
}

const read = { scope: "passkey:read", apiKeys: false };

export const passkeysCollection = defineCollection<PasskeyRow, never, never>({
	name: "passkeys",
	description: "The caller's own passkeys, read-only. Sessions only.",
	schemas: { item: Passkey },
	query: {
		id: { type: "text", expr: sql.ref("passkeys.id"), sort: true },
		name: { type: "text", expr: sql.ref("passkeys.name"), sort: true },
		created: { type: "date", expr: sql.ref("passkeys.created"), sort: true },
		lastUsed: { type: "date", expr: sql.ref("passkeys.last_used"), nullable: true, sort: true },
	},
	defaultSort: "created",
	access: { list: read, view: read },
	refusals: {
		create: "Passkeys are added by a registration ceremony at /passkey.",
		update: "Passkeys cannot be changed through the collections API.",
		delete: "Remove a passkey with DELETE /api/passkeys/{id}.",
	},
	idColumn: "passkeys.id",
	// Only the columns the record shows are even selected.
	select: (db, caller) =>
		db
			.selectFrom("passkeys")
			.select(["passkeys.id", "passkeys.name", "passkeys.created", "passkeys.last_used"])
			.where("passkeys.account", "=", caller.accountId),
	toItem: (row) => ({
		id: row.id,
		name: row.name,
		created: iso(row.created),
		lastUsed: isoOrNull(row.last_used),
	}),
	handlers: {},
});
