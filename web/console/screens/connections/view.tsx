// Connected tools: the workspace's connections (name, origin, permissions, expiry, state) with
// revoke and a permission change, and the consent a person gives when a tool asks to connect
// (`svc://connect`) or proposes a share (`svc://p`): pasted here, then answered at `/connect`.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import type { Route } from "../../router.ts";
import { hasScope } from "../../session.ts";
import { DateTime, ListPage, Page, useLoad } from "../../ui/index.ts";
import { Consent } from "./consent.tsx";
import { messages } from "./messages.ts";
import { OpenLink } from "./open-link.tsx";
import { PermissionsDialog } from "./permissions.tsx";
import { type Connection, connections } from "./types.ts";

export default function ConnectionsScreen({ route, subpath }: { route: Route; subpath: string }) {
	const t = useT(messages);
	const state = useLoad(() => (subpath === "/connect" ? Promise.resolve([]) : connections.all()), [subpath]);
	const [opening, setOpening] = useState(false);
	const [changing, setChanging] = useState<Connection | null>(null);
	const canWrite = hasScope("link:write");

	if (subpath === "/connect") {
		return (
			<Page title={t("nav")}>
				<Consent text={route.query.get("link") ?? ""} />
			</Page>
		);
	}

	return (
		<ListPage
			title={t("nav")}
			intro={t("intro")}
			action={
				canWrite ? { label: t("openLink"), onClick: () => setOpening(true), icon: "connections" } : undefined
			}
			state={state}
			empty={{ title: t("empty"), text: t("emptyText") }}
			caption={t("caption")}
			rowKey={(c) => c.id}
			tableClass="connection-table"
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
						<span class={`badge badge-${c.state === "connected" ? "active" : "expired"}`}>{t(c.state)}</span>
					),
				},
				{ label: t("shares"), cell: (c) => String(c.linkCount) },
			]}
			actions={
				canWrite
					? [
							{
								label: t("change"),
								named: (c) => t("changeNamed", { name: c.clientName }),
								open: setChanging,
							},
							{
								label: t("revoke"),
								named: (c) => t("revokeNamed", { name: c.clientName }),
								confirm: {
									title: t("revokeTitle"),
									message: (c) => t("revokeText", { name: c.clientName, origin: c.clientId }),
									run: (c) => connections.remove(c.id),
									done: t("revoked"),
								},
							},
						]
					: []
			}
		>
			<OpenLink open={opening} onClose={() => setOpening(false)} />
			<PermissionsDialog connection={changing} onClose={() => setChanging(null)} onSaved={state.reload} />
		</ListPage>
	);
}
