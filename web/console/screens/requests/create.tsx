// A new request: a label, what it asks (a template's items, copied at save, or items written
// here), who may answer (password, identifier, proven identity), expiry and a callback URL tested
// on the spot. POST /api/collections/requests/records, then the request's own page.
import { useRef, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { hasScope } from "../../session.ts";
import { announce, Button, ErrorAlert, LoadState, Page, TextField, useLoad } from "../../ui/index.ts";
import { CallbackField } from "./callback-field.tsx";
import { ANYONE, AsksFields, type Source, type Who, WhoFields } from "./create-fields.tsx";
import { checkItems, type ItemDraft, type ItemErrors, newItem, toItems } from "./items-editor.tsx";
import { messages } from "./messages.ts";
import { endOfDay, identities, refusedField, requests, type Template, templates } from "./types.ts";

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
	const [who, setWho] = useState<Who>(ANYONE);
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
				...(who.password ? { password: who.password } : {}),
				requiresIdentifier: who.requiresIdentifier,
				requireHandshake: who.requireHandshake,
				...(who.requireHandshake ? { identityScope: who.identityScope } : {}),
				allowExtraFields: who.allowExtraFields,
				allowAnswerSignup: who.allowAnswerSignup,
				...(who.identity ? { identity: who.identity } : {}),
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
						<AsksFields
							source={chosenSource}
							onSource={setSource}
							templateList={loaded.templateList}
							templateId={templateId}
							onTemplate={setTemplateId}
							items={items}
							onItems={setItems}
							errors={errors}
							itemErrors={itemErrors}
						/>
						<WhoFields
							who={who}
							onChange={(patch) => setWho((w) => ({ ...w, ...patch }))}
							identityList={loaded.identityList}
						/>
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
