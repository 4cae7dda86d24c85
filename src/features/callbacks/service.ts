// Callback delivery (spec "Callback delivery (outbound)", "Events"), the module other features
// import: deliveries are rows of a durable outbox, queued in the caller's transaction (queue.ts) and
// sent by the worker (worker.ts), each attempt judged by the spec's rules (attempt.ts).
export {
	deliveryHeaders,
	type FailureReason,
	isRetryableStatus,
	judge,
	MAX_RETRIES,
	type Outcome,
	RETRY_CAP_MS,
	RETRY_FIRST_MS,
	retryDelay,
	type TestResult,
	testDelivery,
} from "./attempt.ts";
export type { GrantEventName } from "./payloads.ts";
export { CALLBACK_URL_MAX, type CallbackPolicy, checkCallbackUrl } from "./policy.ts";
export {
	enqueueGrantEvent,
	enqueueGrantEvents,
	enqueueSubmission,
	type GrantEventInput,
	type SubmissionInput,
} from "./queue.ts";
export {
	type DeliveryDeps,
	type DrainResult,
	drainOnce,
	KEEP_FINISHED_MS,
	LEASE_MS,
	MAX_PER_DRAIN,
} from "./worker.ts";
