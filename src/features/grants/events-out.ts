// Grant events for the server a grant was handed to (spec "Grants between servers", "Events",
// "Retry rules for events"): the grant hooks queue one `peer_events` row per event about a grant
// handed to a peer, in the transaction of the change; the outbox worker sends every due event of a
// peer together, as a batch signed with the root key at each attempt, to the peer's
// `POST /api/grants/events`. Status only, never a value. Retried like callback grant events.
import type { Kysely } from "kysely";
import type { Dialect } from "../../db/index.ts";
import { queuedNow } from "../../db/outbox.ts";
import type { Database, PeerEventTable } from "../../db/schema.ts";
import { newId, randomToken, signEnvelope } from "../../lib/crypto.ts";
import { PeerFetchError, type PeerOptions, peerBase } from "../../lib/peer.ts";
import { postPeerJson } from "../../lib/peer-client.ts";
import type { GrantEventName } from "../callbacks/service.ts";
import {
	type DrainResult,
	isRetryableStatus,
	KEEP_FINISHED_MS,
	LEASE_MS,
	MAX_RETRIES,
	retryDelay,
} from "../callbacks/service.ts";
import type { RootKey } from "../server/service.ts";
import type { GrantHooks, LinkStatusChange, RecordsChange } from "../shares/service.ts";
import { changeLinkStatus, grantsBeyond } from "../shares/service.ts";
import * as store from "./store.ts";

type Db = Parameters<typeof store.peerGrantsOfLinks>[0];

export const EVENTS_TYPE = "grant-events-v1";
/** A batch is accepted for five minutes after it was signed. */
export const BATCH_TTL_S = 300;
/** Events per signed batch: a batch of 500 is about 75 KiB of JSON. */
export const MAX_EVENTS_PER_BATCH = 500;
/** Rows claimed per pass; a pass that took as many goes on at once (src/worker/background.ts). */
export const PEER_EVENTS_PER_PASS = 1000;
const SEND_TIMEOUT_MS = 10_000;

export interface WireEvent {
	event: GrantEventName;
	/** The grant's id on the sending server (what the receiver stored with the answer). */
	grant: string;
	/** The request's slug on the receiving server, when the grant answers one. */
	slug: string;
	/** The grant's status after the event. */
	status: string;
	/** ISO 8601, with milliseconds. */
	at: string;
}

// ---- queueing: the grant hooks ----

async function queue(
	db: Db,
	links: readonly string[],
	event: GrantEventName,
	status: string,
	now: number,
): Promise<void> {
	// A fan-out can name thousands of links: looked up and written 500 at a time.
	for (let i = 0; i < links.length; i += 500) {
		await queueChunk(db, links.slice(i, i + 500), event, status, now);
	}
}

async function queueChunk(
	db: Db,
	links: readonly string[],
	event: GrantEventName,
	status: string,
	now: number,
): Promise<void> {
	const grants = await store.peerGrantsOfLinks(db, links);
	if (grants.length === 0) return;
	const rows: PeerEventTable[] = grants.map((g) => ({
		id: newId(),
		peer: g.peer,
		grant_id: g.link,
		request_slug: g.request_slug,
		event,
		status,
		at: now,
		...queuedNow(now),
	}));
	await store.insertPeerEvents(db, rows);
}

function onLinkStatus(db: Db, change: LinkStatusChange, now: number) {
	const event: GrantEventName =
		change.to === "revoked" ? "grant.revoked" : change.to === "expired" ? "grant.expired" : "grant.changed";
	return queue(db, [change.link], event, change.to, now);
}

/**
 * A record change reaches every active grant handed to a peer that resolves it (aliases and
 * sections included) as `grant.changed`; a deletion that leaves a grant nothing revokes it through
 * the shares transition table, whose hook announces the revocation.
 */
async function onRecordsChanged(hooks: GrantHooks, db: Db, change: RecordsChange, now: number) {
	const changed: string[] = [];
	for (const link of await store.peerGrantLinksResolving(db, change.records)) {
		if (change.deleted && !(await grantsBeyond(db, link.id, change.records))) {
			const actor = { kind: "system", reason: "because the last entry it granted was deleted" } as const;
			await changeLinkStatus(db, link, "revoked", actor, now, hooks);
			continue;
		}
		changed.push(link.id);
	}
	await queue(db, changed, "grant.changed", "active", now);
}

/** A deleted workspace takes its grants with it: each still standing is revoked for its peer. */
export async function onWorkspaceDeleted(db: Db, workspaceId: string, now: number) {
	const standing = await store.standingPeerGrantsInWorkspace(db, workspaceId);
	await queue(
		db,
		standing.map((l) => l.id),
		"grant.revoked",
		"revoked",
		now,
	);
}

export function registerPeerEventHooks(hooks: GrantHooks) {
	hooks.onLinkStatus.push(onLinkStatus);
	hooks.onLinkDeleted.push((db, linkId, now) => queue(db, [linkId], "grant.revoked", "revoked", now));
	hooks.onRecordsChanged.push((db, change, now) => onRecordsChanged(hooks, db, change, now));
}

// ---- sending: the worker's pass ----

export interface PeerEventDeps {
	db: Kysely<Database>;
	dialect: Dialect;
	/** This server's domain: the batches' sender. */
	domain: string;
	rootKey: RootKey;
	peer: () => PeerOptions;
	log?: { warn(obj: unknown, msg?: string): void };
}

/** The signed body of one batch, signed now: a batch is signed again at every attempt. */
export function signBatch(
	deps: Pick<PeerEventDeps, "domain" | "rootKey">,
	audience: string,
	events: readonly WireEvent[],
	now: number,
) {
	const iat = Math.floor(now / 1000);
	return signEnvelope(deps.rootKey.privateKey, EVENTS_TYPE, {
		sender: deps.domain,
		audience,
		iat,
		exp: iat + BATCH_TTL_S,
		events,
	});
}

function wire(row: PeerEventTable): WireEvent {
	return {
		event: row.event as GrantEventName,
		grant: row.grant_id,
		slug: row.request_slug ?? "",
		status: row.status,
		at: new Date(row.at).toISOString(),
	};
}

type Outcome =
	| { ok: true; status: number }
	| { ok: false; status: number; detail: string; retryable: boolean };

async function send(deps: PeerEventDeps, peer: string, rows: readonly PeerEventTable[], now: number) {
	const opts = deps.peer();
	const url = `${peerBase(peer, opts)}/api/grants/events`;
	const body = signBatch(deps, peer, rows.map(wire), now);
	try {
		const res = await postPeerJson(url, body, { ...opts, timeoutMs: SEND_TIMEOUT_MS });
		if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status } satisfies Outcome;
		const code = (res.body as { code?: unknown } | null)?.code;
		const detail = `answered ${res.status}${typeof code === "string" ? ` ${code}` : ""}`;
		return {
			ok: false,
			status: res.status,
			detail,
			retryable: isRetryableStatus(res.status),
		} satisfies Outcome;
	} catch (err) {
		// A transport failure, a timeout, or an answer that is not JSON (a proxy's error page).
		const detail = err instanceof PeerFetchError ? err.message : String(err);
		return { ok: false, status: 0, detail, retryable: true } satisfies Outcome;
	}
}

/**
 * One pass at `now`: claims the due events, sends each peer's in batches of up to 500, and records
 * each batch's outcome on its rows (under the claim's lease). Then drops old finished rows.
 */
export async function drainPeerEvents(deps: PeerEventDeps, now: number): Promise<DrainResult> {
	const result: DrainResult = { delivered: 0, retrying: 0, failed: 0 };
	const lease = randomToken(16);
	const rows = await store.claimDuePeerEvents(deps.db, deps.dialect, {
		now,
		lease,
		leaseUntil: now + LEASE_MS,
		limit: PEER_EVENTS_PER_PASS,
	});
	const byPeer = new Map<string, PeerEventTable[]>();
	for (const row of rows) {
		const list = byPeer.get(row.peer) ?? [];
		list.push(row);
		byPeer.set(row.peer, list);
	}
	// Peers at once; one peer's batches one after another, oldest events first, so the receiver
	// (which applies only events newer than the last it recorded) never drops one overtaken.
	await Promise.all(
		[...byPeer].map(async ([peer, list]) => {
			list.sort((a, b) => a.at - b.at);
			for (let i = 0; i < list.length; i += MAX_EVENTS_PER_BATCH) {
				await sendBatch(peer, list.slice(i, i + MAX_EVENTS_PER_BATCH));
			}
		}),
	);
	await store.purgeFinishedPeerEvents(deps.db, now - KEEP_FINISHED_MS);
	return result;

	async function sendBatch(peer: string, batch: PeerEventTable[]) {
		const outcome = await send(deps, peer, batch, now);
		const last = { last_status: outcome.status === 0 ? null : outcome.status, updated: now };
		if (outcome.ok) {
			await store.finishPeerEvents(deps.db, ids(batch), lease, {
				...last,
				state: "delivered",
				last_error: null,
			});
			result.delivered += batch.length;
			return;
		}
		const detail = outcome.detail.slice(0, 500);
		// `attempts` already counts this one; rows of one batch may have come with different counts.
		const byAttempts = new Map<number, PeerEventTable[]>();
		for (const row of batch) byAttempts.set(row.attempts, [...(byAttempts.get(row.attempts) ?? []), row]);
		for (const [attempts, group] of byAttempts) {
			if (outcome.retryable && attempts <= MAX_RETRIES) {
				await store.finishPeerEvents(deps.db, ids(group), lease, {
					...last,
					state: "pending",
					next_attempt: now + retryDelay(attempts),
					last_error: detail,
				});
				result.retrying += group.length;
			} else {
				await store.finishPeerEvents(deps.db, ids(group), lease, {
					...last,
					state: "failed",
					last_error: detail,
				});
				result.failed += group.length;
				deps.log?.warn(
					{ peer, events: group.length, attempts, detail },
					"grant events to another server given up",
				);
			}
		}
	}
}

const ids = (rows: readonly PeerEventTable[]) => rows.map((r) => r.id);
