// Requests, templates and collected answers as docs/api.md "Requests" and the `requests` and
// `templates` collections answer them, with the calls the screens make.
import { ApiError, collection, type ListPage, request } from "../../api.ts";
import type { Wire, Answer as WireAnswer } from "../../wire.ts";

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

export type Template = Wire<"Template">;

export type DataRequest = Wire<"Request">;

export type Identity = Wire<"Identity">;

/** One answered key of an answer, read live through the answer's share. */
export type AnswerValue = Answer["values"][number];

/** An item of `GET /api/requests/{id}/links`. */
export type Answer = WireAnswer<"/api/requests/{id}/links", "get">["items"][number];

/** `POST /api/requests/callback-test`. */
export type CallbackTest = WireAnswer<"/api/requests/callback-test", "post">;

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
