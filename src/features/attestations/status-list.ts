// The status list (spec "Status list", IETF Token Status List): one bit per attestation, set bit =
// revoked, zlib-compressed, in a `statuslist+jwt` signed with the credential key. Positions are
// drawn at random from a list at least twice as long as the number of attestations, so a position
// says nothing about when or by whom a credential was issued. A set bit is never cleared.
import crypto from "node:crypto";
import { SignJWT } from "jose";
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { lazy } from "../../lib/lazy.ts";
import type { KeyRingCache } from "../server/service.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** @sd-jwt/jwt-status-list (with pako), loaded when the list is first served. */
const statusListLibrary = lazy(() => import("@sd-jwt/jwt-status-list"));

/** The smallest list: 16 KiB of bits before compression, so early positions are hard to guess. */
export const MIN_SIZE = 131_072;
/** What a reader may keep the list for, in seconds (spec: five minutes). */
export const TTL_S = 300;
/** How long a signed list is valid; readers fetch again after `ttl` anyway. */
export const LIST_VALID_S = 3600;

/** The list's length for `count` positions: a power of two at least twice the count. */
export function listSize(count: number): number {
	let size = MIN_SIZE;
	while (size < 2 * count) size *= 2;
	return size;
}

/** How many positions the list holds and how many of their bits are set. */
async function listCounts(db: Db): Promise<{ positions: number; set: number }> {
	const row = await store.listCounts(db);
	return { positions: Number(row.n), set: Number(row.set ?? 0) };
}

async function positionCount(db: Db): Promise<number> {
	return (await listCounts(db)).positions;
}

/**
 * Takes a free random position for `attestation`. Two takers of one position: the insert of one
 * finds the other's row and draws again, so every attestation has a position of its own.
 */
export async function takePosition(db: Db, attestation: string, now: number): Promise<number> {
	const size = listSize((await positionCount(db)) + 1);
	for (let attempt = 0; attempt < 64; attempt++) {
		const position = crypto.randomInt(size);
		if (await store.claimPosition(db, position, attestation, now)) return position;
	}
	throw new Error("no free status-list position after 64 draws");
}

/** This server's bit at `position`, as its signed list would show it: `unknown` past the list's end. */
export async function positionStatus(db: Db, position: number): Promise<"set" | "clear" | "unknown"> {
	if (position >= listSize(await positionCount(db))) return "unknown";
	const row = await store.positionEntry(db, position);
	return row?.revoked === 1 ? "set" : "clear";
}

/** Sets the bits of these attestations (revoked, deleted, workspace or issuer gone); never cleared. */
export async function revokePositions(db: Db, attestations: readonly string[], now: number): Promise<void> {
	if (attestations.length === 0) return;
	await store.setBits(db, attestations, now);
}

/** The list of `positions` positions as a signed `statuslist+jwt`, for `uri` (where it is served). */
async function signList(
	db: Db,
	ring: Awaited<ReturnType<KeyRingCache["get"]>>,
	positions: number,
	uri: string,
	issuer: string,
	now: number,
): Promise<string> {
	const size = listSize(positions);
	const bits = new Array<number>(size).fill(0);
	const revoked = await store.setPositions(db);
	for (const { position } of revoked) if (position < size) bits[position] = 1;
	const { StatusList } = await statusListLibrary();
	const lst = new StatusList(bits, 1).compressStatusList();
	const iat = Math.floor(now / 1000);
	return new SignJWT({ ttl: TTL_S, status_list: { bits: 1, lst } })
		.setProtectedHeader({ alg: "ES256", kid: ring.current.kid, typ: "statuslist+jwt" })
		.setIssuer(issuer)
		.setSubject(uri)
		.setIssuedAt(iat)
		.setExpirationTime(iat + LIST_VALID_S)
		.sign(ring.current.privateKey);
}

/**
 * The signed list, made again only when it would differ. Building one (every set bit read, zlib, an
 * ES256 signature) took about 6 ms: 165 lists a second on the bench machine, for a public address.
 * Positions are only ever added and bits only ever set, so the number of positions and of set bits
 * say whether the list changed, on this node or another: one count a request. A list is signed again
 * after `TTL_S` (so the one handed out stays valid for most of `LIST_VALID_S`) and when the
 * credential key turns. Requests that find it stale at once share one build.
 */
export function statusListSigner(db: Kysely<Database>, keys: KeyRingCache, uri: string, issuer: string) {
	let last: { version: string; signedAt: number; jwt: Promise<string> } | undefined;
	return async (now: number): Promise<string> => {
		const [counts, ring] = await Promise.all([listCounts(db), keys.get()]);
		const version = `${counts.positions}:${counts.set}:${ring.current.kid}`;
		const fresh = last !== undefined && now >= last.signedAt && now - last.signedAt < TTL_S * 1000;
		if (last?.version === version && fresh) return last.jwt;
		// Counted before it is built: a change in between is in the list and makes the next request
		// build again, never the other way round.
		const entry = { version, signedAt: now, jwt: signList(db, ring, counts.positions, uri, issuer, now) };
		last = entry;
		entry.jwt.catch(() => {
			if (last === entry) last = undefined;
		});
		return entry.jwt;
	};
}
