// Connected tools: the workspace's connections (name, origin, permissions, expiry, state) with
// revoke and a permission change, and the consent a person gives when a tool asks to connect
// (`svc://connect`) or proposes a share (`svc://p`): pasted here, then answered at `/connect`.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import type { Route } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	DataTable,
	DateTime,
	EmptyState,
	ErrorAlert,
	LoadState,
	Page,
	useLoad,
} from "../../ui/index.ts";
import { Consent } from "./consent.tsx";
import { messages } from "./messages.ts";
import { OpenLink } from "./open-link.tsx";
import { PermissionsDialog } from "./permissions.tsx";
import { type Connection, connections } from "./types.ts";

export default function ConnectionsScreen({ route, subpath }: { route: Route; subpath: string }) {
	const t = useT(messages);
	const state = useLoad(() => (subpath === "/connect" ? Promise.resolve([]) : connections.all()), [subpath]);
	const [opening, setOpening] = useState(false);
	const [revoking, setRevoking] = useState<Connection | null>(null);
	const [changing, setChanging] = useState<Connection | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const canWrite = hasScope("link:write");

	if (subpath === "/connect") {
		return (
			<Page title={t("nav")}>
				<Consent text={route.query.get("link") ?? ""} />
			</Page>
		);
	}

	async function revoke(c: Connection) {
		setBusy(true);
		setError(null);
		try {
			await connections.remove(c.id);
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
					<Button variant="primary" onClick={() => setOpening(true)}>
						{t("openLink")}
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
							rowKey={(c) => c.id}
							columns={[
								{ label: t("tool"), cell: (c) => c.clientName },
								{ label: t("origin"), cell: (c) => <code class="tool-origin">{c.clientId}</code> },
								{
									label: t("permissions"),
									cell: (c) =>
										c.allowRevoke || c.allowHandOver ? (
											<ul class="list-plain">
												{c.allowRevoke ? <li>{t("mayRevoke")}</li> : null}
												{c.allowHandOver ? <li>{t("mayReceive")}</li> : null}
											</ul>
										) : (
											t("none")
										),
								},
								{ label: t("expires"), cell: (c) => <DateTime value={c.expiresAt} /> },
								{
									label: t("state"),
									cell: (c) => (
										<span class={`badge badge-${c.state === "connected" ? "active" : "expired"}`}>
											{t(c.state)}
										</span>
									),
								},
								{ label: t("shares"), cell: (c) => String(c.linkCount) },
								{
									label: t("actions"),
									kind: "actions",
									cell: (c) =>
										canWrite ? (
											<div class="row-actions connection-actions">
												<Button
													class="btn-small"
													aria-label={t("changeNamed", { name: c.clientName })}
													onClick={() => setChanging(c)}
												>
													{t("change")}
												</Button>
												<Button
													class="btn-small"
													aria-label={t("revokeNamed", { name: c.clientName })}
													onClick={() => setRevoking(c)}
												>
													{t("revoke")}
												</Button>
											</div>
										) : null,
								},
							]}
						/>
					)
				}
			</LoadState>
			<OpenLink open={opening} onClose={() => setOpening(false)} />
			<PermissionsDialog connection={changing} onClose={() => setChanging(null)} onSaved={state.reload} />
			<ConfirmDialog
				open={revoking !== null}
				title={t("revokeTitle")}
				message={t("revokeText", { name: revoking?.clientName ?? "", origin: revoking?.clientId ?? "" })}
				confirmLabel={t("revoke")}
				busy={busy}
				onConfirm={() => revoking && void revoke(revoking)}
				onClose={() => setRevoking(null)}
			/>
		</Page>
	);
}
