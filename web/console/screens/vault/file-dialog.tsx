// Add a file entry or replace a file entry's bytes: a drop zone with a file input, then a
// multipart upload (POST or PATCH with a `file` part) whose progress shows in a native <progress>.
// The dialog stays open at 100 % to say the upload is done; the list behind it is already reloaded.
import { useEffect, useId, useState } from "preact/hooks";
import { type ApiResponse, request, upload } from "../../api.ts";
import { useLocale, useT } from "../../i18n/index.ts";
import {
	Button,
	Checkbox,
	Dialog,
	ErrorAlert,
	Notice,
	SelectField,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { DropZone } from "./drop-zone.tsx";
import { fileKind, formatPercent, formatSize } from "./format.ts";
import { messages } from "./messages.ts";
import { KEY_PATTERN, keyFrom, keyFromFile, refusedField, type Section, type VaultRecord } from "./types.ts";

const BASE = "/api/collections/records/records";

let cap: Promise<number> | undefined;
/** The server's MAX_FILE_SIZE (`limits.maxFileSize` at GET /api/server; -1 = none), asked once. */
function maxFileSize(): Promise<number> {
	cap ??= request<{ limits: { maxFileSize: number } }>("GET", "/api/server", { auth: false }).then(
		(r) => r.data.limits.maxFileSize,
		() => -1,
	);
	return cap;
}

export function FileDialog({
	entry,
	sectionList,
	onClose,
	onUploaded,
}: {
	/** The file entry whose bytes are replaced; null for a new entry. */
	entry: VaultRecord | null;
	sectionList: Section[];
	onClose: () => void;
	onUploaded: (said: string) => void;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const lang = useLocale();
	const progressId = useId();
	const doneId = useId();
	const limit = useLoad(maxFileSize);
	const max = limit.data ?? -1;
	const [file, setFile] = useState<File | null>(null);
	const [key, setKey] = useState("");
	const [keyTouched, setKeyTouched] = useState(false);
	const [name, setName] = useState("");
	const [section, setSection] = useState("");
	const [hidden, setHidden] = useState(false);
	const [progress, setProgress] = useState<number | null>(null);
	const [done, setDone] = useState<VaultRecord | null>(null);
	const [errors, setErrors] = useState<{ file?: string; key?: string; name?: string }>({});
	const [error, setError] = useState<unknown>(null);
	const busy = progress !== null && done === null;
	// The Upload button that had the focus is gone once the upload is done: Done takes it.
	useEffect(() => {
		if (done) document.getElementById(doneId)?.focus();
	}, [done]);

	function choose(chosen: File | null) {
		setFile(chosen);
		setErrors((e) => ({ ...e, file: undefined }));
		if (chosen && !keyTouched && !entry) setKey(keyFrom(name.trim()) || keyFromFile(chosen.name) || "file");
	}

	async function submit(event: Event) {
		event.preventDefault();
		const found: typeof errors = {};
		if (!file) found.file = t("fileRequired");
		else if (max >= 0 && file.size > max)
			found.file = t("fileTooLarge", { size: formatSize(file.size, lang), max: formatSize(max, lang) });
		if (!entry && !KEY_PATTERN.test(key)) found.key = key ? t("keyInvalid") : t("keyRequired");
		setErrors(found);
		if (!file || Object.keys(found).length > 0) return;
		const form = new FormData();
		if (!entry) {
			form.set("key", key);
			if (name.trim()) form.set("name", name.trim());
			if (section) form.set("section", section);
			form.set("hidden", hidden ? "true" : "false");
		}
		form.set("file", file, file.name);
		setError(null);
		setProgress(0);
		try {
			const path = entry ? `${BASE}/${encodeURIComponent(entry.id)}` : BASE;
			const res: ApiResponse<VaultRecord> = await upload(entry ? "PATCH" : "POST", path, form, setProgress);
			setProgress(1);
			setDone(res.data);
			onUploaded(t(entry ? "replaced" : "uploaded", { name: res.data.file?.name ?? file.name }));
		} catch (err) {
			setProgress(null);
			const field = refusedField(err);
			if (field === "key" || field === "name") setErrors({ [field]: t("fieldRefused") });
			setError(err);
		}
	}

	const sizeHint = max >= 0 ? t("fileHint", { size: formatSize(max, lang) }) : t("fileHintNoCap");
	return (
		<Dialog
			title={entry ? t("replaceTitle", { name: entry.name }) : t("addFileTitle")}
			open
			onClose={onClose}
			actions={
				done ? (
					<Button id={doneId} variant="primary" onClick={onClose}>
						{t("done")}
					</Button>
				) : (
					<>
						<Button onClick={onClose} disabled={busy}>
							{ui("cancel")}
						</Button>
						<Button type="submit" variant="primary" busy={busy} form="vault-file-form">
							{busy ? t("uploading") : t("upload")}
						</Button>
					</>
				)
			}
		>
			{done ? null : (
				<form id="vault-file-form" onSubmit={(e) => void submit(e)} noValidate>
					<DropZone
						label={t("fileInput")}
						hint={sizeHint}
						error={errors.file ?? null}
						disabled={busy}
						onFile={choose}
					/>
					{file ? (
						<p class="vault-chosen">
							{t("fileChosen", { name: file.name, size: formatSize(file.size, lang) })}
						</p>
					) : null}
					{entry ? null : (
						<>
							<TextField
								label={t("name")}
								hint={t("fileNameHint")}
								maxLength={200}
								value={name}
								onInput={(v) => {
									setName(v);
									if (!keyTouched) setKey(keyFrom(v.trim()) || (file ? keyFromFile(file.name) : ""));
								}}
								error={errors.name ?? null}
								autocomplete="off"
								disabled={busy}
							/>
							<TextField
								label={t("key")}
								hint={t("fileKeyHint")}
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
								disabled={busy}
							/>
							<SelectField
								label={t("section")}
								value={section}
								onChange={setSection}
								options={[
									{ value: "", label: t("noSection") },
									...sectionList.map((s) => ({ value: s.id, label: s.name })),
								]}
							/>
							<Checkbox label={t("hidden")} hint={t("hiddenHint")} checked={hidden} onChange={setHidden} />
						</>
					)}
				</form>
			)}
			{progress !== null ? (
				<div class="vault-progress">
					<label for={progressId}>{t("progress")}</label>
					<progress id={progressId} max={100} value={Math.round(progress * 100)}>
						{formatPercent(progress, lang)}
					</progress>
					<span class="vault-progress-text">{formatPercent(progress, lang)}</span>
				</div>
			) : null}
			{done ? (
				<Notice tone="success">
					<p>
						{t(entry ? "replaced" : "uploaded", {
							name: done.file?.name ?? done.name,
						})}{" "}
						{done.file ? `(${fileKind(done.file.type, lang)}, ${formatSize(done.file.size, lang)})` : ""}
					</p>
				</Notice>
			) : null}
			<ErrorAlert error={error} />
		</Dialog>
	);
}
