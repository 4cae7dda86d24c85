// The workspace's requests, newest first: label (to its page), status, how many answers it
// collected, expiry and creation.
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
	StatusBadge,
	useLoad,
} from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { answersOf, type DataRequest, requests } from "./types.ts";

/** The answers a request collected, counted by `GET /api/requests/{id}/links` (one item read). */
function AnswerCount({ id }: { id: string }) {
	const t = useT(messages);
	const lang = useLocale();
	const count = useLoad(() => answersOf(id, 1, 1).then((p) => p.totalItems), [id]);
	if (count.data !== undefined) return <>{formatNumber(count.data, lang)}</>;
	return <span class="meta">{count.error ? t("countUnknown") : "…"}</span>;
}

export function RequestList() {
	const t = useT(messages);
	const state = useLoad(() => requests.all({ sort: "-created" }));
	const canWrite = hasScope("request:write");
	return (
		<Page
			title={t("nav")}
			actions={
				canWrite ? (
					<Link href="/requests/new" class="btn btn-primary">
						<Icon name="plus" />
						{t("create")}
					</Link>
				) : undefined
			}
		>
			<p class="intro">{t("intro")}</p>
			<LoadState state={state}>
				{(list: DataRequest[]) =>
					list.length === 0 ? (
						<EmptyState title={t("empty")}>
							<p>{t("emptyText")}</p>
						</EmptyState>
					) : (
						<div class="req-table">
							<DataTable
								caption={t("caption")}
								rows={list}
								rowKey={(r) => r.id}
								columns={[
									{
										label: t("label"),
										cell: (r) => (
											<Link href={`/requests/${r.id}`} class="req-title">
												{r.label}
											</Link>
										),
									},
									{ label: t("status"), cell: (r) => <StatusBadge status={r.status} /> },
									{ label: t("answers"), kind: "number", cell: (r) => <AnswerCount id={r.id} /> },
									{
										label: t("expiresAt"),
										cell: (r) => (r.expiresAt ? <DateTime value={r.expiresAt} /> : t("noExpiry")),
									},
									{ label: t("created"), cell: (r) => <DateTime value={r.created} /> },
								]}
							/>
						</div>
					)
				}
			</LoadState>
		</Page>
	);
}
