// The `attestations` collection (spec "Attestation (`attestations` collection) and offer"): the
// active workspace's attestations. Create needs ALLOW_ATTESTATIONS and `attestation:write` (the
// `attestations:issue` permission, administrators; an API key may carry it) and returns the
// one-time offer token in `X-Attestation-Token` only. What an attestation states never changes:
// PATCH takes `status: "revoked"` alone; DELETE revokes its credential for good too.
import { sql } from "kysely";
import { Type } from "typebox";
import type { AttestationTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { invalidField, Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import { createAttestation, deleteAttestation, revokeAttestation } from "./service.ts";

const ClaimValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const Attestation = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		type: Type.String({ description: "Up to 255 characters without spaces; the credential's `vct`." }),
		claims: Type.Record(Type.String(), ClaimValue, { description: "What it states; never changes." }),
		label: Type.String({ description: "Shown to the subject and in this list; not in the credential." }),
		expiresAt: Nullable(Timestamp("When the credential stops being valid."), "Null: valid until revoked."),
		offerExpiresAt: Timestamp("Until when the offer can be accepted."),
		subjectFingerprint: Nullable(
			Type.String(),
			"The one identity the offer is for, or the one that accepted it.",
		),
		subjectDomain: Nullable(Type.String(), "The server that issued the accepting identity."),
		subjectName: Nullable(Type.String(), "The accepting identity's name."),
		status: Type.Union([Type.Literal("offered"), Type.Literal("active"), Type.Literal("revoked")]),
		issuedAt: Nullable(Timestamp("When the credential was first issued."), "Null while offered."),
		created: Timestamp("Creation time."),
		updated: Timestamp("Time of the last change."),
	},
	{ $id: "Attestation", description: "An attestation of the workspace (`attestations` collection)." },
);

const AttestationCreate = Type.Object(
	{
		workspace: Type.String({ maxLength: 64, description: "The active workspace's id (required)." }),
		type: Type.String({ minLength: 1, maxLength: 255 }),
		claims: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
			maxProperties: 100,
			description:
				"Names of letters, digits and underscores; values text, number or boolean. Names the format sets (`iss`, `vct`, `iat`, `exp`, `cnf`, `status`, …) are refused.",
		}),
		label: Type.Optional(Type.String({ maxLength: 200 })),
		expiresAt: Type.Optional(Nullable(Type.String({ maxLength: 64 }), "ISO 8601 date-time in the future.")),
		offerExpiresAt: Type.Optional(Type.String({ maxLength: 64, description: "Default: 14 days from now." })),
		subjectFingerprint: Type.Optional(
			Type.String({ maxLength: 64, description: "Makes the offer for this identity only." }),
		),
	},
	{ additionalProperties: false },
);

const AttestationUpdate = Type.Object(
	{
		status: Type.Literal("revoked", {
			description: "Revokes: the status-list bit is set and stays set. Nothing else changes, ever.",
		}),
	},
	{ additionalProperties: false },
);

const rule = (scope: string) => ({ scope, apiKeys: true });

export function attestationRecord(row: AttestationTable) {
	const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
	return {
		id: row.id,
		workspace: row.workspace,
		type: row.type,
		claims: JSON.parse(row.claims) as Record<string, string | number | boolean>,
		label: row.label,
		expiresAt: iso(row.expires_at),
		offerExpiresAt: new Date(row.offer_expires_at).toISOString(),
		subjectFingerprint: row.subject_fingerprint,
		subjectDomain: row.subject_domain,
		subjectName: row.subject_name,
		status: row.status,
		issuedAt: iso(row.issued_at),
		created: new Date(row.created).toISOString(),
		updated: new Date(row.updated).toISOString(),
	};
}

type Create = {
	workspace: string;
	type: string;
	claims: Record<string, unknown>;
	label?: string;
	expiresAt?: string | null;
	offerExpiresAt?: string;
	subjectFingerprint?: string;
};

/** ALLOW_ATTESTATIONS: issuing (create) is refused without it. */
export interface AttestationDeps {
	allowAttestations: boolean;
	/** This server's status-list address (credential.ts `statusListUri`): revocation notices find holders by it. */
	statusList: string;
}

export const attestationsCollection = defineCollection<
	AttestationTable,
	Create,
	{ status: "revoked" },
	AttestationDeps
>({
	name: "attestations",
	description:
		"Attestations of the active workspace: statements about an identity, issued to it as SD-JWT VC credentials when it accepts the offer. Creating needs ALLOW_ATTESTATIONS and `attestations:issue`; the offer token is returned once, in `X-Attestation-Token`. Only `status: revoked` can be set; delete revokes too.",
	schemas: {
		item: Attestation,
		create: AttestationCreate,
		update: AttestationUpdate,
		createHeaders: {
			"X-Attestation-Token": Type.String({
				description:
					"The one-time offer token (43 base64url characters), shown this once; only its hash is kept.",
			}),
		},
	},
	query: {
		id: { type: "text", expr: sql.ref("attestations.id"), sort: true },
		type: { type: "text", expr: sql.ref("attestations.type"), sort: true },
		label: { type: "text", expr: sql.ref("attestations.label"), sort: true },
		status: { type: "text", expr: sql.ref("attestations.status"), sort: true },
		subjectFingerprint: { type: "text", expr: sql.ref("attestations.subject_fingerprint"), nullable: true },
		expiresAt: { type: "date", expr: sql.ref("attestations.expires_at"), nullable: true, sort: true },
		offerExpiresAt: { type: "date", expr: sql.ref("attestations.offer_expires_at"), sort: true },
		created: { type: "date", expr: sql.ref("attestations.created"), sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("attestation:read"),
		view: rule("attestation:read"),
		create: rule("attestation:write"),
		update: rule("attestation:write"),
		delete: rule("attestation:write"),
	},
	idColumn: "attestations.id",
	select: (db, caller) =>
		db
			.selectFrom("attestations")
			.selectAll("attestations")
			.where("attestations.workspace", "=", caller.workspaceId),
	toItem: (row) => attestationRecord(row),
	handlers: {
		create: async ({ db, caller, now, allowAttestations }, input) => {
			if (!allowAttestations) throw new AppError("attestations_disabled");
			if (input.workspace !== caller.workspaceId) {
				throw invalidField("workspace", "must be the active workspace's id");
			}
			const { id, token } = await createAttestation(
				db,
				{ ...input, workspace: caller.workspaceId, createdBy: caller.accountId },
				now,
			);
			return { id, headers: { "x-attestation-token": token, "cache-control": "no-store" } };
		},
		update: ({ db, now, statusList }, row) => revokeAttestation(db, row.id, now, statusList),
		delete: ({ db, now, statusList }, row) => deleteAttestation(db, row.id, now, statusList),
	},
});
