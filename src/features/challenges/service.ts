// Challenges (spec "Authentication" rule 11, "One-time artefacts"): a single-use nonce bound to a
// scope and slug, good five minutes, kept in the database so any node can check it. An answer is
// an ECDSA P-256 signature over the nonce by the identity's key; the nonce is spent on first
// presentation, right or wrong.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { randomToken, safeEqual, sha256Hex } from "../../lib/crypto.ts";
import { verifyP256 } from "../../lib/p256.ts";
import { challengeSigner, type Standing } from "../identity/service.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export const CHALLENGE_SCOPES = ["link", "request", "attestation"] as const;
export type ChallengeScope = (typeof CHALLENGE_SCOPES)[number];
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** Whether a slug of the scope exists; each feature (links, requests, attestations) registers its own. */
export type SlugExists = (db: Kysely<Database>, slug: string) => Promise<boolean>;

/** Per-app registry: a scope no feature registered has no slugs, so every challenge for it is 404. */
export class ChallengeScopes {
	private readonly byScope = new Map<ChallengeScope, SlugExists>();
	register(scope: ChallengeScope, exists: SlugExists): void {
		this.byScope.set(scope, exists);
	}
	async exists(db: Kysely<Database>, scope: ChallengeScope, slug: string): Promise<boolean> {
		const check = this.byScope.get(scope);
		return check ? check(db, slug) : false;
	}
}

export interface IssuedChallenge {
	nonce: string;
	expires: number;
}

/** Issues a nonce for a slug known to exist; `identityId` binds an attestation offer's nonce to one identity. */
export async function issueChallenge(
	db: Db,
	input: { scope: ChallengeScope; slug: string; identityId?: string | undefined },
	now: number,
): Promise<IssuedChallenge> {
	if (input.scope === "attestation" && !input.identityId) {
		throw new AppError("validation_failed", "identityId is required for scope attestation", {
			extra: { field: "querystring.identityId" },
		});
	}
	const nonce = randomToken(32);
	const expires = now + CHALLENGE_TTL_MS;
	await store.deleteExpired(db, now);
	await store.insertChallenge(db, {
		nonce_hash: sha256Hex(nonce),
		scope: input.scope,
		// Slugs and offer tokens are secrets: only their hashes are kept.
		slug_hash: sha256Hex(input.slug),
		identity: input.scope === "attestation" ? (input.identityId ?? null) : null,
		expires,
		spent: 0,
		created: now,
	});
	return { nonce, expires };
}

export interface ChallengeAnswer {
	scope: ChallengeScope;
	slug: string;
	nonce?: string | null | undefined;
	signature?: string | null | undefined;
	/** The identity of this server that signed (for `attestation`, also the one the nonce is bound to). */
	identityId?: string | undefined;
	/** Or the public key that signed (an identity of another server). */
	publicKey?: unknown;
}

export interface ProvenIdentity {
	/** Set when the signer is an identity of this server. */
	id?: string;
	name?: string;
	fingerprint: string;
	/** This server's word on the key: `unknown` for another server's identity. */
	standing: Standing;
}

/** Checks, in order: present, spent now, bound to this scope/slug/identity and unexpired, signature, standing. */
export async function verifyChallenge(db: Db, answer: ChallengeAnswer, now: number): Promise<ProvenIdentity> {
	const { nonce, signature } = answer;
	if (typeof nonce !== "string" || nonce === "" || typeof signature !== "string" || signature === "") {
		throw new AppError("challenge_required");
	}
	const row = await store.spendChallenge(db, sha256Hex(nonce));
	if (!row) throw new AppError("challenge_invalid");
	const bound =
		row.scope === answer.scope &&
		safeEqual(row.slug_hash, sha256Hex(answer.slug)) &&
		row.expires > now &&
		(row.identity === null || row.identity === answer.identityId);
	if (!bound) throw new AppError("challenge_invalid");

	const signer = await challengeSigner(db, answer);
	if (!verifyP256(signer.key, nonce, signature)) throw new AppError("signature_invalid");
	if (signer.standing === "revoked") throw new AppError("identity_revoked");
	return {
		...(signer.identity ? { id: signer.identity.id, name: signer.identity.name } : {}),
		fingerprint: signer.fingerprint,
		standing: signer.standing,
	};
}

/**
 * Spends a nonce whose answer is refused before its signature is looked at (an attestation claim
 * by an identity this server did not issue, or withdrew): spent on first presentation, right or wrong.
 */
export async function spendNonce(db: Db, nonce: string): Promise<void> {
	await store.spendChallenge(db, sha256Hex(nonce));
}
