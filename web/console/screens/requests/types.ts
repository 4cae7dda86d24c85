// Requests, templates and collected answers as docs/api.md "Requests" and the `requests` and
// `templates` collections answer them, with the calls the screens make.
import { ApiError, collection, type ListPage, request } from "../../api.ts";

export const ITEM_TYPES = ["text", "email", "phone", "date", "number", "url", "address", "file"] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** One field a request asks for. */
export interface TemplateItem {
	key: string;
	label: string;
	type: ItemType;
	required: boolean;
	description?: string;
}

export interface Template {
	id: string;
	name: string;
	items: TemplateItem[];
	created: string;
	updated: string;
}

export interface DataRequest {
	id: string;
	workspace: string;
	slug: string;
	label: string;
	status: "open" | "closed" | "expired";
	items: TemplateItem[];
	template: string | null;
	requiresPassword: boolean;
	requiresIdentifier: boolean;
	requireHandshake: boolean;
	allowExtraFields: boolean;
	allowAnswerSignup: boolean;
	/** At most this many answer-only accounts through the link (1 to 1000). */
	answerSignupLimit: number;
	/** Answer-only accounts made through the link so far. */
	answerSignups: number;
	identityScope: "any" | "from_root";
	identity: string | null;
	expiresAt: string | null;
	callbackUrl: string | null;
	created: string;
	updated: string;
}

export interface Identity {
	id: string;
	name: string;
	fingerprint: string;
	status: "active" | "revoked";
}

/** One answered key of an answer, read live through the answer's share. */
export interface AnswerValue {
	key: string;
	label: string;
	recordId: string;
	type: "value" | "file";
	value: string | null;
	file: { name: string; type: string; size: number; sha256: string } | null;
}

/** An item of `GET /api/requests/{id}/links`. */
export interface Answer {
	responseId: string;
	linkId: string;
	slug: string;
	remote: boolean;
	server?: string;
	status: string;
	identity: string;
	identifier: string;
	senderName: string;
	values: AnswerValue[];
	created: string;
	updated: string;
}

/** `POST /api/requests/callback-test`. */
export interface CallbackTest {
	ok: boolean;
	status: number;
	code: "ok" | "blocked" | "unreachable" | "status";
	detail: string;
}

export const requests = collection<DataRequest>("requests");
export const templates = collection<Template>("templates");
export const identities = collection<Identity>("identities");

export async function answersOf(id: string, page: number, perPage: number): Promise<ListPage<Answer>> {
	const res = await request<ListPage<Answer>>("GET", `/api/requests/${encodeURIComponent(id)}/links`, {
		query: { page, perPage },
	});
	return res.data;
}

export async function testCallback(url: string, requestId?: string): Promise<CallbackTest> {
	const res = await request<CallbackTest>("POST", "/api/requests/callback-test", {
		body: requestId ? { url, requestId } : { url },
	});
	return res.data;
}

/** Where a responder answers: the console's answer screen, on this server's own origin. */
export function answerUrl(slug: string): string {
	return `${window.location.origin}/app/answer/${encodeURIComponent(slug)}`;
}

/** Template and vault keys: `[a-z0-9_-]{1,64}`. */
export const KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;

/** A key made from a label (a common key it means, else the label spelled as a key). */
export { keyFrom } from "../../common-keys.ts";

/** The member a validation refusal names ("body.callbackUrl" -> "callbackUrl"). */
export function refusedField(err: unknown): string | null {
	if (!(err instanceof ApiError)) return null;
	const field = err.problem.field;
	return typeof field === "string" ? field.replace(/^body\./, "") : null;
}

/** The last moment of a calendar day in the reader's zone, as the API wants it. */
export function endOfDay(day: string): string {
	return new Date(`${day}T23:59:59.999`).toISOString();
}
