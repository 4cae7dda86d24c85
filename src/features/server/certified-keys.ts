// Signing keys of their own, never the root key, each certified by the root key in
// `svc_certification` (an envelope of the kind's type naming the domain and the key's RFC 7638
// thumbprint, which is also its `kid`): the OpenID Connect ID-token keys (RS256, `oidc-key-v1`,
// spec "OpenID Connect provider") and the attestation credential keys (ES256, `credential-key-v1`,
// spec "Attestations"). They live in server_keys as `<prefix><sequence>` so every node signs with
// the same keys; the newest signs, the published set lists every kept key, and rotating keeps at
// most 20 (the oldest go).
import crypto from "node:crypto";
import { calculateJwkThumbprint, exportJWK, type JWK } from "jose";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { type SignedEnvelope, signEnvelope } from "../../lib/crypto.ts";
import type { RootKey } from "../server/root-key.ts";

export const MAX_KEYS = 20;
/** A certification is good for ten years, like an identity certificate. */
const CERTIFICATION_MS = 10 * 365 * 24 * 60 * 60 * 1000;
/** How long a node trusts its copy of the key list before reading it again (another node may rotate). */
const CACHE_MS = 60_000;

/** One kind of certified key. */
export interface KeyKind {
	/** server_keys name prefix, e.g. `oidc:`. */
	prefix: string;
	/** The certification's `type`. */
	certification: string;
	alg: "RS256" | "ES256";
}

export const OIDC_KEYS: KeyKind = { prefix: "oidc:", certification: "oidc-key-v1", alg: "RS256" };
export const CREDENTIAL_KEYS: KeyKind = {
	prefix: "credential:",
	certification: "credential-key-v1",
	alg: "ES256",
};

function generate(kind: KeyKind) {
	return kind.alg === "RS256"
		? crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
		: crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
}

export interface SigningKey {
	kid: string;
	privateKey: crypto.KeyObject;
	/** The public JWK as published, `svc_certification` included. */
	jwk: JWK & { svc_certification: SignedEnvelope };
}

export interface KeyRing {
	/** The key that signs now: the newest. */
	current: SigningKey;
	/** Every kept key, newest first. */
	all: SigningKey[];
}

/** `oidc:000001`: fixed-width so names sort by age, and the first key's name is the same on every node. */
const nameOf = (kind: KeyKind, sequence: number) => `${kind.prefix}${String(sequence).padStart(6, "0")}`;

async function keyRows(db: Kysely<Database>, kind: KeyKind) {
	return db
		.selectFrom("server_keys")
		.selectAll()
		.where("name", "like", `${kind.prefix}%`)
		.orderBy("name", "desc")
		.execute();
}

async function toSigningKey(
	kind: KeyKind,
	row: { private_pem: string; public_pem: string; certificate_pem: string | null },
): Promise<SigningKey> {
	const privateKey = crypto.createPrivateKey(row.private_pem);
	const publicJwk = await exportJWK(crypto.createPublicKey(row.public_pem));
	const kid = await calculateJwkThumbprint(publicJwk, "sha256");
	const certification = JSON.parse(row.certificate_pem ?? "{}") as SignedEnvelope;
	return {
		kid,
		privateKey,
		jwk: { ...publicJwk, kid, use: "sig", alg: kind.alg, svc_certification: certification },
	};
}

/** A new key under `name`, certified now; a name another node took first is left to it. */
async function addKey(
	db: Kysely<Database>,
	kind: KeyKind,
	name: string,
	rootKey: RootKey,
	domain: string,
	now: number,
) {
	const { privateKey, publicKey } = generate(kind);
	const kid = await calculateJwkThumbprint(await exportJWK(publicKey), "sha256");
	const certification = signEnvelope(rootKey.privateKey, kind.certification, {
		domain,
		kid,
		iat: Math.floor(now / 1000),
		exp: Math.floor((now + CERTIFICATION_MS) / 1000),
	});
	await db
		.insertInto("server_keys")
		.values({
			name,
			private_pem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
			public_pem: publicKey.export({ type: "spki", format: "pem" }).toString(),
			certificate_pem: JSON.stringify(certification),
			created: now,
		})
		.onConflict((oc) => oc.column("name").doNothing())
		.execute();
}

/**
 * Adds a key that signs from now on and drops keys past the newest 20. Tokens signed by a dropped
 * key stop verifying: with ten-minute ID tokens, rotating more often than every ten minutes
 * twenty times over is the only way to strand one.
 */
export async function rotateKey(
	db: Kysely<Database>,
	kind: KeyKind,
	rootKey: RootKey,
	domain: string,
	now: number,
) {
	const rows = await keyRows(db, kind);
	const last = rows[0] ? Number(rows[0].name.slice(kind.prefix.length)) : 0;
	await addKey(db, kind, nameOf(kind, last + 1), rootKey, domain, now);
	const kept = await keyRows(db, kind);
	const drop = kept.slice(MAX_KEYS).map((r) => r.name);
	if (drop.length > 0) await db.deleteFrom("server_keys").where("name", "in", drop).execute();
	return toSigningKey(kind, kept[0] as (typeof kept)[number]);
}

/** Reads the keys, making the first on first use; cached per node for a minute. */
export function keyRing(
	db: Kysely<Database>,
	kind: KeyKind,
	rootKey: RootKey,
	domain: string,
	now: () => number,
) {
	let cached: { at: number; ring: Promise<KeyRing> } | undefined;
	const load = async (): Promise<KeyRing> => {
		let rows = await keyRows(db, kind);
		if (rows.length === 0) {
			await addKey(db, kind, nameOf(kind, 1), rootKey, domain, now());
			rows = await keyRows(db, kind);
		}
		const all = await Promise.all(rows.slice(0, MAX_KEYS).map((row) => toSigningKey(kind, row)));
		return { current: all[0] as SigningKey, all };
	};
	return {
		get(): Promise<KeyRing> {
			const t = now();
			if (!cached || t - cached.at >= CACHE_MS) {
				const ring = load();
				cached = { at: t, ring };
				// A failed read is not cached.
				ring.catch(() => {
					if (cached?.ring === ring) cached = undefined;
				});
			}
			return cached.ring;
		},
		/** Forget the copy (after this node rotated). */
		reset(): void {
			cached = undefined;
		},
	};
}

export type KeyRingCache = ReturnType<typeof keyRing>;
