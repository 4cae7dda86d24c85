// What answering reads and sends (docs/api.md "Requests": the probe, answering, the vault's records).
import { collection, request } from "../../api.ts";
import { COMMON_KEYS, commonKeyOf } from "../../common-keys.ts";
import type { Wire, Answer as WireAnswer } from "../../wire.ts";

export type ItemType = "text" | "email" | "phone" | "date" | "number" | "url" | "address" | "file";

export interface TemplateItem {
	key: string;
	label: string;
	type: ItemType;
	required: boolean;
	description?: string;
}

/** `GET /api/public/requests/{slug}`. */
export type Probe = WireAnswer<"/api/public/requests/{slug}", "get">;

/** The responder's own vault entries (the `records` collection of the active workspace). */
export type VaultRecord = Wire<"VaultRecord">;

export interface AnswerBody {
	values?: Record<string, string>;
	entries?: Record<string, string>;
	password?: string;
	identifier?: string;
	senderName?: string;
}

export type AnswerResult = WireAnswer<"/api/public/requests/{slug}", "post">;

/** What the result screen shows of an answer given here or relayed to another server. */
export type Answered = Pick<AnswerResult, "responseId" | "linkId" | "updated">;

export const records = collection<VaultRecord>("records");
export const links = collection<{ id: string; status: string }>("links");

export async function probe(slug: string): Promise<Probe> {
	const res = await request<Probe>("GET", `/api/public/requests/${encodeURIComponent(slug)}`, {
		auth: false,
	});
	return res.data;
}

/** Another server's request, read by this server through that server's DNS pin (`GET /api/requests/remote`). */
export async function remoteProbe(server: string, slug: string): Promise<Probe> {
	return (await request<Probe>("GET", "/api/requests/remote", { query: { server, slug } })).data;
}

/** Answers another server's request from this one: kept here, relayed there (`POST /api/requests/remote`). */
export async function answerRemote(server: string, slug: string, body: AnswerBody): Promise<Answered> {
	const res = await request<WireAnswer<"/api/requests/remote", "post">>("POST", "/api/requests/remote", {
		body: { ...body, server, slug },
	});
	// `linkId` is the share in this workspace that holds the answer (revoked from the result).
	return { responseId: res.data.responseId, linkId: res.data.grantId, updated: res.data.updated };
}

export async function answer(slug: string, body: AnswerBody): Promise<AnswerResult> {
	const res = await request<AnswerResult>("POST", `/api/public/requests/${encodeURIComponent(slug)}`, {
		body,
	});
	return res.data;
}

/** How one item is answered: a vault entry linked as it is, a value typed here, or left out. */
export type Choice = { mode: "entry"; recordId: string } | { mode: "typed"; text: string } | { mode: "none" };

/** Values that read as the item's type (the server checks them again; docs/api.md "Answering"). */
const FITS: Partial<Record<ItemType, RegExp>> = {
	email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
	phone: /^\+?[\d\s()./-]{5,}$/,
	date: /^\d{4}-\d{2}-\d{2}$/,
	number: /^-?\d+(?:[.,]\d+)?$/,
	url: /^https?:\/\/\S+$/,
};

const typeOfKey = new Map(COMMON_KEYS.map((c) => [c.key, c.type]));

/** How well an entry answers an item: its key (0), the common key the item's label means (1), its type (2). */
function rank(item: TemplateItem, r: VaultRecord): number | null {
	if (r.key === item.key) return 0;
	if (r.key === commonKeyOf(item.label)?.key) return 1;
	if (item.type === "text") return null;
	if (typeOfKey.get(r.key) === item.type) return 2;
	const fits = FITS[item.type];
	if (fits && !r.hidden && r.value !== null && fits.test(r.value.trim())) return 2;
	return null;
}

/**
 * The entries that can answer an item, best first: a file record for a file item (same key first);
 * for any other, value records by key (the item's, then the common key its label means, as
 * `full_name` for "Full name") and then by type (an entry under a common key of the item's type, or
 * whose value reads as it: an email address for an email item).
 */
export function candidatesFor(item: TemplateItem, vault: VaultRecord[]): VaultRecord[] {
	if (item.type === "file") {
		const files = vault.filter((r) => r.type === "file");
		return [...files.filter((r) => r.key === item.key), ...files.filter((r) => r.key !== item.key)];
	}
	return vault
		.filter((r) => r.type === "value")
		.map((r) => ({ r, n: rank(item, r) }))
		.filter((x): x is { r: VaultRecord; n: number } => x.n !== null)
		.sort((a, b) => a.n - b.n)
		.map((x) => x.r);
}

/** The starting choice: the first entry matching by key (the item's or its label's common key), else typing (a file item: left out). */
export function initialChoice(item: TemplateItem, vault: VaultRecord[]): Choice {
	const first = candidatesFor(item, vault).find((r) =>
		item.type === "file" ? r.key === item.key : rank(item, r) !== 2,
	);
	if (first) return { mode: "entry", recordId: first.id };
	return item.type === "file" ? { mode: "none" } : { mode: "typed", text: "" };
}
