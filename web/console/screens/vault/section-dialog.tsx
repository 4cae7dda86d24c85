// Create or rename a section: a name, and a key unique in the workspace (a taken key is 409
// `conflict`, said here in the section's own words). A new section goes to the end of the order.
import { useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Button, Dialog, ErrorAlert, TextField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { KEY_PATTERN, keyFrom, refusedField, type Section, sections } from "./types.ts";

export function SectionDialog({
	section,
	sectionList,
	onClose,
	onSaved,
}: {
	/** The section to rename; null for a new one. */
	section: Section | null;
	sectionList: Section[];
	onClose: () => void;
	onSaved: (said: string) => void;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [name, setName] = useState(section?.name ?? "");
	const [key, setKey] = useState(section?.key ?? "");
	const [keyTouched, setKeyTouched] = useState(section !== null);
	const [errors, setErrors] = useState<{ name?: string; key?: string }>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);

	async function submit(event: Event) {
		event.preventDefault();
		const found: typeof errors = {};
		if (!name.trim()) found.name = t("sectionNameRequired");
		if (!key) found.key = t("keyRequired");
		else if (!KEY_PATTERN.test(key)) found.key = t("keyInvalid");
		setErrors(found);
		if (Object.keys(found).length > 0) return;
		setBusy(true);
		setError(null);
		try {
			if (section) await sections.update(section.id, { name: name.trim(), key });
			else {
				const last = Math.max(0, ...sectionList.map((s) => s.ordering));
				await sections.create({ name: name.trim(), key, ordering: sectionList.length ? last + 1 : 0 });
			}
			onSaved(t("sectionSaved"));
		} catch (err) {
			if (err instanceof ApiError && err.code === "conflict") {
				setErrors({ key: t("sectionKeyTaken", { key }) });
			} else {
				const field = refusedField(err);
				if (field === "key" || field === "name") setErrors({ [field]: t("fieldRefused") });
			}
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={section ? t("renameTitle", { name: section.name }) : t("newSectionTitle")}
			open
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="vault-section-form">
						{section ? t("save") : t("addSection")}
					</Button>
				</>
			}
		>
			<form id="vault-section-form" onSubmit={(e) => void submit(e)} noValidate>
				<TextField
					label={t("sectionName")}
					required
					maxLength={200}
					value={name}
					onInput={(v) => {
						setName(v);
						if (!keyTouched) setKey(keyFrom(v));
					}}
					error={errors.name ?? null}
					autocomplete="off"
				/>
				<TextField
					label={t("key")}
					hint={t("sectionKeyHint")}
					required
					maxLength={64}
					value={key}
					onInput={(v) => {
						setKeyTouched(true);
						setKey(v.trim());
					}}
					error={errors.key ?? null}
					autocomplete="off"
					spellcheck={false}
				/>
			</form>
			<ErrorAlert error={error} />
		</Dialog>
	);
}
