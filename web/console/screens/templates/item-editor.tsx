// One field of a template in the editor: label, key, type, required, description, and its place.

import { commonKeyOf } from "../../common-keys.ts";
import { useT } from "../../i18n/index.ts";
import { Button, Checkbox, SelectField, TextField } from "../../ui/index.ts";
import { KEY_SUGGESTIONS_ID } from "../../ui/key-suggestions.tsx";
import { TextAreaField } from "../vault/textarea-field.tsx";
import { messages } from "./messages.ts";
import { ITEM_TYPES, type ItemType, keyFrom } from "./types.ts";

/** An item being edited; `uid` keeps its inputs and focus as items move. */
export interface Draft {
	uid: string;
	key: string;
	keyTouched: boolean;
	label: string;
	type: ItemType;
	required: boolean;
	description: string;
}

export type DraftErrors = Partial<Record<"key" | "label" | "description", string>>;

/** A new label's key (and type, while still plain text) when the person has not typed a key. */
function fromLabel(item: Draft, label: string): Partial<Draft> {
	const common = commonKeyOf(label);
	const type = common && item.type === "text" ? common.type : item.type;
	return { label, key: keyFrom(label), type };
}

export function ItemEditor({
	item,
	index,
	count,
	errors,
	onChange,
	onMove,
	onRemove,
}: {
	item: Draft;
	index: number;
	count: number;
	errors: DraftErrors;
	onChange: (next: Draft) => void;
	onMove: (by: -1 | 1) => void;
	onRemove: () => void;
}) {
	const t = useT(messages);
	const title = t("itemLegend", { position: index + 1, label: item.label.trim() || t("untitled") });
	const set = (changes: Partial<Draft>) => onChange({ ...item, ...changes });
	return (
		<li class="tpl-item">
			<fieldset class="fieldset">
				<legend>{title}</legend>
				<div class="tpl-item-grid">
					<TextField
						id={`tpl-label-${item.uid}`}
						label={t("itemLabel")}
						hint={t("itemLabelHint")}
						required
						maxLength={200}
						value={item.label}
						onInput={(label) => set(item.keyTouched ? { label } : fromLabel(item, label))}
						error={errors.label ?? null}
						autocomplete="off"
					/>
					<TextField
						label={t("itemKey")}
						hint={t("itemKeyHint")}
						required
						maxLength={64}
						value={item.key}
						onInput={(key) => set({ key: key.trim(), keyTouched: true })}
						list={KEY_SUGGESTIONS_ID}
						error={errors.key ?? null}
						autocomplete="off"
						spellcheck={false}
					/>
					<SelectField
						label={t("itemType")}
						value={item.type}
						onChange={(type) => set({ type: ITEM_TYPES.find((x) => x === type) ?? "text" })}
						options={ITEM_TYPES.map((type) => ({ value: type, label: t(`type_${type}`) }))}
					/>
				</div>
				<Checkbox
					label={t("itemRequired")}
					hint={t("itemRequiredHint")}
					checked={item.required}
					onChange={(required) => set({ required })}
				/>
				<TextAreaField
					label={t("itemDescription")}
					hint={t("itemDescriptionHint", { max: 1000 })}
					rows={2}
					maxLength={1000}
					value={item.description}
					onInput={(description) => set({ description })}
					error={errors.description ?? null}
				/>
				<div class="row-actions tpl-item-actions">
					<Button
						class="btn-small"
						id={`tpl-up-${item.uid}`}
						aria-label={t("moveUpNamed", { name: title })}
						disabled={index === 0}
						onClick={() => onMove(-1)}
					>
						{t("moveUp")}
					</Button>
					<Button
						class="btn-small"
						id={`tpl-down-${item.uid}`}
						aria-label={t("moveDownNamed", { name: title })}
						disabled={index === count - 1}
						onClick={() => onMove(1)}
					>
						{t("moveDown")}
					</Button>
					<Button class="btn-small" aria-label={t("removeNamed", { name: title })} onClick={onRemove}>
						{t("remove")}
					</Button>
				</div>
			</fieldset>
		</li>
	);
}
