// Create or edit an entry: its name first, then the key apps ask for (made from the name until the
// person changes it), section, hidden, and for a value entry either its own text
// or an alias of another value entry (one level deep: docs/api.md "Records"). A file entry's bytes
// are replaced in the file dialog; here only its details change.
import { useId, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { hasScope } from "../../session.ts";
import { Button, Checkbox, Dialog, ErrorAlert, Fieldset, SelectField, TextField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { TextAreaField } from "./textarea-field.tsx";
import { KEY_PATTERN, keyFrom, records, refusedField, type Section, type VaultRecord } from "./types.ts";

type Errors = Partial<Record<"key" | "name" | "value" | "alias" | "section", string>>;

/** Hiding is for owners and admins: for others a hidden entry does not exist, so no box. */
function HiddenBox({ checked, onChange }: { checked: boolean; onChange: (hidden: boolean) => void }) {
	const t = useT(messages);
	if (!hasScope("hidden:write")) return null;
	return <Checkbox label={t("hidden")} hint={t("hiddenHint")} checked={checked} onChange={onChange} />;
}

export function EntryDialog({
	entry,
	all,
	sectionList,
	onClose,
	onSaved,
}: {
	/** The entry to edit; null for a new one. */
	entry: VaultRecord | null;
	all: VaultRecord[];
	sectionList: Section[];
	onClose: () => void;
	onSaved: (said: string) => void;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const isFile = entry?.type === "file";
	const aliasedBy = entry ? all.filter((r) => r.alias === entry.id).length : 0;
	const targets = all.filter((r) => r.type === "value" && r.alias === null && r.id !== entry?.id);
	const [key, setKey] = useState(entry?.key ?? "");
	const [name, setName] = useState(entry?.name ?? "");
	// A new entry's key follows its name until the person types a key of their own.
	const [keyTouched, setKeyTouched] = useState(entry !== null);
	const [kind, setKind] = useState<"text" | "alias">(entry?.alias ? "alias" : "text");
	const [value, setValue] = useState(entry?.value ?? "");
	const [target, setTarget] = useState(entry?.alias ?? "");
	const [section, setSection] = useState(entry?.section ?? "");
	const [hidden, setHidden] = useState(entry?.hidden ?? false);
	const [errors, setErrors] = useState<Errors>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);

	function check(): Errors {
		const found: Errors = {};
		if (!key) found.key = t("keyRequired");
		else if (!KEY_PATTERN.test(key)) found.key = t("keyInvalid");
		if (!isFile && kind === "alias" && !target) found.alias = t("targetRequired");
		return found;
	}

	async function submit(event: Event) {
		event.preventDefault();
		const found = check();
		setErrors(found);
		if (Object.keys(found).length > 0) return;
		const body: Record<string, unknown> = { key, section: section || null, hidden };
		if (name.trim()) body.name = name.trim();
		else if (entry) body.name = key;
		if (!isFile) {
			if (kind === "alias") body.alias = target;
			else {
				body.value = value;
				if (entry) body.alias = null;
			}
		}
		setBusy(true);
		setError(null);
		try {
			if (entry) await records.update(entry.id, body);
			else await records.create(body);
			onSaved(t(entry ? "entrySaved" : "entryAdded"));
		} catch (err) {
			const field = refusedField(err);
			if (field && ["key", "name", "value", "alias", "section"].includes(field))
				setErrors({ [field]: t("fieldRefused") });
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={entry ? t("editEntryTitle", { name: entry.name }) : t("newEntryTitle")}
			open
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="vault-entry-form">
						{entry ? t("save") : t("addEntry")}
					</Button>
				</>
			}
		>
			<form id="vault-entry-form" onSubmit={(e) => void submit(e)} noValidate>
				<NameAndKey
					name={name}
					keyValue={key}
					isNew={entry === null}
					errors={errors}
					onName={(v) => {
						setName(v);
						if (!keyTouched) setKey(keyFrom(v));
					}}
					onKey={(v) => {
						setKeyTouched(true);
						setKey(v.trim());
					}}
				/>
				{isFile ? null : (
					<Fieldset legend={t("kind")}>
						<Radio
							name="vault-kind"
							label={t("kindText")}
							hint={t("kindTextHint")}
							checked={kind === "text"}
							onCheck={() => setKind("text")}
						/>
						<Radio
							name="vault-kind"
							label={t("kindAlias")}
							hint={aliasedBy > 0 ? t("aliasBlocked") : t("kindAliasHint")}
							checked={kind === "alias"}
							disabled={aliasedBy > 0}
							onCheck={() => setKind("alias")}
						/>
					</Fieldset>
				)}
				{isFile ? null : kind === "text" ? (
					<TextAreaField
						label={t("value")}
						hint={t("valueHint", { max: 100_000 })}
						rows={4}
						maxLength={100_000}
						value={value}
						onInput={setValue}
						error={errors.value ?? null}
					/>
				) : (
					<SelectField
						label={t("target")}
						hint={targets.length === 0 ? t("targetNone") : t("targetHint")}
						required
						value={target}
						onChange={setTarget}
						error={errors.alias ?? null}
						options={[
							{ value: "", label: t("targetChoose") },
							...targets.map((r) => ({ value: r.id, label: `${r.name} (${r.key})` })),
						]}
					/>
				)}
				<SelectField
					label={t("section")}
					value={section}
					onChange={setSection}
					error={errors.section ?? null}
					options={[
						{ value: "", label: t("noSection") },
						...sectionList.map((s) => ({ value: s.id, label: s.name })),
					]}
				/>
				<HiddenBox checked={hidden} onChange={setHidden} />
			</form>
			<ErrorAlert error={error} />
		</Dialog>
	);
}

/** The name first, then the key apps ask for (made from the name until the person types one). */
function NameAndKey({
	name,
	keyValue,
	isNew,
	errors,
	onName,
	onKey,
}: {
	name: string;
	keyValue: string;
	isNew: boolean;
	errors: Errors;
	onName: (value: string) => void;
	onKey: (value: string) => void;
}) {
	const t = useT(messages);
	return (
		<>
			<TextField
				label={t("name")}
				hint={t("nameHint")}
				maxLength={200}
				value={name}
				onInput={onName}
				error={errors.name ?? null}
				autocomplete="off"
			/>
			<TextField
				label={t("key")}
				hint={t(isNew ? "keyFromNameHint" : "keyHint")}
				required
				maxLength={64}
				value={keyValue}
				onInput={onKey}
				error={errors.key ?? null}
				autocomplete="off"
				spellcheck={false}
			/>
		</>
	);
}

function Radio({
	name,
	label,
	hint,
	checked,
	disabled,
	onCheck,
}: {
	name: string;
	label: string;
	hint: string;
	checked: boolean;
	disabled?: boolean;
	onCheck: () => void;
}) {
	const id = useId();
	return (
		<div class="checkbox">
			<input
				type="radio"
				id={id}
				name={name}
				checked={checked}
				disabled={disabled}
				aria-describedby={`${id}-hint`}
				onChange={(e) => e.currentTarget.checked && onCheck()}
			/>
			<label for={id}>{label}</label>
			<p class="field-hint" id={`${id}-hint`}>
				{hint}
			</p>
		</div>
	);
}
