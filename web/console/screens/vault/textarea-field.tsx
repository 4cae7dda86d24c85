// A labelled multi-line text field with a hint and an error tied to it, like the shared TextField.
import type { JSX } from "preact";
import { useId } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { uiMessages } from "../../ui/messages.ts";

type Props = Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, "label" | "onInput" | "value"> & {
	label: string;
	hint?: string;
	error?: string | null;
	required?: boolean;
	value: string;
	onInput: (value: string) => void;
};

export function TextAreaField({ label, hint, error, required, value, onInput, ...rest }: Props) {
	const t = useT(uiMessages);
	const id = useId();
	const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
	return (
		<div class={`field${error ? " field-invalid" : ""}`}>
			<label for={id}>
				{label}
				{required ? <span class="field-required"> ({t("required")})</span> : null}
			</label>
			<textarea
				{...rest}
				id={id}
				value={value}
				required={required}
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
