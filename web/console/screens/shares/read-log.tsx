// One share's read log (the `linkReads` collection filtered by the share, newest first): when, in
// the reader's locale; through what (API, share page, address book, file, archive); which view;
// and the reader's proven identity as a shortened fingerprint (the whole of it for screen readers
// and on hover). Twenty at a time with "Load more"; reloaded whenever `tick` changes.
import { useState } from "preact/hooks";
import { formatNumber, useLocale, useT } from "../../i18n/index.ts";
import { Button, DataTable, DateTime, EmptyState, LoadState, useLoad } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { type ShareRead, shareReads } from "./types.ts";

const PAGE = 20;

function Reader({ fingerprint }: { fingerprint: string | null }) {
	const t = useT(messages);
	if (!fingerprint) return <span class="meta">{t("readerNone")}</span>;
	const short = fingerprint.length > 16 ? `${fingerprint.slice(0, 16)}…` : fingerprint;
	return (
		<span title={fingerprint}>
			<code aria-hidden="true">{short}</code>
			<span class="visually-hidden">{t("readerFull", { fingerprint })}</span>
		</span>
	);
}

export function ReadLog({
	shareId,
	tick,
	names,
}: {
	shareId: string;
	/** Changes when the share was polled or refreshed: the log is read again. */
	tick: number;
	/** Entry names by id, for file reads. */
	names: Map<string, string>;
}) {
	const t = useT(messages);
	const lang = useLocale();
	const [pages, setPages] = useState(1);
	const state = useLoad(
		() =>
			shareReads.list({
				filter: `link = "${shareId.replace(/["\\]/g, "")}"`,
				sort: "-at",
				perPage: Math.min(PAGE * pages, 1000),
			}),
		[shareId, pages, tick],
	);

	function kind(read: ShareRead): string {
		const base = t(`kind_${read.kind}`);
		if (read.kind === "file" && read.record) {
			const name = names.get(read.record);
			return name ? t("kindFile", { name }) : base;
		}
		return base;
	}

	return (
		<section class="share-section" aria-labelledby="share-log-heading">
			<h2 id="share-log-heading">{t("logHeading")}</h2>
			<p class="intro">{t("logIntro")}</p>
			<LoadState state={state}>
				{(page) =>
					page.items.length === 0 ? (
						<EmptyState title={t("logEmpty")}>
							<p>{t("logEmptyText")}</p>
						</EmptyState>
					) : (
						<>
							<div class="share-table">
								<DataTable
									caption={t("logCaption")}
									rows={page.items}
									rowKey={(r) => r.id}
									columns={[
										{ label: t("colTime"), cell: (r) => <DateTime value={r.at} /> },
										{ label: t("colKind"), cell: kind },
										{
											label: t("colView"),
											kind: "number",
											// View 0: a file of an answer its requester opened through the grant, no view taken.
											cell: (r) => (r.view === 0 ? t("viewNone") : formatNumber(r.view, lang)),
										},
										{ label: t("colReader"), cell: (r) => <Reader fingerprint={r.readerFingerprint} /> },
									]}
								/>
							</div>
							<p class="meta share-log-foot">
								<span>
									{t("logShown", {
										shown: formatNumber(page.items.length, lang),
										total: formatNumber(page.totalItems, lang),
									})}
								</span>
								{page.items.length < page.totalItems && PAGE * pages < 1000 ? (
									<Button onClick={() => setPages((n) => n + 1)}>{t("loadMore")}</Button>
								) : null}
							</p>
						</>
					)
				}
			</LoadState>
		</section>
	);
}
