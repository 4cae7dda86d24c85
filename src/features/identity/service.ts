// Identities (spec "Identity certificate", "Identity standing"): a P-256 key generated on the
// owner's device, certified by the root key. Revocation is one-way; deletion leaves a tombstone so
// the status endpoint keeps answering `revoked`, never `unknown`, for a withdrawn identity.
import crypto from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { Config } from "../../config.ts";
import type { Database, IdentityTable } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { seconds } from "../../lib/clock.ts";
import { newId, rsaSignHex, type SignedEnvelope, signEnvelope, spkiFingerprint } from "../../lib/crypto.ts";
import { KeyFormatError, parseP256PublicKey } from "../../lib/p256.ts";
import { hasScope } from "../../lib/scopes.ts";
import type { RootKey } from "../server/service.ts";
import { issueCertificate } from "./certificate.ts";
import { notifyIdentityRevoked } from "./notices.ts";
import { FINGERPRINT, STATUS_TYPE, type Standing } from "./standing.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** Seconds a signed status answer is valid, and so cacheable (docs/api.md "Identities and standing"). */
export const STATUS_TTL_SECONDS = 300;
export { FINGERPRINT, STATUS_TYPE, type Standing } from "./standing.ts";
/** Another server's word on its identities, for the features that meet them (attestations, grants). */
export { fetchPeerStanding, verifyPeerIdentity } from "./trust.ts";

export interface IdentityRecord {
	id: string;
	workspace: string;
	name: string;
	fingerprint: string;
	publicKey: string;
	certificate: string;
	parentSignature: string;
	domainAtIssue: string;
	status: "active" | "revoked";
	created: string;
	updated: string;
	revokedAt: string | null;
}

export function identityRecord(row: IdentityTable): IdentityRecord {
	return {
		id: row.id,
		workspace: row.workspace,
		name: row.name,
		fingerprint: row.fingerprint,
		publicKey: row.public_key,
		certificate: row.certificate,
		parentSignature: row.parent_signature,
		domainAtIssue: row.domain_at_issue,
		status: row.status,
		created: new Date(row.created).toISOString(),
		updated: new Date(row.updated).toISOString(),
		revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
	};
}

/** The public view at `GET /api/certificate/{id}`. */
export function certificateView(row: IdentityTable) {
	return {
		id: row.id,
		name: row.name,
		certificate: row.certificate,
		fingerprint: row.fingerprint,
		parentSignature: row.parent_signature,
		domainAtIssue: row.domain_at_issue,
	};
}

export interface NewIdentity {
	workspaceId: string;
	accountId: string;
	name: string;
	/** Public JWK `{kty:"EC", crv:"P-256", x, y}`, SPKI PEM, or base64 SPKI DER. */
	publicKey: unknown;
}

function parseKey(input: unknown): crypto.KeyObject {
	try {
		return parseP256PublicKey(input);
	} catch (err) {
		if (err instanceof KeyFormatError) {
			throw new AppError("validation_failed", `publicKey: ${err.message}`, {
				extra: { field: "body.publicKey" },
			});
		}
		throw err;
	}
}

/** Certifies a device key: X.509 by the CA, fingerprint, and the root key's signature over it. */
export async function createIdentity(
	db: Db,
	rootKey: RootKey,
	config: Pick<Config, "domain">,
	input: NewIdentity,
	now: number,
): Promise<IdentityRecord> {
	const name = typeof input.name === "string" ? input.name.trim() : "";
	if (name.length < 1 || name.length > 200 || /\p{Cc}/u.test(name)) {
		throw new AppError("validation_failed", "name must be one line of 1 to 200 characters", {
			extra: { field: "body.name" },
		});
	}
	const key = parseKey(input.publicKey);
	const fingerprint = spkiFingerprint(key);
	// A key once withdrawn stays withdrawn: reusing it would flip a published `revoked` back.
	if (await store.findTombstone(db, fingerprint)) {
		throw new AppError("conflict", "This key belonged to a deleted identity; generate a new key");
	}
	if (await store.findIdentityByFingerprint(db, fingerprint)) {
		throw new AppError("conflict", "An identity with this key exists");
	}
	const spki = key.export({ type: "spki", format: "der" });
	const row: IdentityTable = {
		id: newId(),
		workspace: input.workspaceId,
		account: input.accountId,
		name,
		public_key: key.export({ type: "spki", format: "pem" }).toString(),
		fingerprint,
		certificate: await issueCertificate(rootKey, { name, spki }, now),
		parent_signature: rsaSignHex(rootKey.privateKey, fingerprint),
		domain_at_issue: config.domain,
		status: "active",
		created: now,
		updated: now,
		revoked_at: null,
	};
	try {
		await store.insertIdentity(db, row);
	} catch (err) {
		// Two requests with the same key: the unique fingerprint lets one win.
		if (await store.findIdentityByFingerprint(db, fingerprint)) {
			throw new AppError("conflict", "An identity with this key exists");
		}
		throw err;
	}
	return identityRecord(row);
}

/** active -> revoked. Idempotent for an identity already revoked; never back (spec standing table). */
export async function revokeIdentity(
	db: Db,
	workspaceId: string,
	id: string,
	now: number,
	by?: string,
): Promise<IdentityRecord> {
	const revoked = await store.revokeIdentity(db, workspaceId, id, now);
	// Only the call that revoked it tells the owner (the UPDATE is conditional on `active`).
	if (revoked) await notifyIdentityRevoked(db, revoked, by ?? null, now);
	const row = revoked ?? (await store.findIdentityInWorkspace(db, workspaceId, id));
	if (!row) throw new AppError("not_found");
	return identityRecord(row);
}

/**
 * Who may revoke or delete an identity: its creator, or a holder of `member:*` (owners and admins),
 * as for API keys. Others see it (identity:read) but are refused with 403.
 */
export function checkIdentityManager(
	caller: Pick<AccountCaller, "accountId" | "scopes">,
	row: Pick<IdentityTable, "account">,
): void {
	if (row.account === caller.accountId || hasScope(caller.scopes, "member:*")) return;
	throw new AppError(
		"forbidden",
		"Only its creator or a workspace administrator may withdraw this identity",
		{
			extra: { scope: "member:write" },
		},
	);
}

/** The status change a PATCH may ask for: only towards `revoked`. */
export async function setIdentityStatus(
	db: Db,
	workspaceId: string,
	id: string,
	status: string,
	now: number,
	by?: string,
): Promise<IdentityRecord> {
	if (status === "revoked") return revokeIdentity(db, workspaceId, id, now, by);
	const row = await store.findIdentityInWorkspace(db, workspaceId, id);
	if (!row) throw new AppError("not_found");
	if (status !== "active") {
		throw new AppError("validation_failed", "status must be active or revoked", {
			extra: { field: "body.status" },
		});
	}
	if (row.status === "revoked") {
		throw new AppError(
			"conflict",
			"A revoked identity cannot be made active again: its revocation is published",
		);
	}
	return identityRecord(row);
}

/** Deletes an identity and leaves a tombstone so its standing stays `revoked`. */
export async function deleteIdentity(db: Kysely<Database>, workspaceId: string, id: string, now: number) {
	const deleted = await db
		.transaction()
		.execute((trx) => store.tombstoneAndDelete(trx, { workspace: workspaceId, id }, now));
	if (deleted === 0) throw new AppError("not_found");
}

/**
 * For workspace deletion, registered as a workspace-deleted hook (routes.ts): runs inside that
 * transaction before the workspace row goes. The identities table has no cascade from workspaces,
 * so a deletion path that skips it fails loudly instead of losing the tombstones.
 */
export function tombstoneWorkspaceIdentities(trx: Db, workspaceId: string, now: number): Promise<number> {
	return store.tombstoneAndDelete(trx, { workspace: workspaceId }, now);
}

/**
 * The `identity` relation on records: the identity must belong to the caller's workspace. A foreign
 * identity is refused exactly like a missing one.
 */
export async function checkIdentityOwnership(
	db: Db,
	caller: Pick<AccountCaller, "workspaceId">,
	identityId: string,
): Promise<IdentityRecord> {
	const row = await store.findIdentityInWorkspace(db, caller.workspaceId, identityId);
	if (!row) {
		throw new AppError("validation_failed", "identity: no such identity in this workspace", {
			extra: { field: "body.identity" },
		});
	}
	return identityRecord(row);
}

/** The workspace's identity with this id; another workspace's answers like a missing one. */
export function workspaceIdentity(db: Db, workspaceId: string, identityId: string) {
	return store.findIdentityInWorkspace(db, workspaceId, identityId);
}

/** The identity of this server with this key fingerprint, if any (an attestation's claimer). */
export function identityByFingerprint(db: Db, fingerprint: string) {
	return store.findIdentityByFingerprint(db, fingerprint);
}

/** Whether the identity is one of the workspace's (an answer's share names only its own identities). */
export async function isWorkspaceIdentity(db: Db, workspaceId: string, identityId: string): Promise<boolean> {
	return (await store.findIdentityInWorkspace(db, workspaceId, identityId)) !== undefined;
}

export async function standingOf(db: Db, fingerprint: string): Promise<Standing> {
	if (await store.findTombstone(db, fingerprint)) return "revoked";
	const row = await store.findIdentityByFingerprint(db, fingerprint);
	return row ? row.status : "unknown";
}

/** The signed answer at `GET /api/identities/{fingerprint}/status`. */
export async function statusAssertion(
	db: Db,
	rootKey: RootKey,
	domain: string,
	fingerprint: string,
	now: number,
): Promise<{ envelope: SignedEnvelope; iat: number; exp: number }> {
	if (!FINGERPRINT.test(fingerprint)) throw new AppError("identity_fingerprint_invalid");
	const status = await standingOf(db, fingerprint);
	const iat = seconds(now);
	const exp = iat + STATUS_TTL_SECONDS;
	const envelope = signEnvelope(rootKey.privateKey, STATUS_TYPE, { fingerprint, status, domain, iat, exp });
	return { envelope, iat, exp };
}

export interface Signer {
	key: crypto.KeyObject;
	fingerprint: string;
	/** Set when the key is an identity of this server. */
	identity?: { id: string; fingerprint: string; name: string };
	standing: Standing;
}

/**
 * The key a challenge answer must verify against: an identity of this server by id, or a public
 * key handed over (an identity of another server, whose standing the caller asks its server for).
 */
export async function challengeSigner(
	db: Db,
	ref: { identityId?: string; publicKey?: unknown },
): Promise<Signer> {
	if (ref.publicKey !== undefined) {
		const key = parseKey(ref.publicKey);
		const fingerprint = spkiFingerprint(key);
		const row = await store.findIdentityByFingerprint(db, fingerprint);
		const standing = await standingOf(db, fingerprint);
		return {
			key,
			fingerprint,
			standing,
			...(row ? { identity: { id: row.id, fingerprint, name: row.name } } : {}),
		};
	}
	const row = ref.identityId === undefined ? undefined : await store.findIdentity(db, ref.identityId);
	if (!row) {
		if (ref.identityId !== undefined && (await store.findTombstoneById(db, ref.identityId))) {
			throw new AppError("identity_revoked", "The identity was deleted");
		}
		throw new AppError("signature_invalid", "No identity with this id to verify the signature against");
	}
	return {
		key: crypto.createPublicKey(row.public_key),
		fingerprint: row.fingerprint,
		identity: { id: row.id, fingerprint: row.fingerprint, name: row.name },
		standing: row.status,
	};
}
