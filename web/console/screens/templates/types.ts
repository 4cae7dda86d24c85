// Templates as the `templates` collection answers them (docs/api.md "Templates").
import { collection } from "../../api.ts";

export const ITEM_TYPES = ["text", "email", "phone", "date", "number", "url", "address", "file"] as const;
export type ItemType = (typeof ITEM_TYPES)[number];
export const MAX_ITEMS = 100;
export const KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;

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

export const templates = collection<Template>("templates");

/** A key made from a label ("Date of birth" -> "date-of-birth"), until the person types their own. */
export function keyFrom(label: string): string {
	return label
		.toLowerCase()
		.normalize("NFKD")
		.replace(/[\u0300-\u036f]/g, "")
		.replace(/[^a-z0-9_-]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 64);
}
