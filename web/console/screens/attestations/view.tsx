// Attestations of the active workspace: list, issue (type, label, claims one per line, optional
// validity and subject; the offer link is shown once), revoke.
import { useState } from "preact/hooks";
import { collection } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { serverInfo } from "../../server-info.ts";
import { hasScope, me } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	CopyField,
	DataTable,
	DateTime,
	Dialog,
	EmptyState,
	ErrorAlert,
	Fieldset,
	LoadState,
	Page,
	SelectField,
	StatusBadge,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";

interface Attestation {
	id: string;
	workspace: string;
	type: string;
	claims: Record<string, string | number | boolean>;
	label: string;
	expiresAt: string | null;
	offerExpiresAt: string;
	subjectFingerprint: string | null;
	subjectDomain: string | null;
	subjectName: string | null;
	status: "offered" | "active" | "revoked";
	created: string;
}

type Kind = "text" | "number" | "boolean";
interface ClaimRow {
	key: number;
	name: string;
	kind: Kind;
	value: string;
}

const attestations = collection<Attestation>("attestations");
const NAME = /^[A-Za-z0-9_]{1,64}$/;
let rowKeys = 0;
const newRow = (): ClaimRow => ({ key: ++rowKeys, name: "", kind: "text", value: "" });

function claimValue(row: ClaimRow): string | number | boolean {
	if (row.kind === "number") return Number(row.value);
	if (row.kind === "boolean") return row.value === "true";
	return row.value;
}

function Issue({
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

	const change = (key: number, patch: Partial<ClaimRow>) =>
		setRows((list) => list.map((r) => (r.key === key ? { ...r, ...patch } : r)));

	async function submit(event: Event) {
		event.preventDefault();
		const problems: Record<string, string> = {};
		if (!/^\S{1,255}$/.test(type.trim())) problems.type = t("typeRequired");
		const filled = rows.filter((r) => r.name.trim() !== "" || r.value !== "");
		if (filled.length === 0) problems.claims = t("claimsRequired");
		for (const r of filled) {
			if (!NAME.test(r.name.trim())) problems[`name-${r.key}`] = t("claimNameInvalid");
			if (r.kind === "number" && (r.value.trim() === "" || !Number.isFinite(Number(r.value)))) {
				problems[`value-${r.key}`] = t("claimNumberInvalid");
			}
		}
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

export default function AttestationsScreen() {
	const t = useT(messages);
	const state = useLoad(() => attestations.all({ sort: "-created" }));
	const [issuing, setIssuing] = useState(false);
	const [offer, setOffer] = useState<string | null>(null);
	const [revoking, setRevoking] = useState<Attestation | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const canWrite = hasScope("attestation:write");
	const name = (a: Attestation) => a.label || a.type;

	async function revoke(a: Attestation) {
		setBusy(true);
		setError(null);
		try {
			await attestations.update(a.id, { status: "revoked" });
			announce(t("revoked"));
			state.reload();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
			setRevoking(null);
		}
	}

	return (
		<Page
			title={t("nav")}
			actions={
				canWrite ? (
					<Button variant="primary" onClick={() => setIssuing(true)}>
						{t("create")}
					</Button>
				) : undefined
			}
		>
			<p class="intro">{t("intro")}</p>
			<ErrorAlert error={error} />
			<LoadState state={state}>
				{(list) =>
					list.length === 0 ? (
						<EmptyState title={t("empty")}>
							<p>{t("emptyText")}</p>
						</EmptyState>
					) : (
						<DataTable
							caption={t("caption")}
							rows={list}
							rowKey={(a) => a.id}
							columns={[
								{
									label: t("colWhat"),
									cell: (a) => (
										<>
											<strong>{name(a)}</strong>
											<ul class="claim-list">
												{Object.entries(a.claims).map(([k, v]) => (
													<li key={k}>
														{k}: {typeof v === "boolean" ? t(v ? "yes" : "no") : String(v)}
													</li>
												))}
											</ul>
										</>
									),
								},
								{ label: t("colStatus"), cell: (a) => <StatusBadge status={a.status} /> },
								{
									label: t("colSubject"),
									cell: (a) =>
										a.subjectName || a.subjectFingerprint ? (
											<span>
												{a.subjectName ?? ""} {a.subjectDomain ? `(${a.subjectDomain})` : ""}
											</span>
										) : (
											t("nobody")
										),
								},
								{ label: t("colCreated"), cell: (a) => <DateTime value={a.created} /> },
								{
									label: t("actions"),
									kind: "actions",
									cell: (a) =>
										canWrite && a.status !== "revoked" ? (
											<Button
												class="btn-small"
												aria-label={t("revokeNamed", { name: name(a) })}
												onClick={() => setRevoking(a)}
											>
												{t("revoke")}
											</Button>
										) : null,
								},
							]}
						/>
					)
				}
			</LoadState>
			<Issue
				open={issuing}
				onClose={() => setIssuing(false)}
				onIssued={(token) => {
					setIssuing(false);
					setOffer(token);
					state.reload();
				}}
			/>
			<Dialog
				title={t("offerTitle")}
				open={offer !== null}
				onClose={() => setOffer(null)}
				actions={
					<Button variant="primary" onClick={() => setOffer(null)}>
						{t("done")}
					</Button>
				}
			>
				<p>{t("offerText")}</p>
				<CopyField label={t("offerLink")} value={offer ? `svc://a/${serverInfo().domain}/${offer}` : ""} />
			</Dialog>
			<ConfirmDialog
				open={revoking !== null}
				title={t("revokeTitle")}
				message={t("revokeText", { name: revoking ? name(revoking) : "" })}
				confirmLabel={t("revoke")}
				busy={busy}
				onConfirm={() => revoking && void revoke(revoking)}
				onClose={() => setRevoking(null)}
			/>
		</Page>
	);
}
