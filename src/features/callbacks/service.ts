// Callback delivery (spec "Callback delivery (outbound)", "Events"): deliveries are rows of a
// durable outbox, queued in the caller's transaction and sent by the worker. Submissions are
// attempted at most once (claimed, and so counted, before the request leaves); grant events are
// retried on a transport error, timeout, 408, 429 or 5xx on the schedule below and survive
// restarts, because their state lives only in the database. A delivery that fails for good tells
// the request's owner with a `callback_failed` notification.
import type { Kysely, Transaction } from "kysely";
import type { Dialect } from "../../db/index.ts";
import type { Database, OutboxTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { newId, randomToken } from "../../lib/crypto.ts";
import type { OutboundClient, OutboundResult } from "../../lib/outbound.ts";
import { createNotification } from "../notifications/service.ts";
import type { TemplateItem } from "../vault/templates/collection.ts";
import {
	type GrantEventName,
	type GrantEventPayload,
	type SubmissionPayload,
	samplePayload,
} from "./payloads.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** First retry 30 s after a failed attempt, doubling up to six hours between attempts. */
export const RETRY_FIRST_MS = 30_000;
export const RETRY_CAP_MS = 6 * 60 * 60_000;
/** 15 retries after the first attempt: the last one 38 h 31 min 30 s after it ("about a day and a half"). */
export const MAX_RETRIES = 15;
/** How long a claim holds; well past the 10 s bound of a delivery. */
export const LEASE_MS = 60_000;
/** Finished rows are kept this long for diagnosis. */
export const KEEP_FINISHED_MS = 7 * 24 * 60 * 60_000;
const CLAIM_BATCH = 50;
const INTERRUPTED = "interrupted: the server stopped while sending; submissions are never sent twice";
export const MAX_PER_DRAIN = 200;

/** The wait after failed attempt `n` (1-based) before the next one. */
export function retryDelay(n: number): number {
	return Math.min(RETRY_FIRST_MS * 2 ** (n - 1), RETRY_CAP_MS);
}

// ---- queueing (called by answering and grant code, inside their transaction) ----

export interface SubmissionInput {
	requestId: string;
	/** The response link's id (`responseId`, also sent as `linkId`). */
	responseId: string;
	/** A proven identity's id (or fingerprint for an answer kept elsewhere); omit when none was proven. */
	identity?: string;
	identifier?: string;
	senderName?: string;
	/** Template key -> value typed directly (never vault-linked values). */
	data: Record<string, unknown>;
	/** The responder's server, for an answer kept there. */
	server?: string;
}

export interface GrantEventInput {
	requestId: string;
	responseId: string;
	event: GrantEventName;
	/** The answer's status now. */
	status: string;
	/** When it happened (ms); identifies the event with `responseId`. */
	at: number;
	server?: string;
}

/** A pending delivery to a request's callback URL, due now. */
function deliveryRow(
	kind: OutboxTable["kind"],
	target: { id: string; callback_url: string },
	payload: SubmissionPayload | GrantEventPayload,
	now: number,
): OutboxTable {
	return {
		id: newId(),
		kind,
		request: target.id,
		url: target.callback_url,
		payload: JSON.stringify(payload),
		state: "pending",
		attempts: 0,
		next_attempt: now,
		lease: null,
		lease_until: null,
		last_status: null,
		last_error: null,
		created: now,
		updated: now,
	};
}

async function enqueue(
	db: Db,
	kind: OutboxTable["kind"],
	requestId: string,
	payload: (target: { slug: string }) => SubmissionPayload | GrantEventPayload,
	now: number,
): Promise<string | undefined> {
	const target = await store.findTarget(db, requestId);
	// Callbacks exist on requests only, and only when the request names a URL.
	if (!target?.callback_url) return undefined;
	const row = deliveryRow(kind, { id: target.id, callback_url: target.callback_url }, payload(target), now);
	await store.insertDelivery(db, row);
	return row.id;
}

/** Queues the POST of a new or updated answer; undefined when the request has no callback URL. */
export function enqueueSubmission(db: Db, input: SubmissionInput, now: number): Promise<string | undefined> {
	return enqueue(
		db,
		"submission",
		input.requestId,
		({ slug }) => ({
			requestId: input.requestId,
			slug,
			responseId: input.responseId,
			linkId: input.responseId,
			identity: input.identity ?? "",
			identifier: input.identifier ?? "",
			senderName: input.senderName ?? "",
			data: input.data,
			...(input.server === undefined ? {} : { server: input.server }),
		}),
		now,
	);
}

function grantEventPayload(input: GrantEventInput, slug: string): GrantEventPayload {
	return {
		event: input.event,
		requestId: input.requestId,
		slug,
		responseId: input.responseId,
		linkId: input.responseId,
		status: input.status,
		at: new Date(input.at).toISOString(),
		...(input.server === undefined ? {} : { server: input.server }),
	};
}

/** Queues a grant event about an answer; undefined when the request has no callback URL. */
export function enqueueGrantEvent(db: Db, input: GrantEventInput, now: number): Promise<string | undefined> {
	return enqueue(db, "grant_event", input.requestId, ({ slug }) => grantEventPayload(input, slug), now);
}

/** Rows per statement when queueing many events (14 columns each: well under SQLite's parameter cap). */
const BATCH = 500;

/**
 * Queues many grant events at once (a record change fanning out to its answers): the requests'
 * targets read in a few queries and the rows inserted a batch at a time. Answers how many were queued.
 */
export async function enqueueGrantEvents(
	db: Db,
	inputs: readonly GrantEventInput[],
	now: number,
): Promise<number> {
	const targets = new Map<string, { id: string; slug: string; callback_url: string | null }>();
	const requestIds = [...new Set(inputs.map((i) => i.requestId))];
	for (let i = 0; i < requestIds.length; i += BATCH) {
		for (const t of await store.findTargets(db, requestIds.slice(i, i + BATCH))) targets.set(t.id, t);
	}
	const rows: OutboxTable[] = [];
	for (const input of inputs) {
		const target = targets.get(input.requestId);
		if (!target?.callback_url) continue;
		rows.push(
			deliveryRow(
				"grant_event",
				{ id: target.id, callback_url: target.callback_url },
				grantEventPayload(input, target.slug),
				now,
			),
		);
	}
	for (let i = 0; i < rows.length; i += BATCH) await store.insertDeliveries(db, rows.slice(i, i + BATCH));
	return rows.length;
}

// ---- one attempt ----

export type FailureReason = "blocked" | "timeout" | "unreachable" | "status";

export type Outcome =
	| { ok: true; status: number; detail: string }
	| { ok: false; reason: FailureReason; status: number; detail: string; retryable: boolean };

/** Spec "Retry rules for events": of the answered statuses, 408, 429 and any 5xx are tried again. */
export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 429 || status >= 500;
}

/** Spec: a transport error, timeout or status 400 or above fails; 408, 429 and 5xx may be retried. */
export function judge(result: OutboundResult, timeoutMs: number): Outcome {
	switch (result.kind) {
		case "response": {
			const { status } = result;
			if (status < 400) {
				const note = status >= 300 ? "; redirects are not followed" : "";
				return { ok: true, status, detail: `answered ${status}${note}` };
			}
			return {
				ok: false,
				reason: "status",
				status,
				detail: `answered ${status}`,
				retryable: isRetryableStatus(status),
			};
		}
		case "blocked":
			return {
				ok: false,
				reason: "blocked",
				status: 0,
				detail: `blocked: ${result.reason}`,
				retryable: false,
			};
		case "unreachable":
			return result.timeout
				? {
						ok: false,
						reason: "timeout",
						status: 0,
						detail: `timed out: no complete answer within ${timeoutMs / 1000} s`,
						retryable: true,
					}
				: {
						ok: false,
						reason: "unreachable",
						status: 0,
						detail: `unreachable: ${result.reason}`,
						retryable: true,
					};
	}
}

export function deliveryHeaders(requestId: string | undefined): Record<string, string> {
	return {
		"content-type": "application/json",
		...(requestId === undefined ? {} : { "x-svc-request": requestId }),
	};
}

// ---- the worker's pass ----

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
	await createNotification(
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

// ---- test delivery ----

export interface TestResult {
	ok: boolean;
	status: number;
	code: "ok" | "blocked" | "unreachable" | "status";
	detail: string;
}

/**
 * `POST /api/requests/callback-test`: one sample payload through the same client, sent now (not
 * queued). With `requestId` (a request of the caller's workspace, else 404) its real id and slug
 * and the `X-Svc-Request` header are used.
 */
export async function testDelivery(
	deps: { db: Db; client: OutboundClient },
	workspaceId: string,
	input: { url: string; requestId?: string | undefined },
): Promise<TestResult> {
	let request: { id: string; slug: string; items: TemplateItem[] } | undefined;
	if (input.requestId !== undefined) {
		const row = await store.findWorkspaceRequest(deps.db, workspaceId, input.requestId);
		if (!row) throw new AppError("not_found", "No request with this id in the workspace");
		request = { id: row.id, slug: row.slug, items: JSON.parse(row.items) as TemplateItem[] };
	}
	const sent = await deps.client.send({
		method: "POST",
		url: input.url,
		headers: deliveryHeaders(request?.id),
		body: JSON.stringify(samplePayload(request)),
	});
	const outcome = judge(sent, deps.client.timeoutMs);
	if (outcome.ok) return { ok: true, status: outcome.status, code: "ok", detail: outcome.detail };
	const code = outcome.reason === "timeout" ? "unreachable" : outcome.reason;
	return { ok: false, status: outcome.status, code, detail: outcome.detail };
}
