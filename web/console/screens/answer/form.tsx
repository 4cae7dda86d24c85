// The answer form: each item of the request answered from the responder's vault or typed, the
// password and identifier when the request asks for them, an optional name; sent as
// POST /api/public/requests/{slug} with `entries` (linked as they are) and `values` (typed).
import { useRef, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { type Translate, useT } from "../../i18n/index.ts";
import { me } from "../../session.ts";
import { useObservable } from "../../state.ts";
import { announce, Button, ErrorAlert, Fieldset, Notice, TextField } from "../../ui/index.ts";
import { entryText, ItemField } from "./item-field.tsx";
import { messages } from "./messages.ts";
import {
	type AnswerBody,
	type Answered,
	answer,
	type Choice,
	candidatesFor,
	initialChoice,
	type Probe,
	type VaultRecord,
} from "./types.ts";

export interface Shared {
	label: string;
	text: string;
	/** Linked from the vault (living) or typed here (a new entry). */
	from: "entry" | "typed";
}

/** The required items left without an answer, each with its mistake. */
function missingItems(
	t: Translate<keyof (typeof messages)["en"]>,
	probe: Probe,
	choices: Record<string, Choice>,
): Record<string, string> {
	const problems: Record<string, string> = {};
	for (const item of probe.template) {
		const c = choices[item.key] ?? { mode: "none" };
		const empty = c.mode === "none" || (c.mode === "typed" && !c.text.trim());
		if (item.required && empty) problems[item.key] = t(item.type === "file" ? "fileMissing" : "itemMissing");
	}
	return problems;
}

/** The answer's entries (linked) and values (typed), and what it shares in words for the result. */
function answered(
	probe: Probe,
	choices: Record<string, Choice>,
	vault: VaultRecord[],
	hiddenText: string,
): { body: AnswerBody; shared: Shared[] } {
	const body: AnswerBody = {};
	const shared: Shared[] = [];
	for (const item of probe.template) {
		const c = choices[item.key];
		if (c?.mode === "entry") {
			body.entries = { ...body.entries, [item.key]: c.recordId };
			const record = vault.find((r) => r.id === c.recordId);
			shared.push({ label: item.label, text: record ? entryText(record, hiddenText) : "", from: "entry" });
		} else if (c?.mode === "typed" && c.text.trim()) {
			body.values = { ...body.values, [item.key]: c.text.trim() };
			shared.push({ label: item.label, text: c.text.trim(), from: "typed" });
		}
	}
	return { body, shared };
}

/** The identifier and password when the request asks for them, and the responder's name. */
function AboutYou({
	probe,
	identifier,
	onIdentifier,
	identifierError,
	senderName,
	onSenderName,
	password,
	onPassword,
	passwordError,
}: {
	probe: Probe;
	identifier: string;
	onIdentifier: (value: string) => void;
	identifierError: string | null;
	senderName: string;
	onSenderName: (value: string) => void;
	password: string;
	onPassword: (value: string) => void;
	passwordError: string | null;
}) {
	const t = useT(messages);
	return (
		<Fieldset legend={t("aboutYou")}>
			{probe.requiresIdentifier ? (
				<TextField
					label={t("identifier")}
					hint={t("identifierHint", { name: probe.requester.name })}
					required
					maxLength={200}
					autocomplete="off"
					value={identifier}
					onInput={onIdentifier}
					error={identifierError}
				/>
			) : null}
			<TextField
				label={t("senderName")}
				hint={t("senderNameHint")}
				maxLength={200}
				autocomplete="name"
				value={senderName}
				onInput={onSenderName}
			/>
			{probe.requiresPassword ? (
				<TextField
					label={t("password")}
					hint={t("passwordHint")}
					type="password"
					required
					maxLength={200}
					autocomplete="off"
					value={password}
					onInput={onPassword}
					error={passwordError}
				/>
			) : null}
		</Fieldset>
	);
}

export function AnswerForm({
	slug,
	probe,
	vault,
	onAnswered,
	send = (body) => answer(slug, body),
}: {
	slug: string;
	probe: Probe;
	vault: VaultRecord[];
	onAnswered: (result: Answered, shared: Shared[]) => void;
	/** Sends the answer: here by default; to another server's request through this one. */
	send?: (body: AnswerBody) => Promise<Answered>;
}) {
	const t = useT(messages);
	const account = useObservable(me);
	const [choices, setChoices] = useState<Record<string, Choice>>(() =>
		Object.fromEntries(probe.template.map((item) => [item.key, initialChoice(item, vault)])),
	);
	const [password, setPassword] = useState("");
	const [identifier, setIdentifier] = useState("");
	const [senderName, setSenderName] = useState("");
	const [itemErrors, setItemErrors] = useState<Record<string, string>>({});
	const [passwordError, setPasswordError] = useState<string | null>(null);
	const [identifierError, setIdentifierError] = useState<string | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [elsewhere, setElsewhere] = useState<string | null>(null);
	const [busy, setBusy] = useState(false);
	const form = useRef<HTMLFormElement>(null);
	const workspace = account?.workspaces.find((w) => w.id === account.workspace);
	const blocked = probe.requireHandshake;

	function check(): boolean {
		const problems = missingItems(t, probe, choices);
		setItemErrors(problems);
		const pw = probe.requiresPassword && !password ? t("passwordMissing") : null;
		const id = probe.requiresIdentifier && !identifier.trim() ? t("identifierMissing") : null;
		setPasswordError(pw);
		setIdentifierError(id);
		return Object.keys(problems).length === 0 && !pw && !id;
	}

	/** Puts a refusal next to the field it names. */
	function place(err: unknown) {
		if (!(err instanceof ApiError)) return;
		const field = typeof err.problem.field === "string" ? err.problem.field : "";
		const item = /^body\.(?:values|entries)\.(.+)$/.exec(field)?.[1];
		const refused = probe.template.find((i) => i.key === item);
		if (refused) setItemErrors({ [refused.key]: t("itemRefused", { type: t(`type_${refused.type}`) }) });
		if (field === "body.identifier") setIdentifierError(t("identifierMissing"));
		if (err.code === "link_password_required") setPasswordError(t("passwordMissing"));
		if (err.code === "link_password_invalid") setPasswordError(t("passwordWrong"));
		if (err.code === "conflict" && typeof err.problem.workspace === "string") {
			const held = account?.workspaces.find((w) => w.id === err.problem.workspace);
			setElsewhere(held?.name ?? err.problem.workspace);
		}
	}

	async function submit(event: Event) {
		event.preventDefault();
		setElsewhere(null);
		setError(null);
		if (!check()) {
			announce(t("formHasErrors"));
			// The first field with a problem takes the keyboard once the errors are rendered.
			requestAnimationFrame(() =>
				form.current
					?.querySelector<HTMLElement>('[aria-invalid="true"], .field-invalid input, .field-invalid select')
					?.focus(),
			);
			return;
		}
		const { body, shared } = answered(probe, choices, vault, t("hiddenEntry"));
		if (probe.requiresPassword) body.password = password;
		if (probe.requiresIdentifier) body.identifier = identifier.trim();
		if (senderName.trim()) body.senderName = senderName.trim();
		setBusy(true);
		try {
			onAnswered(await send(body), shared);
		} catch (err) {
			place(err);
			setError(err);
			setBusy(false);
		}
	}

	return (
		<form ref={form} class="answer-form" onSubmit={(e) => void submit(e)} noValidate>
			{blocked ? (
				<div class="alert alert-error" id="answer-handshake">
					<p>
						<strong>{t("handshakeTitle")}</strong>
					</p>
					<p>{t("handshakeText")}</p>
				</div>
			) : null}
			<h2>{t("itemsHeading")}</h2>
			{probe.template.map((item) => (
				<ItemField
					key={item.key}
					item={item}
					candidates={candidatesFor(item, vault)}
					choice={choices[item.key] ?? { mode: "none" }}
					onChange={(c) => setChoices((all) => ({ ...all, [item.key]: c }))}
					error={itemErrors[item.key] ?? null}
				/>
			))}
			<AboutYou
				probe={probe}
				identifier={identifier}
				onIdentifier={setIdentifier}
				identifierError={identifierError}
				senderName={senderName}
				onSenderName={setSenderName}
				password={password}
				onPassword={setPassword}
				passwordError={passwordError}
			/>
			<p class="meta">
				{workspace ? t("keptIn", { workspace: workspace.name }) : null} {t("livingNote")}
			</p>
			{elsewhere ? <Notice>{t("answeredElsewhere", { workspace: elsewhere })}</Notice> : null}
			<ErrorAlert error={error} />
			<div class="form-actions">
				<Button
					type="submit"
					variant="primary"
					busy={busy}
					disabled={blocked}
					aria-describedby={blocked ? "answer-handshake" : undefined}
				>
					{t("submit")}
				</Button>
			</div>
		</form>
	);
}
