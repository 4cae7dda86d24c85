// One delivery attempt judged by the spec's rules ("Callback delivery (outbound)", "Retry rules for
// events"): a transport error, timeout or status 400 or above fails; 408, 429 and 5xx may be retried,
// on the schedule below. A test delivery is one such attempt, sent now and never queued.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import type { OutboundClient, OutboundResult } from "../../lib/outbound.ts";
import { PEER_UNREACHABLE } from "../../lib/peer.ts";
import type { TemplateItem } from "../vault/templates/service.ts";
import { samplePayload } from "./payloads.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** First retry 30 s after a failed attempt, doubling up to six hours between attempts. */
export const RETRY_FIRST_MS = 30_000;
export const RETRY_CAP_MS = 6 * 60 * 60_000;
/** 15 retries after the first attempt: the last one 38 h 31 min 30 s after it ("about a day and a half"). */
export const MAX_RETRIES = 15;
/** The wait after failed attempt `n` (1-based) before the next one. */
export function retryDelay(n: number): number {
	return Math.min(RETRY_FIRST_MS * 2 ** (n - 1), RETRY_CAP_MS);
}

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
	deps: { db: Db; client: OutboundClient; log?: (detail: string) => void },
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
	if (code !== "unreachable") return { ok: false, status: outcome.status, code, detail: outcome.detail };
	// A refused connection is not told from a timeout (that would map ports behind the address);
	// the operator's log has which.
	deps.log?.(outcome.detail);
	return { ok: false, status: 0, code, detail: `unreachable: the receiver ${PEER_UNREACHABLE}` };
}
