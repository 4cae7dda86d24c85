// The `credentials` collection (spec "Held credential"): what the person's identities accepted,
// readable by that person alone; an API key never reaches it. Kept by `POST /api/credentials/claim`;
// deleting forgets the kept copy (the attester's record and status are untouched).
import { sql } from "kysely";
import { Type } from "typebox";
import type { CredentialTable } from "../../db/schema.ts";
import { Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import { type CredentialClaimer, credentialRecord, type HeldClaimInput } from "./held.ts";

export const Credential = Type.Object(
	{
		id: Type.String(),
		issuer: Type.String({ description: "The attesting domain." }),
		type: Type.String({ description: "The credential's `vct`." }),
		identity: Type.String({ description: "The identity it is bound to." }),
		credential: Type.String({
			description: "The SD-JWT with every disclosure (`<issuer JWT>~<disclosure>~…~`).",
		}),
		claims: Type.Record(Type.String(), Type.Unknown(), { description: "Every claim it states." }),
		issuedAt: Timestamp("When the attester issued it."),
		expiresAt: Nullable(Timestamp("When it stops being valid."), "Null: valid until revoked."),
	},
	{ $id: "Credential", description: "A credential one of your identities holds (`credentials` collection)." },
);

const rule = (scope: string) => ({ scope, apiKeys: false });

const CredentialCreate = Type.Object(
	{
		origin: Type.Optional(
			Type.String({ maxLength: 300, description: "The offer server (left out: this one)." }),
		),
		token: Type.String({ minLength: 1, maxLength: 128, description: "The offer token." }),
		identityId: Type.String({
			minLength: 1,
			maxLength: 64,
			description: "One of the active workspace's identities.",
		}),
		challengeNonce: Type.String({ minLength: 1, maxLength: 200 }),
		challengeSignature: Type.String({ minLength: 1, maxLength: 400 }),
	},
	{ additionalProperties: false, description: "The same body and checks as POST /api/credentials/claim." },
);

/** Accepting an offer (create), as POST /api/credentials/claim does it. */
export interface HeldDeps {
	credentialClaim: CredentialClaimer;
}

export const credentialsCollection = defineCollection<CredentialTable, HeldClaimInput, never, HeldDeps>({
	name: "credentials",
	description:
		"Credentials your identities accepted, from this server or another: yours alone, never an API key's. Create accepts an offer exactly as `POST /api/credentials/claim` does (same body, checks and refusals); delete forgets the copy.",
	schemas: { item: Credential, create: CredentialCreate },
	query: {
		id: { type: "text", expr: sql.ref("credentials.id"), sort: true },
		issuer: { type: "text", expr: sql.ref("credentials.issuer"), sort: true },
		type: { type: "text", expr: sql.ref("credentials.type"), sort: true },
		identity: { type: "text", expr: sql.ref("credentials.identity") },
		issuedAt: { type: "date", expr: sql.ref("credentials.issued_at"), sort: true },
		expiresAt: { type: "date", expr: sql.ref("credentials.expires_at"), nullable: true, sort: true },
	},
	defaultSort: "-issuedAt",
	access: {
		list: rule("credential:read"),
		view: rule("credential:read"),
		create: rule("credential:write"),
		delete: rule("credential:write"),
	},
	refusals: {
		update: "A credential is what its attester signed: accept the offer again to replace it.",
	},
	idColumn: "credentials.id",
	select: (db, caller) =>
		db.selectFrom("credentials").selectAll("credentials").where("credentials.account", "=", caller.accountId),
	toItem: (row) => credentialRecord(row),
	handlers: {
		create: async ({ caller, credentialClaim }, input) => {
			if (!credentialClaim.claim) throw new Error("the attestations plugin is not registered");
			const row = await credentialClaim.claim(caller, input);
			return { id: row.id, headers: { "cache-control": "no-store" } };
		},
		delete: async ({ db, caller }, row) => {
			await db
				.deleteFrom("credentials")
				.where("id", "=", row.id)
				.where("account", "=", caller.accountId)
				.execute();
		},
	},
});
