// Export and import (docs/api.md "Vault export and import"). The export is the browser's own
// download, opened with a short-lived file token. An import is always checked first: the file goes to the
// preview endpoint, the screen lists what would be made and every problem by line or contact, and
// only a clean preview offers the import, which sends the same file again and lands all or nothing.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError, type ApiResponse, request, upload } from "../../api.ts";
import { type Locale, useLocale, useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	type Column,
	DataTable,
	ErrorAlert,
	Notice,
	Page,
	SelectField,
} from "../../ui/index.ts";
import { messages } from "./messages.ts";

type Format = "archive" | "vcard" | "csv";

interface ReportEntry {
	at: string;
	key: string;
	name: string;
	type: "value" | "file";
	section: string | null;
	hidden: boolean;
	alias: boolean;
}

interface Report {
	preview: boolean;
	counts: {
		sections: number;
		entries: number;
		files: number;
		bytes: number;
		templates: number;
		skipped: number;
	};
	sections: { key: string; name: string; existing: boolean }[];
	entries: ReportEntry[];
	refusals: { at: string; message: string }[];
	refusalCount: number;
}

const UNITS = ["byte", "kilobyte", "megabyte", "gigabyte"] as const;

function formatSize(bytes: number, lang: Locale): string {
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < UNITS.length - 1) {
		value /= 1024;
		unit++;
	}
	return new Intl.NumberFormat(lang, {
		style: "unit",
		unit: UNITS[unit],
		unitDisplay: "long",
		maximumFractionDigits: unit === 0 ? 0 : 1,
	}).format(value);
}

const percent = (fraction: number, lang: Locale) =>
	new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }).format(fraction);

/**
 * The export as the browser's own download: a two-minute file token (POST /api/files/token) in the
 * address, so the zip streams from the server to disk and never through script memory.
 */
async function downloadExport(): Promise<string> {
	const { data } = await request<{ token: string }>("POST", "/api/files/token");
	const link = document.createElement("a");
	link.href = `/api/vault/export?token=${encodeURIComponent(data.token)}`;
	link.download = "";
	link.hidden = true;
	document.body.append(link);
	link.click();
	link.remove();
	// The server names it by the UTC date, as here.
	return `vault-${new Date().toISOString().slice(0, 10)}.zip`;
}

function ExportPanel() {
	const t = useT(messages);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [done, setDone] = useState<string | null>(null);
	async function run() {
		setBusy(true);
		setError(null);
		setDone(null);
		try {
			const name = await downloadExport();
			setDone(name);
			announce(t("exported", { name }));
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}
	return (
		<section class="transfer-panel" aria-labelledby="transfer-export">
			<h2 id="transfer-export">{t("exportTitle")}</h2>
			<p>{t("exportText")}</p>
			<ErrorAlert error={error} />
			{done ? <Notice tone="success">{t("exported", { name: done })}</Notice> : null}
			<Button variant="primary" busy={busy} onClick={run}>
				{t("exportButton")}
			</Button>
		</section>
	);
}

/** `line 3` and `card 2 (line 9)` in the reader's words; a JSON pointer or a zip entry's name as it is. */
function useWhere() {
	const t = useT(messages);
	return (at: string) => {
		const line = /^line (\d+)$/.exec(at);
		if (line) return t("atLine", { line: line[1] as string });
		const card = /^card (\d+) \(line (\d+)\)$/.exec(at);
		if (card) return t("atCard", { card: card[1] as string, line: card[2] as string });
		return at;
	};
}

function ReportView({ report }: { report: Report }) {
	const t = useT(messages);
	const lang = useLocale();
	const where = useWhere();
	const c = report.counts;
	const columns: Column<ReportEntry>[] = [
		{ label: t("colFrom"), cell: (e) => where(e.at) },
		{ label: t("colKey"), cell: (e) => <code>{e.key}</code> },
		{
			label: t("colName"),
			cell: (e) => (e.hidden ? `${e.name} (${t("hiddenMark")})` : e.name),
		},
		{
			label: t("colType"),
			cell: (e) => (e.type === "file" ? t("typeFile") : e.alias ? t("typeAlias") : t("typeValue")),
		},
		{ label: t("colSection"), cell: (e) => report.sections.find((s) => s.key === e.section)?.name ?? "" },
	];
	return (
		<>
			<h3>{t("previewTitle")}</h3>
			<p>
				{t("counts", {
					entries: t("nEntries", { count: c.entries }),
					files: t("nFiles", { count: c.files }),
					size: formatSize(c.bytes, lang),
					sections: t("nSections", { count: c.sections }),
					templates: t("nTemplates", { count: c.templates }),
				})}
			</p>
			{c.skipped > 0 ? <p>{t("skipped", { count: c.skipped })}</p> : null}
			{report.sections.length > 0 ? (
				<>
					<h4>{t("sectionsCaption")}</h4>
					<ul class="transfer-sections">
						{report.sections.map((s) => (
							<li key={s.key} class="transfer-section">
								{s.name} ({s.existing ? t("sectionExisting") : t("sectionNew")})
							</li>
						))}
					</ul>
				</>
			) : null}
			{report.entries.length > 0 ? (
				<>
					<h4>{t("entriesCaption")}</h4>
					<DataTable
						caption={t("entriesCaption")}
						columns={columns}
						rows={report.entries}
						rowKey={(e) => `${e.at}|${e.key}|${e.name}`}
					/>
					{report.entries.length < c.entries ? (
						<p>{t("listedOf", { listed: String(report.entries.length), count: String(c.entries) })}</p>
					) : null}
				</>
			) : null}
		</>
	);
}

function Refusals({ report }: { report: Pick<Report, "refusals" | "refusalCount"> }) {
	const t = useT(messages);
	const where = useWhere();
	const more = report.refusalCount - report.refusals.length;
	return (
		<div class="alert alert-error" role="alert">
			<p>
				<strong>{t("refusedTitle", { count: report.refusalCount })}</strong>
			</p>
			<p>{t("refusedText")}</p>
			<ul class="transfer-refusals">
				{report.refusals.map((r, i) => (
					<li key={i}>
						{where(r.at)}: {r.message}
					</li>
				))}
				{more > 0 ? <li>{t("moreRefusals", { count: more })}</li> : null}
			</ul>
		</div>
	);
}

function ImportPanel() {
	const t = useT(messages);
	const lang = useLocale();
	const fileId = useId();
	const inputRef = useRef<HTMLInputElement>(null);
	const [format, setFormat] = useState<Format>("archive");
	const [file, setFile] = useState<File | null>(null);
	const [fileError, setFileError] = useState<string | null>(null);
	const [progress, setProgress] = useState<number | null>(null);
	const [report, setReport] = useState<Report | null>(null);
	const [refused, setRefused] = useState<Pick<Report, "refusals" | "refusalCount"> | null>(null);
	const [imported, setImported] = useState<Report | null>(null);
	const [error, setError] = useState<unknown>(null);
	const resultRef = useRef<HTMLDivElement>(null);
	const canWrite = hasScope("record:write");
	useEffect(() => {
		if (report || refused || imported) resultRef.current?.focus();
	}, [report, refused, imported]);

	function reset() {
		setReport(null);
		setRefused(null);
		setImported(null);
		setError(null);
	}

	async function send(preview: boolean) {
		if (!file) {
			setFileError(t("fileRequired"));
			inputRef.current?.focus();
			return;
		}
		reset();
		setProgress(0);
		const form = new FormData();
		form.append("file", file, file.name);
		try {
			const url = `/api/vault/import${preview ? "/preview" : ""}?format=${format}`;
			const res: ApiResponse<Report> = await upload<Report>("POST", url, form, setProgress);
			if (preview) {
				if (res.data.refusalCount > 0) setRefused(res.data);
				setReport(res.data);
			} else {
				setImported(res.data);
				announce(t("imported", { count: res.data.counts.entries }));
			}
		} catch (err) {
			if (err instanceof ApiError && Array.isArray(err.problem.refusals))
				setRefused({
					refusals: err.problem.refusals as Report["refusals"],
					refusalCount: Number(err.problem.refusalCount ?? err.problem.refusals.length),
				});
			else setError(err);
		} finally {
			setProgress(null);
		}
	}

	const formats: Format[] = ["archive", "vcard", "csv"];
	const ready = report && report.refusalCount === 0 && !imported;
	return (
		<section class="transfer-panel" aria-labelledby="transfer-import">
			<h2 id="transfer-import">{t("importTitle")}</h2>
			<p>{t("importText")}</p>
			{canWrite ? (
				<form
					onSubmit={(event) => {
						event.preventDefault();
						void send(true);
					}}
					noValidate
				>
					<SelectField
						label={t("format")}
						hint={t(`formatHint_${format}`)}
						value={format}
						onChange={(v) => {
							setFormat(v as Format);
							reset();
						}}
						options={formats.map((f) => ({ value: f, label: t(`format_${f}`) }))}
					/>
					<div class={`field transfer-file${fileError ? " field-invalid" : ""}`}>
						<label for={fileId}>{t("file")}</label>
						<input
							ref={inputRef}
							id={fileId}
							type="file"
							accept={
								format === "archive"
									? ".zip,application/zip"
									: format === "vcard"
										? ".vcf,.vcard,text/vcard"
										: ".csv,text/csv"
							}
							aria-invalid={fileError ? "true" : undefined}
							aria-describedby={fileError ? `${fileId}-error` : undefined}
							onChange={(e) => {
								setFile(e.currentTarget.files?.[0] ?? null);
								setFileError(null);
								reset();
							}}
						/>
						{fileError ? (
							<p class="field-error" id={`${fileId}-error`}>
								{fileError}
							</p>
						) : null}
					</div>
					<div class="transfer-actions">
						<Button type="submit" variant={ready ? "secondary" : "primary"} busy={progress !== null}>
							{t("preview")}
						</Button>
						{progress !== null ? (
							<span role="status">{t("checking", { percent: percent(progress, lang) })}</span>
						) : null}
					</div>
				</form>
			) : null}
			<ErrorAlert error={error} />
			<div ref={resultRef} tabIndex={-1} class="transfer-result">
				{refused ? <Refusals report={refused} /> : null}
				{imported ? (
					<>
						<Notice tone="success">{t("imported", { count: imported.counts.entries })}</Notice>
						<div class="transfer-actions">
							<Link class="btn btn-primary" href="/vault">
								{t("toVault")}
							</Link>
						</div>
					</>
				) : report ? (
					<ReportView report={report} />
				) : null}
				{ready ? (
					report.counts.entries + report.counts.templates === 0 ? (
						<p>{t("nothingToImport")}</p>
					) : (
						<div class="transfer-actions">
							<Button variant="primary" busy={progress !== null} onClick={() => void send(false)}>
								{t("importButton", { count: report.counts.entries })}
							</Button>
						</div>
					)
				) : null}
			</div>
		</section>
	);
}

export default function TransferScreen() {
	const t = useT(messages);
	return (
		<Page title={t("nav")}>
			<p class="intro">{t("intro")}</p>
			<ExportPanel />
			<ImportPanel />
		</Page>
	);
}
