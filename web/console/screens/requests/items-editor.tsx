// Items written by hand for a request: each with a label, a key (made from the label until the
// person changes it), a type, whether it is required and a description; add and remove.

import { commonKeyOf } from "../../common-keys.ts";
import { useT } from "../../i18n/index.ts";
import { announce, Button, Checkbox, SelectField, TextField } from "../../ui/index.ts";
import { KEY_SUGGESTIONS_ID, KeySuggestions } from "../../ui/key-suggestions.tsx";
import { messages } from "./messages.ts";
import { ITEM_TYPES, type ItemType, KEY_PATTERN, keyFrom, type TemplateItem } from "./types.ts";

export interface ItemDraft {
	/** Stable across edits, for the list's keys. */
	uid: number;
	label: string;
	key: string;
	/** The key was typed, so a new label no longer changes it. */
	keyTyped: boolean;
	type: ItemType;
	required: boolean;
	description: string;
}

let next = 1;
export function newItem(): ItemDraft {
	return { uid: next++, label: "", key: "", keyTyped: false, type: "text", required: true, description: "" };
}

export type ItemErrors = Record<number, { label?: string; key?: string }>;

/** What is wrong with the drafts, by uid; empty when they can be sent. */
export function checkItems(
	items: ItemDraft[],
	t: (key: "itemLabelMissing" | "itemKeyInvalid" | "itemKeyRepeated") => string,
): ItemErrors {
	const errors: ItemErrors = {};
	const seen = new Set<string>();
	for (const item of items) {
		const e: { label?: string; key?: string } = {};
		if (!item.label.trim()) e.label = t("itemLabelMissing");
		if (!KEY_PATTERN.test(item.key)) e.key = t("itemKeyInvalid");
		else if (seen.has(item.key)) e.key = t("itemKeyRepeated");
		seen.add(item.key);
		if (e.label || e.key) errors[item.uid] = e;
	}
	return errors;
}

export function toItems(items: ItemDraft[]): TemplateItem[] {
	return items.map((i) => ({
		key: i.key,
		label: i.label.trim(),
		type: i.type,
		required: i.required,
		...(i.description.trim() ? { description: i.description.trim() } : {}),
	}));
}

export function ItemsEditor({
	items,
	errors,
	onChange,
}: {
	items: ItemDraft[];
	errors: ItemErrors;
	onChange: (items: ItemDraft[]) => void;
}) {
	const t = useT(messages);
	const update = (uid: number, patch: Partial<ItemDraft>) =>
		onChange(items.map((i) => (i.uid === uid ? { ...i, ...patch } : i)));
	return (
		<div class="req-items">
			<KeySuggestions />
			{items.map((item, n) => (
				<fieldset key={item.uid} class="fieldset req-item">
					<legend>{t("itemN", { n: n + 1 })}</legend>
					<div class="req-item-grid">
						<TextField
							label={t("itemLabel")}
							required
							maxLength={200}
							value={item.label}
							error={errors[item.uid]?.label ?? null}
							onInput={(label) =>
								update(
									item.uid,
									item.keyTyped
										? { label }
										: {
												label,
												key: keyFrom(label),
												type: item.type === "text" ? (commonKeyOf(label)?.type ?? "text") : item.type,
											},
								)
							}
						/>
						<TextField
							label={t("itemKey")}
							hint={t("itemKeyHint")}
							required
							maxLength={64}
							autocomplete="off"
							spellcheck={false}
							value={item.key}
							list={KEY_SUGGESTIONS_ID}
							error={errors[item.uid]?.key ?? null}
							onInput={(key) => update(item.uid, { key, keyTyped: true })}
						/>
						<SelectField
							label={t("itemType")}
							value={item.type}
							onChange={(type) => update(item.uid, { type: type as ItemType })}
							options={ITEM_TYPES.map((type) => ({ value: type, label: t(`type_${type}`) }))}
						/>
						<TextField
							label={t("itemDescription")}
							maxLength={1000}
							value={item.description}
							onInput={(description) => update(item.uid, { description })}
						/>
					</div>
					<div class="req-item-foot">
						<Checkbox
							label={t("itemRequiredLabel")}
							checked={item.required}
							onChange={(required) => update(item.uid, { required })}
						/>
						{items.length > 1 ? (
							<Button
								class="btn-small"
								aria-label={t("itemRemoveNamed", { n: n + 1 })}
								onClick={() => {
									onChange(items.filter((i) => i.uid !== item.uid));
									announce(t("itemRemoved", { n: n + 1 }));
								}}
							>
								{t("itemRemove")}
							</Button>
						) : null}
					</div>
				</fieldset>
			))}
			{items.length < 100 ? (
				<Button
					onClick={() => {
						onChange([...items, newItem()]);
						announce(t("itemAdded", { n: items.length + 1 }));
					}}
				>
					{t("itemAdd")}
				</Button>
			) : null}
		</div>
	);
}
