// The control for a value typed by hand, chosen by the item's type: a text area for a postal
// address, the browser's email, phone, date and web address inputs, decimal digits for numbers.
import { useId } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { TextField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import type { ItemType } from "./types.ts";

const INPUT: Record<
	Exclude<ItemType, "address" | "file">,
	{ type: string; autocomplete?: string; inputMode?: "decimal" }
> = {
	text: { type: "text" },
	email: { type: "email", autocomplete: "email" },
	phone: { type: "tel", autocomplete: "tel" },
	date: { type: "date" },
	number: { type: "text", inputMode: "decimal" },
	url: { type: "url", autocomplete: "url" },
};

export function TypedInput({
	type,
	label,
	hint,
	error,
	required,
	value,
	onInput,
}: {
	type: ItemType;
	label: string;
	hint?: string;
	error: string | null;
	required: boolean;
	value: string;
	onInput: (value: string) => void;
}) {
	const ui = useT(uiMessages);
	const id = useId();
	if (type === "address") {
		const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
		return (
			<div class={`field${error ? " field-invalid" : ""}`}>
				<label for={id}>
					{label}
					{required ? <span class="field-required"> ({ui("required")})</span> : null}
				</label>
				<textarea
					id={id}
					rows={3}
					maxLength={10000}
					required={required}
					autocomplete="street-address"
					value={value}
					aria-invalid={error ? "true" : undefined}
					aria-describedby={described || undefined}
					onInput={(e) => onInput(e.currentTarget.value)}
				/>
				{hint ? (
					<p class="field-hint" id={`${id}-hint`}>
						{hint}
					</p>
				) : null}
				{error ? (
					<p class="field-error" id={`${id}-error`}>
						{error}
					</p>
				) : null}
			</div>
		);
	}
	const input = INPUT[type === "file" ? "text" : type];
	return (
		<TextField
			label={label}
			{...(hint ? { hint } : {})}
			error={error}
			required={required}
			maxLength={10000}
			type={input.type}
			{...(input.autocomplete ? { autocomplete: input.autocomplete } : {})}
			{...(input.inputMode ? { inputMode: input.inputMode } : {})}
			value={value}
			onInput={onInput}
		/>
	);
}
