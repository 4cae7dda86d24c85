// One item of the request: answered by one of the responder's vault entries (linked as it is, so a
// later change reaches the requester), by a value typed here (saved in their vault as a new
// entry), or left out when optional.
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { SelectField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { TypedInput } from "./typed-input.tsx";
import type { Choice, TemplateItem, VaultRecord } from "./types.ts";

/** What an entry holds, as the responder recognises it (hidden entries stay masked). */
export function entryText(record: VaultRecord, hiddenText: string): string {
	if (record.file) return record.file.name;
	if (record.hidden) return hiddenText;
	return record.value ?? "";
}

function Radio({
	name,
	id,
	checked,
	onPick,
	children,
}: {
	name: string;
	id: string;
	checked: boolean;
	onPick: () => void;
	children: ComponentChildren;
}) {
	return (
		<div class="checkbox">
			<input type="radio" id={id} name={name} checked={checked} onChange={onPick} />
			<label for={id}>{children}</label>
		</div>
	);
}

export function ItemField({
	item,
	candidates,
	choice,
	onChange,
	error,
}: {
	item: TemplateItem;
	candidates: VaultRecord[];
	choice: Choice;
	onChange: (choice: Choice) => void;
	error: string | null;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const id = useId();
	const typeText = t(`type_${item.type}`);
	const hint = [item.description, typeText].filter(Boolean).join(" · ");

	if (item.type === "file") {
		if (candidates.length === 0) {
			return (
				<div class={`answer-item${error ? " field-invalid" : ""}`}>
					<p class="answer-item-title">
						{item.label}
						{item.required ? <span class="field-required"> ({ui("required")})</span> : null}
					</p>
					<p class="field-hint">{hint}</p>
					<p>
						{t("noFile")} <Link href="/vault">{t("toVault")}</Link>
					</p>
					{error ? <p class="field-error">{error}</p> : null}
				</div>
			);
		}
		return (
			<SelectField
				label={item.label}
				hint={`${hint} · ${t("fileHint")}`}
				required={item.required}
				error={error}
				value={choice.mode === "entry" ? choice.recordId : ""}
				onChange={(recordId) => onChange(recordId ? { mode: "entry", recordId } : { mode: "none" })}
				options={[
					{ value: "", label: item.required ? t("fileChoose") : t("leaveOut") },
					...candidates.map((r) => ({ value: r.id, label: `${r.name} (${r.file?.name ?? r.key})` })),
				]}
			/>
		);
	}

	const typed = choice.mode === "typed" ? choice.text : "";
	if (candidates.length === 0) {
		return (
			<div class="answer-item">
				<TypedInput
					type={item.type}
					label={item.label}
					hint={`${hint}. ${t("typedNew")}`}
					error={error}
					required={item.required}
					value={typed}
					onInput={(text) => onChange({ mode: "typed", text })}
				/>
			</div>
		);
	}

	return (
		<fieldset
			class={`fieldset answer-item${error ? " field-invalid" : ""}`}
			aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}
		>
			<legend>
				{item.label}
				{item.required ? <span class="field-required"> ({ui("required")})</span> : null}
			</legend>
			<p class="field-hint" id={`${id}-hint`}>
				{hint}
			</p>
			{candidates.map((r) => (
				<Radio
					key={r.id}
					name={id}
					id={`${id}-${r.id}`}
					checked={choice.mode === "entry" && choice.recordId === r.id}
					onPick={() => onChange({ mode: "entry", recordId: r.id })}
				>
					{t("useEntry", { name: r.name })}:{" "}
					<span class="answer-entry-value">{entryText(r, t("hiddenEntry"))}</span>
				</Radio>
			))}
			<Radio
				name={id}
				id={`${id}-typed`}
				checked={choice.mode === "typed"}
				onPick={() => onChange({ mode: "typed", text: typed })}
			>
				{t("typeInstead")}
			</Radio>
			{item.required ? null : (
				<Radio
					name={id}
					id={`${id}-none`}
					checked={choice.mode === "none"}
					onPick={() => onChange({ mode: "none" })}
				>
					{t("leaveOut")}
				</Radio>
			)}
			{choice.mode === "typed" ? (
				<div class="answer-typed">
					<TypedInput
						type={item.type}
						label={t("typedLabel", { label: item.label })}
						hint={t("typedNew")}
						error={null}
						required={item.required}
						value={typed}
						onInput={(text) => onChange({ mode: "typed", text })}
					/>
				</div>
			) : null}
			{error ? (
				<p class="field-error" id={`${id}-error`}>
					{error}
				</p>
			) : null}
		</fieldset>
	);
}
