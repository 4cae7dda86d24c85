// Queueing callback deliveries (spec "Callback delivery (outbound)", "Events"): rows of the durable
// outbox, written in the caller's transaction (answering and grant code), due at once. Callbacks
// exist on requests only, and only when the request names a URL.
import type { Kysely, Transaction } from "kysely";
import { queuedNow } from "../../db/outbox.ts";
import type { Database, OutboxTable } from "../../db/schema.ts";
import { newId } from "../../lib/crypto.ts";
import type { GrantEventName, GrantEventPayload, SubmissionPayload } from "./payloads.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

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
		...queuedNow(now),
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
