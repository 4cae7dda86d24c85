// A new request: a label, what it asks (a template's items, copied at save, or items written
// here), who may answer (password, identifier, proven identity), expiry and a callback URL tested
// on the spot. POST /api/collections/requests/records, then the request's own page.
import { useRef, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	Checkbox,
	ErrorAlert,
	Fieldset,
	LoadState,
	Notice,
	Page,
	SelectField,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { CallbackField } from "./callback-field.tsx";
import {
	checkItems,
	type ItemDraft,
	type ItemErrors,
	ItemsEditor,
	newItem,
	toItems,
} from "./items-editor.tsx";
import { ItemsTable } from "./items-table.tsx";
import { messages } from "./messages.ts";
import { RadioGroup } from "./radio-group.tsx";
import { endOfDay, identities, refusedField, requests, type Template, templates } from "./types.ts";

type Source = "template" | "items";
type Errors = Partial<
	Record<"label" | "template" | "items" | "expiresAt" | "callbackUrl" | "password", string>
>;

interface Choices {
	templateList: Template[];
	identityList: { id: string; name: string }[];
}

async function loadChoices(): Promise<Choices> {
	const [templateList, identityList] = await Promise.all([
		hasScope("template:read") ? templates.all({ sort: "name" }) : Promise.resolve([]),
		hasScope("identity:read")
			? identities.all({ filter: 'status = "active"', sort: "name" })
			: Promise.resolve([]),
	]);
	return { templateList, identityList };
}

/** Moves the keyboard to the first field marked invalid once the errors are rendered. */
function focusFirstInvalid(form: HTMLFormElement | null) {
	requestAnimationFrame(() => form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
}

export function CreateRequest() {
	const t = useT(messages);
	const choices = useLoad(loadChoices);
	const [label, setLabel] = useState("");
	const [source, setSource] = useState<Source | null>(null);
	const [templateId, setTemplateId] = useState("");
	const [items, setItems] = useState<ItemDraft[]>(() => [newItem()]);
	const [password, setPassword] = useState("");
	const [requiresIdentifier, setRequiresIdentifier] = useState(false);
	const [requireHandshake, setRequireHandshake] = useState(false);
	const [identityScope, setIdentityScope] = useState<"any" | "from_root">("any");
	const [allowExtraFields, setAllowExtraFields] = useState(false);
	const [identity, setIdentity] = useState("");
	const [expires, setExpires] = useState("");
	const [callbackUrl, setCallbackUrl] = useState("");
	const [errors, setErrors] = useState<Errors>({});
	const [itemErrors, setItemErrors] = useState<ItemErrors>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const form = useRef<HTMLFormElement>(null);

	const templateList = choices.data?.templateList ?? [];
	// Templates first when the workspace has some; written items otherwise.
	const chosenSource: Source = source ?? (templateList.length > 0 ? "template" : "items");
	const template = templateList.find((x) => x.id === templateId);

	async function submit(event: Event) {
		event.preventDefault();
		const problems: Errors = {};
		if (!label.trim()) problems.label = t("labelMissing");
		if (chosenSource === "template" && !template) problems.template = t("templateMissing");
		const wrongItems = chosenSource === "items" ? checkItems(items, t) : {};
		if (expires && new Date(endOfDay(expires)).getTime() <= Date.now()) problems.expiresAt = t("expiresPast");
		setErrors(problems);
		setItemErrors(wrongItems);
		if (Object.keys(problems).length > 0 || Object.keys(wrongItems).length > 0) {
			announce(t("formHasErrors"));
			focusFirstInvalid(form.current);
			return;
		}
		setBusy(true);
		setError(null);
		try {
			const { data } = await requests.create({
				label: label.trim(),
				...(chosenSource === "template" ? { template: templateId } : { items: toItems(items) }),
				...(password ? { password } : {}),
				requiresIdentifier,
				requireHandshake,
				...(requireHandshake ? { identityScope } : {}),
				allowExtraFields,
				...(identity ? { identity } : {}),
				...(expires ? { expiresAt: endOfDay(expires) } : {}),
				...(callbackUrl.trim() ? { callbackUrl: callbackUrl.trim() } : {}),
			});
			announce(t("createdNotice"));
			navigate(`/requests/${data.id}`);
		} catch (err) {
			const field = refusedField(err);
			if (field === "callbackUrl") setErrors({ callbackUrl: t("callbackRefused") });
			setError(err);
			setBusy(false);
		}
	}

	return (
		<Page title={t("createTitle")}>
			<p>
				<Link href="/requests">{t("backToList")}</Link>
			</p>
			<LoadState state={choices}>
				{(loaded) => (
					<form ref={form} class="req-form" onSubmit={(e) => void submit(e)} noValidate>
						<TextField
							label={t("label")}
							hint={t("labelHint")}
							required
							maxLength={200}
							autocomplete="off"
							value={label}
							onInput={setLabel}
							error={errors.label ?? null}
						/>
						<Fieldset legend={t("asks")}>
							<RadioGroup<Source>
								legend={t("asksFrom")}
								value={chosenSource}
								onChange={setSource}
								options={[
									{ value: "template", label: t("fromTemplate") },
									{ value: "items", label: t("fromItems") },
								]}
							/>
							{chosenSource === "template" ? (
								loaded.templateList.length === 0 ? (
									<Notice>{t("noTemplates")}</Notice>
								) : (
									<>
										<SelectField
											label={t("template")}
											hint={t("templateHint")}
											required
											value={templateId}
											onChange={setTemplateId}
											error={errors.template ?? null}
											options={[
												{ value: "", label: t("templateChoose") },
												...loaded.templateList.map((x) => ({ value: x.id, label: x.name })),
											]}
										/>
										{template ? (
											<ItemsTable
												items={template.items}
												caption={t("templateItems", { name: template.name })}
											/>
										) : null}
									</>
								)
							) : (
								<ItemsEditor items={items} errors={itemErrors} onChange={setItems} />
							)}
						</Fieldset>
						<Fieldset legend={t("who")}>
							<TextField
								label={t("password")}
								hint={t("passwordHint")}
								type="password"
								autocomplete="new-password"
								maxLength={256}
								value={password}
								onInput={setPassword}
							/>
							<Checkbox
								label={t("requiresIdentifier")}
								hint={t("requiresIdentifierHint")}
								checked={requiresIdentifier}
								onChange={setRequiresIdentifier}
							/>
							<Checkbox
								label={t("requireHandshake")}
								hint={t("requireHandshakeHint")}
								checked={requireHandshake}
								onChange={setRequireHandshake}
							/>
							{requireHandshake ? (
								<SelectField
									label={t("identityScope")}
									value={identityScope}
									onChange={(v) => setIdentityScope(v === "from_root" ? "from_root" : "any")}
									options={[
										{ value: "any", label: t("scope_any") },
										{ value: "from_root", label: t("scope_from_root") },
									]}
								/>
							) : null}
							<Checkbox
								label={t("allowExtraFields")}
								hint={t("allowExtraFieldsHint")}
								checked={allowExtraFields}
								onChange={setAllowExtraFields}
							/>
							{loaded.identityList.length > 0 ? (
								<SelectField
									label={t("identity")}
									hint={t("identityHint")}
									value={identity}
									onChange={setIdentity}
									options={[
										{ value: "", label: t("identityNone") },
										...loaded.identityList.map((i) => ({ value: i.id, label: i.name })),
									]}
								/>
							) : null}
						</Fieldset>
						<TextField
							label={t("expires")}
							hint={t("expiresHint")}
							type="date"
							value={expires}
							onInput={setExpires}
							error={errors.expiresAt ?? null}
						/>
						<CallbackField value={callbackUrl} onInput={setCallbackUrl} error={errors.callbackUrl ?? null} />
						<ErrorAlert error={error} />
						<div class="form-actions">
							<Button type="submit" variant="primary" busy={busy}>
								{t("createSubmit")}
							</Button>
							<Link href="/requests" class="btn btn-secondary">
								{t("cancel")}
							</Link>
						</div>
					</form>
				)}
			</LoadState>
		</Page>
	);
}
