// What answering reads and sends (docs/api.md "Requests": the probe, answering, the vault's records).
import { collection, request } from "../../api.ts";

export type ItemType = "text" | "email" | "phone" | "date" | "number" | "url" | "address" | "file";

export interface TemplateItem {
	key: string;
	label: string;
	type: ItemType;
	required: boolean;
	description?: string;
}

/** `GET /api/public/requests/{slug}`. */
export interface Probe {
	label: string;
	status: "open" | "closed" | "expired";
	requiresPassword: boolean;
	requiresIdentifier: boolean;
	requireHandshake: boolean;
	allowExtraFields: boolean;
	identityScope: "any" | "from_root";
	template: TemplateItem[];
	requester: { name: string; domain: string; identity?: { id: string; fingerprint: string; name: string } };
	server: { domain: string; fingerprint: string; origin: string };
}

/** The responder's own vault entries (the `records` collection of the active workspace). */
export interface VaultRecord {
	id: string;
	key: string;
	name: string;
	type: "value" | "file";
	value: string | null;
	hidden: boolean;
	file: { name: string; size: number } | null;
}

export interface AnswerBody {
	values?: Record<string, string>;
	entries?: Record<string, string>;
	password?: string;
	identifier?: string;
	senderName?: string;
}

export interface AnswerResult {
	ok: boolean;
	responseId: string;
	linkId: string;
	updated: boolean;
}

export const records = collection<VaultRecord>("records");
export const links = collection<{ id: string; status: string }>("links");

export async function probe(slug: string): Promise<Probe> {
	const res = await request<Probe>("GET", `/api/public/requests/${encodeURIComponent(slug)}`, {
		auth: false,
	});
	return res.data;
}

export async function answer(slug: string, body: AnswerBody): Promise<AnswerResult> {
	const res = await request<AnswerResult>("POST", `/api/public/requests/${encodeURIComponent(slug)}`, {
		body,
	});
	return res.data;
}

/** How one item is answered: a vault entry linked as it is, a value typed here, or left out. */
export type Choice = { mode: "entry"; recordId: string } | { mode: "typed"; text: string } | { mode: "none" };

/** The entries that can answer an item: a file record for a file item (same key first), else value records with its key. */
export function candidatesFor(item: TemplateItem, vault: VaultRecord[]): VaultRecord[] {
	if (item.type === "file") {
		const files = vault.filter((r) => r.type === "file");
		return [...files.filter((r) => r.key === item.key), ...files.filter((r) => r.key !== item.key)];
	}
	return vault.filter((r) => r.type === "value" && r.key === item.key);
}

/** The starting choice: the first entry with the item's key, else typing (a file item: left out). */
export function initialChoice(item: TemplateItem, vault: VaultRecord[]): Choice {
	const first = candidatesFor(item, vault).find((r) => r.key === item.key);
	if (first) return { mode: "entry", recordId: first.id };
	return item.type === "file" ? { mode: "none" } : { mode: "typed", text: "" };
}
