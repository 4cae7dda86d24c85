// What a request collected (GET /api/requests/{id}/links): each answer with its state now and,
// while it is active, its current values, read live through the responder's share at every load.
import { useState } from "preact/hooks";
import { type Locale, useLocale, useT } from "../../i18n/index.ts";
import {
	Button,
	DataTable,
	DateTime,
	EmptyState,
	ErrorAlert,
	LoadState,
	StatusBadge,
	useLoad,
} from "../../ui/index.ts";
import { downloadAnswersCsv, openAnsweredFile } from "./downloads.ts";
import { messages } from "./messages.ts";
import { type Answer, type AnswerValue, answersOf } from "./types.ts";

const PER_PAGE = 50;

/** "12 kB", "1.5 MB" in the reader's locale. */
function fileSize(bytes: number, lang: Locale): string {
	const [value, unit] =
		bytes >= 1_000_000
			? [bytes / 1_000_000, "megabyte"]
			: bytes >= 1000
				? [bytes / 1000, "kilobyte"]
				: [bytes, "byte"];
	return new Intl.NumberFormat(lang, { style: "unit", unit, maximumFractionDigits: 1 }).format(value);
}

function ValueCell({ value, answer, requestId }: { value: AnswerValue; answer: Answer; requestId: string }) {
	const t = useT(messages);
	const lang = useLocale();
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const file = value.file;
	if (file) {
		const size = <span class="meta">({fileSize(file.size, lang)})</span>;
		return (
			<span>
				<Button
					class="btn-small"
					busy={busy}
					onClick={async () => {
						setBusy(true);
						setError(null);
						try {
							await openAnsweredFile(requestId, answer.responseId, value.key, file.name);
						} catch (err) {
							setError(err);
						} finally {
							setBusy(false);
						}
					}}
				>
					{t("openFile", { name: file.name })}
				</Button>{" "}
				{size}
				{answer.remote ? (
					<span class="meta"> · {t("fileRemote", { server: answer.server ?? "" })}</span>
				) : null}
				<ErrorAlert error={error} />
			</span>
		);
	}
	return <span class="req-value">{value.value ?? ""}</span>;
}

function AnswerCard({ answer, n, requestId }: { answer: Answer; n: number; requestId: string }) {
	const t = useT(messages);
	const who = answer.senderName || answer.identifier || t("answerN", { n });
	return (
		<li class="card req-answer">
			<div class="card-head">
				<h3>{who}</h3>
				<StatusBadge status={answer.status} />
			</div>
			<p class="meta">
				{t("answered")} <DateTime value={answer.created} />
				{answer.updated !== answer.created ? (
					<>
						{" · "}
						{t("answerUpdated")} <DateTime value={answer.updated} />
					</>
				) : null}
			</p>
			<dl class="req-facts">
				{answer.identifier ? (
					<>
						<dt>{t("identifier")}</dt>
						<dd>{answer.identifier}</dd>
					</>
				) : null}
				{answer.senderName ? (
					<>
						<dt>{t("senderName")}</dt>
						<dd>{answer.senderName}</dd>
					</>
				) : null}
				<dt>{t("provenIdentity")}</dt>
				<dd>{answer.identity ? <code>{answer.identity}</code> : t("provenNone")}</dd>
				{answer.remote ? (
					<>
						<dt>{t("keptOn")}</dt>
						<dd>{answer.server ?? ""}</dd>
					</>
				) : null}
			</dl>
			{answer.status === "active" ? (
				answer.values.length > 0 ? (
					<DataTable
						caption={t("valuesOf", { who })}
						rows={answer.values}
						rowKey={(v) => v.key}
						columns={[
							{ label: t("itemLabel"), cell: (v) => v.label },
							{
								label: t("currentValue"),
								cell: (v) => <ValueCell value={v} answer={answer} requestId={requestId} />,
							},
						]}
					/>
				) : (
					<p>{t("noValues")}</p>
				)
			) : (
				<p>
					{t(
						`inactive_${answer.status === "paused" || answer.status === "expired" ? answer.status : "revoked"}`,
					)}
				</p>
			)}
		</li>
	);
}

export function Answers({ requestId, label }: { requestId: string; label: string }) {
	const t = useT(messages);
	const [pages, setPages] = useState(1);
	const [exporting, setExporting] = useState(false);
	const [exportError, setExportError] = useState<unknown>(null);
	const state = useLoad(async () => {
		const first = await answersOf(requestId, 1, PER_PAGE);
		const items = [...first.items];
		for (let page = 2; page <= Math.min(pages, first.totalPages); page++)
			items.push(...(await answersOf(requestId, page, PER_PAGE)).items);
		return { items, total: first.totalItems };
	}, [requestId, pages]);
	return (
		<section class="req-section" aria-labelledby="req-answers-heading">
			<div class="req-section-head">
				<h2 id="req-answers-heading">{t("answersHeading")}</h2>
				<div class="row-actions">
					<Button
						class="btn-small"
						busy={exporting}
						aria-describedby="req-export-hint"
						onClick={async () => {
							setExporting(true);
							setExportError(null);
							try {
								await downloadAnswersCsv(requestId, label);
							} catch (err) {
								setExportError(err);
							} finally {
								setExporting(false);
							}
						}}
					>
						{t("exportCsv")}
					</Button>
					<Button class="btn-small" busy={state.loading} onClick={state.reload}>
						{t("refresh")}
					</Button>
				</div>
			</div>
			<p class="meta">{t("answersLive")}</p>
			<p class="meta" id="req-export-hint">
				{t("exportCsvHint")}
			</p>
			<ErrorAlert error={exportError} />
			<LoadState state={state}>
				{(got) =>
					got.items.length === 0 ? (
						<EmptyState title={t("noAnswers")}>
							<p>{t("noAnswersText")}</p>
						</EmptyState>
					) : (
						<>
							<ul class="list-plain" aria-label={t("answersCount", { count: got.total })}>
								{got.items.map((a, n) => (
									<AnswerCard key={a.responseId} answer={a} n={n + 1} requestId={requestId} />
								))}
							</ul>
							{got.items.length < got.total ? (
								<Button onClick={() => setPages((p) => p + 1)}>{t("showMore")}</Button>
							) : null}
						</>
					)
				}
			</LoadState>
		</section>
	);
}
