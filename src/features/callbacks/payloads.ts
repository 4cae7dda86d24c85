// The JSON bodies POSTed to a request's callback URL (spec "Callback submission payload", "Grant
// event to a callback"). A body with `event` is a grant event; one without is a submission.
import type { TemplateItem } from "../vault/templates/service.ts";

export const GRANT_EVENTS = ["grant.changed", "grant.revoked", "grant.expired"] as const;
export type GrantEventName = (typeof GRANT_EVENTS)[number];

export interface SubmissionPayload {
	requestId: string;
	slug: string;
	responseId: string;
	/** Legacy alias of `responseId`. */
	linkId: string;
	/** Identity id proven by handshake (a fingerprint for an answer kept elsewhere); "" when none. */
	identity: string;
	/** The identifier the responder entered; "" when the request asks for none. */
	identifier: string;
	/** Free text typed by the responder; unverified. */
	senderName: string;
	/** Template key -> value typed directly; vault-linked fields are absent. */
	data: Record<string, unknown>;
	/** Only for an answer kept on another server: that server's domain. */
	server?: string;
	/** Only `true`, only in a test delivery. */
	test?: true;
}

export interface GrantEventPayload {
	event: GrantEventName;
	requestId: string;
	slug: string;
	responseId: string;
	linkId: string;
	/** The answer's status now. */
	status: string;
	/** ISO 8601. */
	at: string;
	server?: string;
}

const SAMPLES: Record<string, string | undefined> = {
	text: "Sample text",
	email: "sample@example.org",
	phone: "+1 555 0100",
	date: "2000-01-31",
	number: "42",
	url: "https://example.org/",
	address: "1 Sample Street, 12345 Sampletown",
	// A file is always vault-linked, so a real submission never carries it.
	file: undefined,
};

/** The test delivery's body: the request's real id and slug when given, sample values per item. */
export function samplePayload(request: { id: string; slug: string; items: TemplateItem[] } | undefined) {
	const items: Pick<TemplateItem, "key" | "type">[] = request?.items ?? [{ key: "example", type: "text" }];
	// fromEntries defines each key as its own member: an item keyed `__proto__` stays in the sample.
	const data: Record<string, string> = Object.fromEntries(
		items.flatMap((item) => {
			const value = SAMPLES[item.type];
			return value === undefined ? [] : [[item.key, value] as const];
		}),
	);
	const payload: SubmissionPayload = {
		requestId: request?.id ?? "test",
		slug: request?.slug ?? "test",
		responseId: "test",
		linkId: "test",
		identity: "",
		identifier: "",
		senderName: "Test delivery",
		data,
		test: true,
	};
	return payload;
}
