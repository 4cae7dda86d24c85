// Issuing an attestation: type, label, claims one per row (name, kind, value), optional validity
// and subject. The offer's token comes once, in the X-Attestation-Token header.
import { useState } from "preact/hooks";
import { type Translate, useT } from "../../i18n/index.ts";
import { me } from "../../session.ts";
import { Button, Dialog, ErrorAlert, Fieldset, SelectField, TextField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { attestations } from "./types.ts";

type Kind = "text" | "number" | "boolean";
interface ClaimRow {
	key: number;
	name: string;
	kind: Kind;
	value: string;
}

const NAME = /^[A-Za-z0-9_]{1,64}$/;
let rowKeys = 0;
const newRow = (): ClaimRow => ({ key: ++rowKeys, name: "", kind: "text", value: "" });

function claimValue(row: ClaimRow): string | number | boolean {
	if (row.kind === "number") return Number(row.value);
	if (row.kind === "boolean") return row.value === "true";
	return row.value;
}

/** The form's mistakes keyed by field (`type`, `claims`, `name-<row>`, `value-<row>`). */
function problemsOf(
	t: Translate<keyof (typeof messages)["en"]>,
	type: string,
	filled: ClaimRow[],
): Record<string, string> {
	const problems: Record<string, string> = {};
	if (!/^\S{1,255}$/.test(type.trim())) problems.type = t("typeRequired");
	if (filled.length === 0) problems.claims = t("claimsRequired");
	for (const r of filled) {
		if (!NAME.test(r.name.trim())) problems[`name-${r.key}`] = t("claimNameInvalid");
		if (r.kind === "number" && (r.value.trim() === "" || !Number.isFinite(Number(r.value)))) {
			problems[`value-${r.key}`] = t("claimNumberInvalid");
		}
	}
	return problems;
}

function ClaimFields({
	rows,
	setRows,
	errors,
}: {
	rows: ClaimRow[];
	setRows: (update: (list: ClaimRow[]) => ClaimRow[]) => void;
	errors: Record<string, string>;
}) {
	const t = useT(messages);
	const change = (key: number, patch: Partial<ClaimRow>) =>
		setRows((list) => list.map((r) => (r.key === key ? { ...r, ...patch } : r)));
	return (
		<Fieldset legend={t("claims")} error={errors.claims ?? null}>
			<p class="field-hint">{t("claimsHint")}</p>
			{rows.map((r, i) => (
				<div class="claim-row" key={r.key}>
					<TextField
						label={`${t("claimName")} ${i + 1}`}
						maxLength={64}
						value={r.name}
						onInput={(v) => change(r.key, { name: v })}
						error={errors[`name-${r.key}`] ?? null}
						autocomplete="off"
					/>
					<SelectField
						label={`${t("claimKind")} ${i + 1}`}
						value={r.kind}
						onChange={(v) => change(r.key, { kind: v as Kind, value: v === "boolean" ? "true" : "" })}
						options={[
							{ value: "text", label: t("kindText") },
							{ value: "number", label: t("kindNumber") },
							{ value: "boolean", label: t("kindBoolean") },
						]}
					/>
					{r.kind === "boolean" ? (
						<SelectField
							label={`${t("claimValue")} ${i + 1}`}
							value={r.value}
							onChange={(v) => change(r.key, { value: v })}
							options={[
								{ value: "true", label: t("yes") },
								{ value: "false", label: t("no") },
							]}
						/>
					) : (
						<TextField
							label={`${t("claimValue")} ${i + 1}`}
							inputMode={r.kind === "number" ? "decimal" : undefined}
							maxLength={2000}
							value={r.value}
							onInput={(v) => change(r.key, { value: v })}
							error={errors[`value-${r.key}`] ?? null}
							autocomplete="off"
						/>
					)}
					<Button
						class="btn-small"
						aria-label={t("removeClaim", { n: i + 1 })}
						disabled={rows.length === 1}
						onClick={() => setRows((list) => list.filter((x) => x.key !== r.key))}
					>
						×
					</Button>
				</div>
			))}
			<Button class="btn-small" onClick={() => setRows((list) => [...list, newRow()])}>
				{t("addClaim")}
			</Button>
		</Fieldset>
	);
}

export function Issue({
	open,
	onClose,
	onIssued,
}: {
	open: boolean;
	onClose: () => void;
	onIssued: (token: string) => void;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [type, setType] = useState("");
	const [label, setLabel] = useState("");
	const [rows, setRows] = useState<ClaimRow[]>([newRow()]);
	const [expires, setExpires] = useState("");
	const [subject, setSubject] = useState("");
	const [errors, setErrors] = useState<Record<string, string>>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);

	async function submit(event: Event) {
		event.preventDefault();
		const filled = rows.filter((r) => r.name.trim() !== "" || r.value !== "");
		const problems = problemsOf(t, type, filled);
		setErrors(problems);
		if (Object.keys(problems).length > 0) return;
		setBusy(true);
		setError(null);
		try {
			const res = await attestations.create({
				workspace: me.get()?.workspace ?? "",
				type: type.trim(),
				label: label.trim(),
				claims: Object.fromEntries(filled.map((r) => [r.name.trim(), claimValue(r)])),
				...(expires ? { expiresAt: new Date(`${expires}T23:59:59.999`).toISOString() } : {}),
				...(subject.trim() ? { subjectFingerprint: subject.trim().toLowerCase() } : {}),
			});
			const token = res.headers.get("x-attestation-token") ?? "";
			setType("");
			setLabel("");
			setRows([newRow()]);
			setExpires("");
			setSubject("");
			onIssued(token);
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={t("createTitle")}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="issue-form">
						{t("create")}
					</Button>
				</>
			}
		>
			<form id="issue-form" onSubmit={(e) => void submit(e)} noValidate>
				<TextField
					label={t("type")}
					hint={t("typeHint")}
					required
					maxLength={255}
					value={type}
					onInput={setType}
					error={errors.type ?? null}
					autocomplete="off"
				/>
				<TextField
					label={t("label")}
					hint={t("labelHint")}
					maxLength={200}
					value={label}
					onInput={setLabel}
				/>
				<ClaimFields rows={rows} setRows={setRows} errors={errors} />
				<TextField
					label={t("expires")}
					hint={t("expiresHint")}
					type="date"
					value={expires}
					onInput={setExpires}
				/>
				<TextField
					label={t("subject")}
					hint={t("subjectHint")}
					maxLength={64}
					value={subject}
					onInput={setSubject}
					autocomplete="off"
				/>
			</form>
			<ErrorAlert error={error} />
		</Dialog>
	);
}
