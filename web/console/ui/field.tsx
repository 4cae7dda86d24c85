// Form fields with a visible label, an optional hint and an error tied to the input
// (aria-describedby, aria-invalid), as WCAG 3.3.1 and 3.3.2 ask.
import type { ComponentChildren, JSX } from "preact";
import { useId } from "preact/hooks";
import { useT } from "../i18n/index.ts";
import { uiMessages } from "./messages.ts";

interface Common {
	label: string;
	hint?: string;
	error?: string | null;
	required?: boolean;
}

function describedBy(id: string, hint?: string, error?: string | null): string | undefined {
	const ids = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean);
	return ids.length > 0 ? ids.join(" ") : undefined;
}

function Extras({
	id,
	hint,
	error,
}: {
	id: string;
	hint?: string | undefined;
	error?: string | null | undefined;
}) {
	return (
		<>
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
		</>
	);
}

function Label({ id, label, required }: { id: string; label: string; required?: boolean | undefined }) {
	const t = useT(uiMessages);
	return (
		<label for={id}>
			{label}
			{required ? <span class="field-required"> ({t("required")})</span> : null}
		</label>
	);
}

type InputProps = Common &
	Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "label" | "onInput"> & {
		value: string;
		onInput: (value: string) => void;
	};

export function TextField({
	label,
	hint,
	error,
	required,
	value,
	onInput,
	id: givenId,
	...rest
}: InputProps) {
	const generated = useId();
	const id = typeof givenId === "string" ? givenId : generated;
	return (
		<div class={`field${error ? " field-invalid" : ""}`}>
			<Label id={id} label={label} required={required} />
			<input
				{...rest}
				id={id}
				value={value}
				required={required}
				aria-invalid={error ? "true" : undefined}
				aria-describedby={describedBy(id, hint, error)}
				onInput={(e) => onInput(e.currentTarget.value)}
			/>
			<Extras id={id} hint={hint} error={error} />
		</div>
	);
}

type SelectProps = Common & {
	value: string;
	onChange: (value: string) => void;
	options: { value: string; label: string }[];
	id?: string;
};

export function SelectField({
	label,
	hint,
	error,
	required,
	value,
	onChange,
	options,
	id: givenId,
}: SelectProps) {
	const generated = useId();
	const id = givenId ?? generated;
	return (
		<div class={`field${error ? " field-invalid" : ""}`}>
			<Label id={id} label={label} required={required} />
			<select
				id={id}
				value={value}
				required={required}
				aria-invalid={error ? "true" : undefined}
				aria-describedby={describedBy(id, hint, error)}
				onChange={(e) => onChange(e.currentTarget.value)}
			>
				{options.map((o) => (
					<option key={o.value} value={o.value}>
						{o.label}
					</option>
				))}
			</select>
			<Extras id={id} hint={hint} error={error} />
		</div>
	);
}

export function Checkbox({
	label,
	hint,
	checked,
	onChange,
	name,
}: {
	label: string;
	hint?: string;
	checked: boolean;
	onChange: (checked: boolean) => void;
	name?: string;
}) {
	const id = useId();
	return (
		<div class="checkbox">
			<input
				type="checkbox"
				id={id}
				name={name}
				checked={checked}
				aria-describedby={hint ? `${id}-hint` : undefined}
				onChange={(e) => onChange(e.currentTarget.checked)}
			/>
			<label for={id}>{label}</label>
			{hint ? (
				<p class="field-hint" id={`${id}-hint`}>
					{hint}
				</p>
			) : null}
		</div>
	);
}

/** A group of related controls with a legend (checkbox lists, radio groups). */
export function Fieldset({
	legend,
	error,
	children,
}: {
	legend: string;
	error?: string | null;
	children: ComponentChildren;
}) {
	const id = useId();
	return (
		<fieldset class="fieldset" aria-describedby={error ? `${id}-error` : undefined}>
			<legend>{legend}</legend>
			{children}
			{error ? (
				<p class="field-error" id={`${id}-error`}>
					{error}
				</p>
			) : null}
		</fieldset>
	);
}
