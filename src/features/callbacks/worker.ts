// The outbox worker's pass over callback deliveries (spec "Callback delivery (outbound)"):
// submissions are attempted at most once (claimed, and so counted, before the request leaves);
// grant events are retried on the schedule of attempt.ts and survive restarts, because their state
// lives only in the database. A delivery that fails for good tells the request's owner with a
// `callback_failed` notification.
import type { Kysely, Transaction } from "kysely";
import type { Dialect } from "../../db/index.ts";
import type { Database, OutboxTable } from "../../db/schema.ts";
import { randomToken } from "../../lib/crypto.ts";
import type { OutboundClient } from "../../lib/outbound.ts";
import { raiseNotice } from "../notifications/service.ts";
import { deliveryHeaders, type FailureReason, judge, MAX_RETRIES, retryDelay } from "./attempt.ts";
import type { GrantEventPayload, SubmissionPayload } from "./payloads.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** How long a claim holds; well past the 10 s bound of a delivery. */
export const LEASE_MS = 60_000;
/** Finished rows are kept this long for diagnosis. */
export const KEEP_FINISHED_MS = 7 * 24 * 60 * 60_000;
const CLAIM_BATCH = 50;
const INTERRUPTED = "interrupted: the server stopped while sending; submissions are never sent twice";
export const MAX_PER_DRAIN = 200;

export interface DeliveryDeps {
	db: Kysely<Database>;
	dialect: Dialect;
	client: OutboundClient;
	log?: { error(obj: unknown, msg?: string): void };
}

export interface DrainResult {
	delivered: number;
	retrying: number;
	failed: number;
}

/**
 * One pass at time `now`: fails submissions a stopped worker left mid-send, then claims and sends
 * due rows in batches until none is due (or a pass has sent 200), then drops old finished rows.
 */
export async function drainOnce(deps: DeliveryDeps, now: number): Promise<DrainResult> {
	const result: DrainResult = { delivered: 0, retrying: 0, failed: 0 };
	// Rare: a transaction only for a row actually found, each taken with a conditional UPDATE.
	for (const { id } of await store.findInterruptedSubmissions(deps.db, now)) {
		await deps.db.transaction().execute(async (trx) => {
			const row = await store.failInterruptedSubmission(trx, id, now, INTERRUPTED);
			if (!row) return;
			result.failed++;
			await notifyFailure(trx, row, "interrupted", INTERRUPTED, now);
		});
	}
	for (let sent = 0; sent < MAX_PER_DRAIN; ) {
		const lease = randomToken(16);
		const rows = await store.claimDue(deps.db, deps.dialect, {
			now,
			lease,
			leaseUntil: now + LEASE_MS,
			limit: CLAIM_BATCH,
		});
		if (rows.length === 0) break;
		sent += rows.length;
		// Different answers at once; one answer's deliveries one after another, oldest first.
		const outcomes = await Promise.all(
			byAnswer(rows).map(async (group) => {
				const out: (keyof DrainResult)[] = [];
				for (const row of group) out.push(await attempt(deps, row, lease, now));
				return out;
			}),
		);
		for (const o of outcomes.flat()) result[o]++;
	}
	await store.purgeFinished(deps.db, now - KEEP_FINISHED_MS);
	return result;
}

/**
 * Claimed rows grouped by the answer they are about (`responseId`), each group in the order the
 * rows were queued, so a receiver hears of one answer's changes in the order they happened
 * (a retried row may still arrive after a newer one: the spec lets receivers order by `at`).
 */
function byAnswer(rows: readonly OutboxTable[]): OutboxTable[][] {
	const groups = new Map<string, OutboxTable[]>();
	// Queued order (a retried row keeps its place), then the id for rows of the same millisecond.
	const sorted = [...rows].sort(
		(a, b) => a.created - b.created || a.next_attempt - b.next_attempt || (a.id < b.id ? -1 : 1),
	);
	for (const row of sorted) {
		const responseId = (JSON.parse(row.payload) as { responseId?: unknown }).responseId;
		const key = typeof responseId === "string" ? responseId : row.id;
		const group = groups.get(key);
		if (group) group.push(row);
		else groups.set(key, [row]);
	}
	return [...groups.values()];
}

async function attempt(
	deps: DeliveryDeps,
	row: OutboxTable,
	lease: string,
	now: number,
): Promise<keyof DrainResult> {
	const sent = await deps.client.send({
		method: "POST",
		url: row.url,
		headers: deliveryHeaders(row.request),
		body: row.payload,
	});
	const outcome = judge(sent, deps.client.timeoutMs);
	const last = { last_status: outcome.status === 0 ? null : outcome.status, updated: now };
	if (outcome.ok) {
		await store.finishDelivery(deps.db, row.id, lease, {
			...last,
			state: "delivered",
			next_attempt: row.next_attempt,
			last_error: null,
		});
		return "delivered";
	}
	const detail = outcome.detail.slice(0, 500);
	// Grant events only; `attempts` already counts this one.
	if (row.kind === "grant_event" && outcome.retryable && row.attempts <= MAX_RETRIES) {
		await store.finishDelivery(deps.db, row.id, lease, {
			...last,
			state: "pending",
			next_attempt: now + retryDelay(row.attempts),
			last_error: detail,
		});
		return "retrying";
	}
	await deps.db.transaction().execute(async (trx) => {
		const landed = await store.finishDelivery(trx, row.id, lease, {
			...last,
			state: "failed",
			next_attempt: row.next_attempt,
			last_error: detail,
		});
		// The claim lapsed and another worker owns the row: its outcome counts, not ours.
		if (landed) await notifyFailure(trx, landed, outcome.reason, detail, now);
	});
	return "failed";
}

/** `callback_failed` to the request's owner, naming the request and the reason. */
async function notifyFailure(
	db: Db,
	row: OutboxTable,
	reason: FailureReason | "interrupted",
	detail: string,
	now: number,
): Promise<void> {
	const owner = await store.findOwner(db, row.request);
	if (!owner) return;
	const payload = JSON.parse(row.payload) as Partial<GrantEventPayload & SubmissionPayload>;
	const what = row.kind === "submission" ? "A submission" : `The ${payload.event ?? "grant"} event`;
	const tries =
		row.kind === "submission" ? "" : ` after ${row.attempts} attempt${row.attempts === 1 ? "" : "s"}`;
	let target = "";
	try {
		target = new URL(row.url).origin;
	} catch {
		target = "";
	}
	await raiseNotice(
		db,
		{
			account: owner.member ?? owner.owner,
			workspace: owner.workspace,
			kind: "callback_failed",
			title: `Callback failed for "${owner.label}"`,
			body: `${what} to ${target || "the callback URL"} was not delivered${tries}: ${detail}`,
			data: {
				requestId: row.request,
				label: owner.label,
				delivery: row.kind,
				...(payload.event ? { event: payload.event } : {}),
				responseId: payload.responseId ?? "",
				target,
				reason,
				status: row.last_status ?? 0,
				detail,
				attempts: row.attempts,
			},
		},
		now,
	);
}
