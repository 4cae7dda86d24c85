// Reading another attester's status list (spec "Status list"; the Token Status List format), for a
// verification. The list is the attester's to make, so it is read as hostile input: at most
// `MAX_LIST_BODY` bytes fetched, signed by a certified key, and inflated off the event loop (zlib's
// thread pool, chunk by chunk) only up to `MAX_LIST_BYTES`: a list inflating past that is refused,
// not read, so a 254 KB "zip bomb" of 140 MiB costs one chunk of memory and 2 MiB of pool work
// (it is counted before it is kept). One read of a list takes at most `LIST_BUDGET_MS`. What was read is kept per address for the list's `ttl`
// (never past its `exp`), refusals of a signed list too, so repeated verifications fetch once and
// concurrent ones share one fetch.
import zlib from "node:zlib";
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";
import { type PeerOptions, peerFetchText } from "../../lib/peer.ts";
import { TTL_S } from "./status-list.ts";

/**
 * The longest list read: 2^24 positions (2 MiB of bits), room for 8 388 608 credentials at the
 * spec's "at least twice as long" (this server's own lists double from 2^17 as needed). A position
 * past it is never looked up, and a list inflating past it is refused.
 */
export const MAX_LIST_BITS = 2 ** 24;
export const MAX_LIST_BYTES = MAX_LIST_BITS / 8;
/** The signed list as fetched. */
export const MAX_LIST_BODY = 256 * 1024;
/** One read of a list: fetching, checking the signature and inflating. */
export const LIST_BUDGET_MS = 5000;
const FETCH_MS = 4000;
/** Lists kept: at most this many, and this many inflated bytes in all (the oldest go first). */
const MAX_ENTRIES = 64;
const MAX_KEPT_BYTES = 16 * 1024 * 1024;
/** A list is kept for its `ttl` (five minutes when it names none), never past `exp`, at most an hour. */
const MAX_KEEP_S = 3600;

/** The list's bits, or why it could not be read. */
export type ListRead = { bytes: Buffer } | { reason: string };

interface Entry {
	/** Kept until then (milliseconds); `Infinity` while the read is under way. */
	until: number;
	size: number;
	read: Promise<ListRead>;
}

/** Why a list cannot be read, and until when that holds (0: ask again next time). */
class Unread extends Error {
	constructor(
		message: string,
		readonly until = 0,
	) {
		super(message);
	}
}

export class StatusListCache {
	readonly #entries = new Map<string, Entry>();

	/** The list at `url`, signed by one of `keys`, read once per validity. */
	read(url: string, keys: ReadonlyMap<string, JWK>, peer: PeerOptions, now: number): Promise<ListRead> {
		const kept = this.#entries.get(url);
		if (kept && now < kept.until) return kept.read;
		if (kept) this.#entries.delete(url);
		const entry: Entry = { until: Number.POSITIVE_INFINITY, size: 0, read: Promise.resolve({ reason: "" }) };
		entry.read = fetchList(url, keys, peer, now).then(
			({ bytes, until }) => {
				this.#settle(url, entry, until, bytes.length);
				return { bytes };
			},
			(err: unknown) => {
				const until = err instanceof Unread ? err.until : 0;
				this.#settle(url, entry, until, 0);
				return { reason: err instanceof Unread ? err.message : "the status list could not be read" };
			},
		);
		this.#entries.set(url, entry);
		this.#trim();
		return entry.read;
	}

	#settle(url: string, entry: Entry, until: number, size: number): void {
		if (this.#entries.get(url) !== entry) return;
		if (until <= 0) {
			this.#entries.delete(url);
			return;
		}
		entry.until = until;
		entry.size = size;
		this.#trim();
	}

	/** Drops the oldest entries past the count or byte bounds. */
	#trim(): void {
		let bytes = 0;
		for (const e of this.#entries.values()) bytes += e.size;
		for (const [url, e] of this.#entries) {
			if (this.#entries.size <= MAX_ENTRIES && bytes <= MAX_KEPT_BYTES) break;
			this.#entries.delete(url);
			bytes -= e.size;
		}
	}
}

async function fetchList(
	url: string,
	keys: ReadonlyMap<string, JWK>,
	peer: PeerOptions,
	now: number,
): Promise<{ bytes: Buffer; until: number }> {
	const started = Date.now();
	let jwt: string;
	try {
		jwt = await peerFetchText(url, { ...peer, timeoutMs: FETCH_MS }, MAX_LIST_BODY);
	} catch (err) {
		throw new Unread(`the status list could not be fetched: ${(err as Error).message}`);
	}
	let payload: { ttl?: unknown; exp?: unknown; status_list?: { bits?: unknown; lst?: unknown } };
	try {
		const header = decodeProtectedHeader(jwt);
		const jwk = typeof header.kid === "string" ? keys.get(header.kid) : undefined;
		if (header.typ !== "statuslist+jwt" || !jwk)
			throw new Unread("the status list is not signed by a certified key");
		payload = (await jwtVerify(jwt, await importJWK(jwk, "ES256"), { currentDate: new Date(now) }))
			.payload as typeof payload;
	} catch (err) {
		if (err instanceof Unread) throw err;
		throw new Unread("the status list does not verify or has expired");
	}
	// Signed: what it says holds for its validity, a refusal included.
	const until = keptUntil(payload, now);
	const list = payload.status_list;
	if (list?.bits !== 1 || typeof list.lst !== "string")
		throw new Unread("the status list is not a 1-bit list", until);
	const deadline = started + LIST_BUDGET_MS;
	const lst = Buffer.from(list.lst, "base64url");
	// Counted first, output dropped chunk by chunk: a list too long to keep never holds more than a
	// chunk of memory. Only a list that fits is inflated again and kept (2 MiB at most, in the pool).
	await inflateCapped(lst, MAX_LIST_BYTES, deadline, until, false);
	return { bytes: await inflateCapped(lst, MAX_LIST_BYTES, deadline, until, true), until };
}

/** `now` plus the list's `ttl` (five minutes without one, an hour at most), never past `exp`. */
function keptUntil(payload: { ttl?: unknown; exp?: unknown }, now: number): number {
	const ttl = typeof payload.ttl === "number" && payload.ttl >= 0 ? payload.ttl : TTL_S;
	const until = now + Math.min(ttl, MAX_KEEP_S) * 1000;
	return typeof payload.exp === "number" ? Math.min(until, payload.exp * 1000) : until;
}

/**
 * zlib inflate in the thread pool, one chunk at a time, stopped as soon as the output passes `max`
 * bytes or `deadline` (epoch ms) passes: neither the whole output nor the work of making it is ever
 * spent. `keep` false only counts: the output is dropped as it comes and the answer is empty.
 */
export function inflateCapped(
	input: Buffer,
	max: number,
	deadline: number,
	until: number,
	keep: boolean,
): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const inflate = zlib.createInflate({ chunkSize: 256 * 1024 });
		const chunks: Buffer[] = [];
		let size = 0;
		let settled = false;
		/** `kept`: the refusal holds for the list's validity (not a slow moment of this machine). */
		const fail = (reason: string, kept = true) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			inflate.destroy();
			reject(new Unread(reason, kept ? until : 0));
		};
		const timer = setTimeout(
			() => fail("the status list took too long to inflate", false),
			Math.max(0, deadline - Date.now()),
		);
		inflate.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > max) fail(`the status list inflates past ${MAX_LIST_BITS} positions: not read`);
			else if (keep && !settled) chunks.push(chunk);
		});
		inflate.on("error", () => fail("the status list cannot be decompressed"));
		inflate.on("end", () => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			resolve(keep ? Buffer.concat(chunks, size) : Buffer.alloc(0));
		});
		inflate.end(input);
	});
}
