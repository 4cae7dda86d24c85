// The `identities` collection: the active workspace's identities (spec "Identity certificate",
// "Identity standing"). Create certifies a device's public key; PATCH `{status: "revoked"}`
// revokes one-way; DELETE leaves a tombstone. Never anything private (no private half exists here).
// Reading takes `identity:read` (API keys with `identities:read` too); certifying and withdrawing
// are the person's own acts: sessions only.
import { sql } from "kysely";
import { Type } from "typebox";
import type { IdentityTable } from "../../db/schema.ts";
import { Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import {
	checkIdentityManager,
	createIdentity,
	deleteIdentity,
	identityRecord,
	setIdentityStatus,
} from "./service.ts";

export const Identity = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String({ description: "The workspace that issued it." }),
		name: Type.String({ description: "One line, 1 to 200 characters." }),
		fingerprint: Type.String({ description: "Lowercase hex SHA-256 of the key's SPKI DER." }),
		publicKey: Type.String({ description: "The certified public key, SPKI PEM." }),
		certificate: Type.String({ description: "X.509 certificate (PEM) issued by the server's CA." }),
		parentSignature: Type.String({ description: "Hex root key signature over the fingerprint." }),
		domainAtIssue: Type.String({ description: "The domain it was issued under." }),
		status: Type.Union([Type.Literal("active"), Type.Literal("revoked")], {
			description: "`revoked` is one-way.",
		}),
		created: Timestamp("Issue time."),
		updated: Timestamp("Time of the last change."),
		revokedAt: Nullable(Timestamp("When it was revoked."), "Null while active."),
	},
	{ $id: "Identity", description: "An identity of the workspace (`identities` collection)." },
);

const IdentityCreate = Type.Object(
	{
		name: Type.String({ minLength: 1, maxLength: 200 }),
		publicKey: Type.Union(
			[Type.String({ maxLength: 8192 }), Type.Object({}, { additionalProperties: true, maxProperties: 16 })],
			{
				description:
					'Public JWK `{"kty":"EC","crv":"P-256","x","y"}` as WebCrypto exports it, SPKI PEM, or base64 SPKI DER.',
			},
		),
	},
	{ additionalProperties: false },
);

const IdentityUpdate = Type.Object(
	{
		status: Type.Union([Type.Literal("active"), Type.Literal("revoked")], {
			description: "`revoked` revokes; `active` on a revoked identity is 409 `conflict`.",
		}),
	},
	{ additionalProperties: false },
);

const read = { scope: "identity:read", apiKeys: true };
const write = { scope: "identity:write", apiKeys: false };

/** What certifying needs: the root key and the domain it issues under. */
export interface IdentityDeps {
	rootKey: Parameters<typeof createIdentity>[1];
	domain: string;
}

export const identitiesCollection = defineCollection<
	IdentityTable,
	{ name: string; publicKey: unknown },
	{ status: "active" | "revoked" },
	IdentityDeps
>({
	name: "identities",
	description:
		"Identities of the active workspace: P-256 keys generated on a device and certified here. Revoking (`status: revoked`) is one-way; deleting leaves a tombstone so the status endpoint keeps answering `revoked`. Revoke and delete: the creator or an owner/admin. Writes are sessions only.",
	schemas: { item: Identity, create: IdentityCreate, update: IdentityUpdate },
	query: {
		id: { type: "text", expr: sql.ref("identities.id"), sort: true },
		name: { type: "text", expr: sql.ref("identities.name"), sort: true },
		fingerprint: { type: "text", expr: sql.ref("identities.fingerprint") },
		status: { type: "text", expr: sql.ref("identities.status"), sort: true },
		created: { type: "date", expr: sql.ref("identities.created"), sort: true },
		updated: { type: "date", expr: sql.ref("identities.updated"), sort: true },
	},
	defaultSort: "-created",
	access: { list: read, view: read, create: write, update: write, delete: write },
	idColumn: "identities.id",
	select: (db, caller) =>
		db
			.selectFrom("identities")
			.selectAll("identities")
			.where("identities.workspace", "=", caller.workspaceId),
	// The one mapper for an identity record, shared with the service (never the private half: none is held).
	toItem: identityRecord,
	handlers: {
		create: async ({ db, caller, now, rootKey, domain }, input) => {
			const made = await createIdentity(
				db,
				rootKey,
				{ domain },
				{
					workspaceId: caller.workspaceId,
					accountId: caller.accountId,
					name: input.name,
					publicKey: input.publicKey,
				},
				now,
			);
			return { id: made.id };
		},
		update: async ({ db, caller, now }, row, input) => {
			checkIdentityManager(caller, row);
			await setIdentityStatus(db, caller.workspaceId, row.id, input.status, now, caller.accountId);
		},
		delete: async ({ db, caller, now }, row) => {
			checkIdentityManager(caller, row);
			await deleteIdentity(db, caller.workspaceId, row.id, now);
		},
	},
});
