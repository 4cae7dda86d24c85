// Attestations (spec "Attestation", "Attestations" endpoints and claim rules): an administrator's
// workspace states claims about an identity; the offer is a one-time token (only its hash kept);
// the identity that claims it (a challenge signed with its key, and its issuing server's word on
// it) receives an SD-JWT VC bound to its key. What an attestation states never changes; revoking
// sets its status-list bit for good, and so do deleting it, its workspace or its issuer's account.
import crypto from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { AttestationTable, Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { PEER_UNREACHABLE, type PeerOptions } from "../../lib/peer.ts";
import { spendNonce, verifyChallenge } from "../challenges/service.ts";
import { invalidField, parseExpiry } from "../collections/fields.ts";
import { fetchPeerStanding, identityByFingerprint, verifyPeerIdentity } from "../identity/service.ts";
import type { KeyRing } from "../server/service.ts";
import { type ClaimValue, issueCredential } from "./credential.ts";
import { notifyCredentialRevoked } from "./notices.ts";
import { revokePositions, takePosition } from "./status-list.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

const DAY = 86_400_000;
export const OFFER_TTL_MS = 14 * DAY;
export const MAX_CLAIMS = 100;
const TYPE = /^[^\s]{1,255}$/;
const CLAIM_NAME = /^[A-Za-z0-9_]{1,64}$/;
/** Names the credential format sets itself (SD-JWT, SD-JWT VC, JWT, Token Status List, ours). */
export const RESERVED = new Set([
	"iss",
	"sub",
	"aud",
	"exp",
	"nbf",
	"iat",
	"jti",
	"vct",
	"vct_integrity",
	"cnf",
	"status",
	"svc_holder",
	"_sd",
	"_sd_alg",
	"sd_hash",
]);

export type { ClaimValue } from "./credential.ts";
/** The status-list reader's cache, measured by bench/status-list.ts. */
export { StatusListCache } from "./status-list-reader.ts";

export interface AttestationInput {
	workspace: string;
	type: string;
	claims: Record<string, unknown>;
	label?: string | undefined;
	expiresAt?: string | null | undefined;
	offerExpiresAt?: string | undefined;
	subjectFingerprint?: string | undefined;
}

/** The claims as the credential will carry them, else `validation_failed` naming the claim. */
export function checkClaims(claims: Record<string, unknown>): Record<string, ClaimValue> {
	const names = Object.keys(claims);
	if (names.length === 0) throw invalidField("claims", "must name at least one claim");
	if (names.length > MAX_CLAIMS) throw invalidField("claims", `may name at most ${MAX_CLAIMS} claims`);
	const out: Record<string, ClaimValue> = {};
	for (const name of names) {
		if (!CLAIM_NAME.test(name))
			throw invalidField(`claims.${name}`, "names are letters, digits and underscores");
		if (RESERVED.has(name)) throw invalidField(`claims.${name}`, "is set by the credential format itself");
		const value = claims[name];
		if (typeof value === "string") {
			if (value.length > 2000) throw invalidField(`claims.${name}`, "is longer than 2000 characters");
		} else if (typeof value === "number") {
			if (!Number.isFinite(value)) throw invalidField(`claims.${name}`, "must be a finite number");
		} else if (typeof value !== "boolean") {
			throw invalidField(`claims.${name}`, "must be text, a number or a boolean");
		}
		out[name] = value;
	}
	return out;
}

export async function createAttestation(
	db: Kysely<Database>,
	input: AttestationInput & { createdBy: string },
	now: number,
): Promise<{ id: string; token: string }> {
	if (!TYPE.test(input.type)) throw invalidField("type", "is 1 to 255 characters without spaces");
	const claims = checkClaims(input.claims);
	const expiresAt =
		input.expiresAt === undefined || input.expiresAt === null ? null : parseExpiry(input.expiresAt, now);
	const offerExpiresAt =
		input.offerExpiresAt === undefined
			? now + OFFER_TTL_MS
			: parseExpiry(input.offerExpiresAt, now, "offerExpiresAt");
	const subject = input.subjectFingerprint?.toLowerCase();
	if (subject !== undefined && !/^[0-9a-f]{64}$/.test(subject)) {
		throw invalidField("subjectFingerprint", "must be a lowercase hex SHA-256 fingerprint");
	}
	const token = randomToken(32);
	const id = newId();
	await db.transaction().execute(async (trx) => {
		const position = await takePosition(trx, id, now);
		await store.insertAttestation(trx, {
			id,
			workspace: input.workspace,
			type: input.type,
			claims: JSON.stringify(claims),
			label: input.label ?? "",
			expires_at: expiresAt,
			offer_expires_at: offerExpiresAt,
			status: "offered",
			token_hash: sha256Hex(token),
			position,
			subject_fingerprint: subject ?? null,
			subject_domain: null,
			subject_name: null,
			subject_key: null,
			issued_at: null,
			created_by: input.createdBy,
			created: now,
			updated: now,
		});
	});
	return { id, token };
}

/**
 * PATCH `status: revoked`: one-way; revoking again changes nothing. `statusList` is this server's
 * status-list address: the credentials held here for it are found by it.
 */
export async function revokeAttestation(db: Db, id: string, now: number, statusList: string): Promise<void> {
	await db.transaction().execute(async (trx) => {
		const before = await store.markRevoked(trx, id, now);
		await revokePositions(trx, [id], now);
		if (before) await notifyCredentialRevoked(trx, before, statusList, now);
	});
}

export async function deleteAttestation(db: Db, id: string, now: number, statusList: string): Promise<void> {
	await db.transaction().execute(async (trx) => {
		const before = await store.markRevoked(trx, id, now);
		await revokePositions(trx, [id], now);
		if (before) await notifyCredentialRevoked(trx, before, statusList, now);
		await store.deleteAttestation(trx, id);
	});
}

/** The workspace goes (its attestations cascade): their bits are set first. */
export async function onWorkspaceDeleted(trx: Transaction<Database>, workspaceId: string, now: number) {
	await revokePositions(trx, await store.idsInWorkspace(trx, workspaceId), now);
}

/** The issuer's account goes: what it issued in any workspace is revoked. */
export async function onAccountDeleted(trx: Transaction<Database>, accountId: string, now: number) {
	const ids = await store.idsCreatedBy(trx, accountId);
	if (ids.length === 0) return;
	await store.markAllRevoked(trx, ids, now);
	await revokePositions(trx, ids, now);
}

export function attestationByToken(db: Db, token: string) {
	return store.attestationByTokenHash(db, sha256Hex(token));
}

/** The offer as a subject may see it: 404 unknown; 410 revoked, or past the offer's date. */
export function openOffer(row: AttestationTable | undefined, now: number): AttestationTable {
	if (!row) throw new AppError("not_found", "No such offer");
	if (row.status === "revoked") throw new AppError("attestation_offer_revoked");
	if (row.offer_expires_at <= now) throw new AppError("attestation_offer_expired");
	return row;
}

export interface ClaimInput {
	identity: {
		id?: string | undefined;
		fingerprint: string;
		certificate: string;
		parentSignature: string;
		domainAtIssue?: string | undefined;
		name?: string | undefined;
	};
	challengeNonce?: string | undefined;
	challengeSignature?: string | undefined;
}

export interface ClaimDeps {
	db: Kysely<Database>;
	domain: string;
	peer: PeerOptions;
	now: number;
}

export interface Holder {
	fingerprint: string;
	domain: string;
	name: string;
	/** The public JWK the credential is bound to. */
	jwk: crypto.JsonWebKey;
}

/**
 * The identity that claims: it signed this offer's challenge, and its issuing server vouches for
 * it (this server's own records for one issued here). Answers the holder to bind the credential to.
 */
export async function proveHolder(deps: ClaimDeps, token: string, input: ClaimInput): Promise<Holder> {
	const { db, now } = deps;
	const identity = input.identity;
	const domain = (identity.domainAtIssue ?? deps.domain).toLowerCase();
	let key: crypto.KeyObject;
	let name = identity.name ?? "";
	if (domain === deps.domain) {
		const row = await identityByFingerprint(db, identity.fingerprint);
		if (!row || row.certificate.trim() !== identity.certificate.trim() || row.status !== "active") {
			// The nonce is spent on first presentation, right or wrong (spec "One-time artefacts").
			if (input.challengeNonce) await spendNonce(db, input.challengeNonce);
			if (!row || row.certificate.trim() !== identity.certificate.trim()) {
				throw new AppError("remote_identity_invalid", "This server issued no such identity");
			}
			throw new AppError("identity_revoked");
		}
		key = crypto.createPublicKey(row.public_key);
		name = row.name;
		await verifyChallenge(
			db,
			{
				scope: "attestation",
				slug: token,
				nonce: input.challengeNonce,
				signature: input.challengeSignature,
				identityId: row.id,
			},
			now,
		);
	} else {
		const issued = await verifyPeerIdentity(domain, identity, deps.peer);
		if (issued.state === "unreachable")
			throw new AppError("remote_unreachable", `${domain} ${PEER_UNREACHABLE}`, {
				internal: `${domain}: ${issued.reason}`,
			});
		if (issued.state !== "verified") throw new AppError("remote_identity_invalid", issued.reason);
		await verifyChallenge(
			db,
			{
				scope: "attestation",
				slug: token,
				nonce: input.challengeNonce,
				signature: input.challengeSignature,
				identityId: identity.id,
				publicKey: issued.publicKey.export({ type: "spki", format: "pem" }).toString(),
			},
			now,
		);
		const standing = await fetchPeerStanding(domain, issued.fingerprint, deps.peer);
		if (standing.state === "unreachable")
			throw new AppError("remote_unreachable", `${domain} ${PEER_UNREACHABLE}`, {
				internal: `${domain}: ${standing.reason}`,
			});
		if (standing.state !== "verified") throw new AppError("remote_identity_invalid", standing.reason);
		if (standing.status !== "active") throw new AppError("identity_revoked");
		key = issued.publicKey;
		name = issued.name || name;
	}
	return {
		fingerprint: identity.fingerprint,
		domain,
		name: name.slice(0, 200),
		jwk: key.export({ format: "jwk" }),
	};
}

/**
 * The offer becomes the holder's: one conditional statement, so of many claims at once by several
 * identities, one identity wins. The same identity claiming again before the offer's date gets the
 * same statement again; another identity is refused.
 */
export async function bindHolder(
	db: Db,
	row: AttestationTable,
	holder: Holder,
	now: number,
): Promise<AttestationTable> {
	if (row.status === "offered" && row.subject_fingerprint && row.subject_fingerprint !== holder.fingerprint) {
		throw new AppError("attestation_identity_mismatch");
	}
	const won = await store.bindHolder(
		db,
		row.id,
		{
			subject_fingerprint: holder.fingerprint,
			subject_domain: holder.domain,
			subject_name: holder.name,
			subject_key: JSON.stringify(holder.jwk),
		},
		now,
	);
	const now_ = await store.findAttestation(db, row.id);
	if (!now_ || now_.status === "revoked") throw new AppError("attestation_offer_revoked");
	if (Number(won.numUpdatedRows) === 1) return now_;
	if (now_.status === "active" && now_.subject_fingerprint === holder.fingerprint) return now_;
	throw new AppError("attestation_offer_claimed");
}

export interface ClaimOfferDeps extends ClaimDeps {
	/** This server's issuer origin (`https://<domain>`). */
	issuer: string;
	/** The time again after the proof, which may have waited on another server. */
	clock: () => number;
	keys: () => Promise<KeyRing>;
}

/** `POST /api/attestations/offers/{token}/claim`: the offer open, the holder proven, then bound and issued. */
export async function claimOffer(
	deps: ClaimOfferDeps,
	token: string,
	input: ClaimInput,
): Promise<{ credential: string; issuer: string }> {
	openOffer(await attestationByToken(deps.db, token), deps.now);
	const holder = await proveHolder(deps, token, input);
	const row = openOffer(await attestationByToken(deps.db, token), deps.clock());
	const bound = await bindHolder(deps.db, row, holder, deps.now);
	const ring = await deps.keys();
	return { credential: await issueCredential(bound, deps.issuer, ring.current), issuer: deps.domain };
}
