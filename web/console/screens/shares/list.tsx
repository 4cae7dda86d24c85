// The workspace's shares, newest first: label (to its page), status, views against the cap,
// expiry and creation; filtered by status on the server (`filter=status="…"`).
import { useState } from "preact/hooks";
import { SHARE_STATUSES } from "../../../../src/lib/share-status.ts";
import { formatNumber, useLocale, useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	DataTable,
	DateTime,
	EmptyState,
	Icon,
	LoadState,
	Page,
	SelectField,
	StatusBadge,
	useLoad,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { type Share, type ShareStatus, shares } from "./types.ts";

/** "1 of 2", or the count alone when there is no cap. */
export function ViewCount({ share }: { share: Share }) {
	const t = useT(messages);
	const lang = useLocale();
	if (share.maxViews === null) return <>{formatNumber(share.viewCount, lang)}</>;
	return (
		<>
			{t("viewsOf", {
				views: formatNumber(share.viewCount, lang),
				max: formatNumber(share.maxViews, lang),
			})}
		</>
	);
}

export function ShareList() {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [status, setStatus] = useState<ShareStatus | "">("");
	const state = useLoad(
		() => shares.all({ sort: "-created", ...(status ? { filter: `status = "${status}"` } : {}) }),
		[status],
	);
	const canWrite = hasScope("link:write");
	return (
		<Page
			title={t("nav")}
			actions={
				canWrite ? (
					<Link href="/shares/new" class="btn btn-primary">
						<Icon name="plus" />
						{t("create")}
					</Link>
				) : undefined
			}
		>
			<p class="intro">{t("intro")}</p>
			<div class="share-filter">
				<SelectField
					label={t("filter")}
					value={status}
					onChange={(v) => setStatus(SHARE_STATUSES.find((s) => s === v) ?? "")}
					options={[
						{ value: "", label: t("filterAll") },
						...SHARE_STATUSES.map((s) => ({ value: s, label: ui(`status_${s}`) })),
					]}
				/>
			</div>
			<LoadState state={state}>
				{(list: Share[]) =>
					list.length === 0 ? (
						<EmptyState title={status ? t("emptyFiltered") : t("empty")}>
							{status ? null : <p>{t("emptyText")}</p>}
						</EmptyState>
					) : (
						<div class="share-table">
							<DataTable
								caption={t("caption")}
								rows={list}
								rowKey={(s) => s.id}
								columns={[
									{
										label: t("colLabel"),
										cell: (s) => (
											<Link href={`/shares/${s.id}`} class="share-title">
												{s.label || t("untitled")}
											</Link>
										),
									},
									{ label: t("colStatus"), cell: (s) => <StatusBadge status={s.status} /> },
									{ label: t("colViews"), kind: "number", cell: (s) => <ViewCount share={s} /> },
									{
										label: t("colExpires"),
										cell: (s) => (s.expiresAt ? <DateTime value={s.expiresAt} /> : t("noExpiry")),
									},
									{ label: t("colCreated"), cell: (s) => <DateTime value={s.created} /> },
								]}
							/>
						</div>
					)
				}
			</LoadState>
		</Page>
	);
}
