// The two parts of a new request's form: what it asks (a template's items, or items written here)
// and who may answer (password, identifier, proven identity, extra fields, the identity to sign).
import { useT } from "../../i18n/index.ts";
import { Checkbox, Fieldset, Notice, SelectField, TextField } from "../../ui/index.ts";
import { type ItemDraft, type ItemErrors, ItemsEditor } from "./items-editor.tsx";
import { ItemsTable } from "./items-table.tsx";
import { messages } from "./messages.ts";
import { RadioGroup } from "./radio-group.tsx";
import type { Template } from "./types.ts";

export type Source = "template" | "items";

export interface Who {
	password: string;
	requiresIdentifier: boolean;
	requireHandshake: boolean;
	identityScope: "any" | "from_root";
	allowExtraFields: boolean;
	/** A responder without an account may sign up here to answer (answer-only). */
	allowAnswerSignup: boolean;
	/** The identity that signs the request; "" for none. */
	identity: string;
}

/** Who may answer when nothing is chosen: anyone with the link. */
export const ANYONE: Who = {
	password: "",
	requiresIdentifier: false,
	requireHandshake: false,
	identityScope: "any",
	allowExtraFields: false,
	allowAnswerSignup: false,
	identity: "",
};

export function AsksFields({
	source,
	onSource,
	templateList,
	templateId,
	onTemplate,
	items,
	onItems,
	errors,
	itemErrors,
}: {
	source: Source;
	onSource: (source: Source) => void;
	templateList: Template[];
	templateId: string;
	onTemplate: (id: string) => void;
	items: ItemDraft[];
	onItems: (items: ItemDraft[]) => void;
	errors: { template?: string };
	itemErrors: ItemErrors;
}) {
	const t = useT(messages);
	const template = templateList.find((x) => x.id === templateId);
	return (
		<Fieldset legend={t("asks")}>
			<RadioGroup<Source>
				legend={t("asksFrom")}
				value={source}
				onChange={onSource}
				options={[
					{ value: "template", label: t("fromTemplate") },
					{ value: "items", label: t("fromItems") },
				]}
			/>
			{source === "template" ? (
				templateList.length === 0 ? (
					<Notice>{t("noTemplates")}</Notice>
				) : (
					<>
						<SelectField
							label={t("template")}
							hint={t("templateHint")}
							required
							value={templateId}
							onChange={onTemplate}
							error={errors.template ?? null}
							options={[
								{ value: "", label: t("templateChoose") },
								...templateList.map((x) => ({ value: x.id, label: x.name })),
							]}
						/>
						{template ? (
							<ItemsTable items={template.items} caption={t("templateItems", { name: template.name })} />
						) : null}
					</>
				)
			) : (
				<ItemsEditor items={items} errors={itemErrors} onChange={onItems} />
			)}
		</Fieldset>
	);
}

export function WhoFields({
	who,
	onChange,
	identityList,
}: {
	who: Who;
	onChange: (patch: Partial<Who>) => void;
	identityList: { id: string; name: string }[];
}) {
	const t = useT(messages);
	return (
		<Fieldset legend={t("who")}>
			<TextField
				label={t("password")}
				hint={t("passwordHint")}
				type="password"
				autocomplete="new-password"
				maxLength={256}
				value={who.password}
				onInput={(password) => onChange({ password })}
			/>
			<Checkbox
				label={t("requiresIdentifier")}
				hint={t("requiresIdentifierHint")}
				checked={who.requiresIdentifier}
				onChange={(requiresIdentifier) => onChange({ requiresIdentifier })}
			/>
			<Checkbox
				label={t("requireHandshake")}
				hint={t("requireHandshakeHint")}
				checked={who.requireHandshake}
				onChange={(requireHandshake) => onChange({ requireHandshake })}
			/>
			{who.requireHandshake ? (
				<SelectField
					label={t("identityScope")}
					value={who.identityScope}
					onChange={(v) => onChange({ identityScope: v === "from_root" ? "from_root" : "any" })}
					options={[
						{ value: "any", label: t("scope_any") },
						{ value: "from_root", label: t("scope_from_root") },
					]}
				/>
			) : null}
			<Checkbox
				label={t("allowExtraFields")}
				hint={t("allowExtraFieldsHint")}
				checked={who.allowExtraFields}
				onChange={(allowExtraFields) => onChange({ allowExtraFields })}
			/>
			<Checkbox
				label={t("allowAnswerSignup")}
				hint={t("allowAnswerSignupHint")}
				checked={who.allowAnswerSignup}
				onChange={(allowAnswerSignup) => onChange({ allowAnswerSignup })}
			/>
			{identityList.length > 0 ? (
				<SelectField
					label={t("identity")}
					hint={t("identityHint")}
					value={who.identity}
					onChange={(identity) => onChange({ identity })}
					options={[
						{ value: "", label: t("identityNone") },
						...identityList.map((i) => ({ value: i.id, label: i.name })),
					]}
				/>
			) : null}
		</Fieldset>
	);
}
