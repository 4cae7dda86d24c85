// Templates as the `templates` collection answers them (docs/api.md "Templates").
import { collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";

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

export type Template = Wire<"Template">;

export const templates = collection<Template>("templates");

/** A key made from a label (a common key it means, else the label spelled as a key). */
export { keyFrom } from "../../common-keys.ts";
