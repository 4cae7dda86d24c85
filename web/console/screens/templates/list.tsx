// The workspace's templates: name, the fields each asks for, when it changed; edit and delete.
import { useEffect, useRef, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	DataTable,
	DateTime,
	EmptyState,
	ErrorAlert,
	Icon,
	LoadState,
	Page,
	useLoad,
} from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { type Template, templates } from "./types.ts";

/** The first fields of a template, named; the rest counted. */
const LISTED = 4;

export function TemplateList() {
	const t = useT(messages);
	const state = useLoad(() => templates.all({ sort: "name" }));
	const [deleting, setDeleting] = useState<Template | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const canWrite = hasScope("template:write");
	const focusHeading = useRef(false);
	// The deleted row's button is gone once the list reloads: the heading takes the focus.
	useEffect(() => {
		if (!focusHeading.current || state.loading) return;
		focusHeading.current = false;
		document.querySelector<HTMLElement>("main h1")?.focus();
	}, [state.data, state.loading]);

	async function remove(template: Template) {
		setBusy(true);
		setError(null);
		try {
			await templates.remove(template.id);
			announce(t("deleted"));
			focusHeading.current = true;
			state.reload();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
			setDeleting(null);
		}
	}

	return (
		<Page
			title={t("nav")}
			actions={
				canWrite ? (
					<Link class="btn btn-primary" href="/templates/new">
						<Icon name="plus" />
						{t("create")}
					</Link>
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
							rowKey={(tpl) => tpl.id}
							columns={[
								{ label: t("name"), cell: (tpl) => <span class="tpl-name">{tpl.name}</span> },
								{
									label: t("fields"),
									cell: (tpl) => (
										<div>
											<span>{t("fieldCount", { count: tpl.items.length })}</span>
											{tpl.items.length > 0 ? (
												<span class="meta tpl-labels">
													{tpl.items
														.slice(0, LISTED)
														.map((i) => i.label)
														.join(", ")}
													{tpl.items.length > LISTED
														? ` ${t("andMore", { count: tpl.items.length - LISTED })}`
														: ""}
												</span>
											) : null}
										</div>
									),
								},
								{ label: t("changed"), cell: (tpl) => <DateTime value={tpl.updated} /> },
								{
									label: t("actions"),
									kind: "actions",
									cell: (tpl) =>
										canWrite ? (
											<div class="row-actions">
												<Link
													class="btn btn-secondary btn-small"
													href={`/templates/${tpl.id}`}
													aria-label={t("editNamed", { name: tpl.name })}
												>
													{t("edit")}
												</Link>
												<Button
													class="btn-small"
													aria-label={t("deleteNamed", { name: tpl.name })}
													onClick={() => setDeleting(tpl)}
												>
													{t("delete")}
												</Button>
											</div>
										) : null,
								},
							]}
						/>
					)
				}
			</LoadState>
			<ConfirmDialog
				open={deleting !== null}
				title={t("deleteTitle")}
				message={t("deleteText", { name: deleting?.name ?? "" })}
				confirmLabel={t("delete")}
				busy={busy}
				onConfirm={() => deleting && void remove(deleting)}
				onClose={() => setDeleting(null)}
			/>
		</Page>
	);
}
