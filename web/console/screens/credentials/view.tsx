// Held credentials: what attesters stated about this person's identities (type, attester, claims,
// dates), deleting one, and the two app links about them: an offer accepted at /credentials/offer,
// a service's request answered at /credentials/present.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import type { Route } from "../../router.ts";
import { DateTime, ListPage, Page, useLoad } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { AcceptOffer } from "./offer.tsx";
import { OpenCredentialLink } from "./open-link.tsx";
import { Present } from "./present.tsx";
import { credentials, shown } from "./types.ts";

export default function CredentialsScreen({ route, subpath }: { route: Route; subpath: string }) {
	const t = useT(messages);
	const listed = subpath !== "/offer" && subpath !== "/present";
	const state = useLoad(
		() => (listed ? credentials.all({ sort: "-issuedAt" }) : Promise.resolve([])),
		[listed],
	);
	const [opening, setOpening] = useState(false);

	if (subpath === "/offer") {
		return (
			<Page title={t("offerTitle")}>
				<AcceptOffer text={route.query.get("link") ?? ""} />
			</Page>
		);
	}
	if (subpath === "/present") {
		return (
			<Page title={t("presentTitle")}>
				<Present text={route.query.get("link") ?? ""} />
			</Page>
		);
	}

	return (
		<ListPage
			title={t("nav")}
			intro={t("intro")}
			action={{ label: t("openLink"), onClick: () => setOpening(true) }}
			state={state}
			empty={{ title: t("empty"), text: t("emptyText") }}
			caption={t("caption")}
			rowKey={(c) => c.id}
			tableClass="credential-table"
			columns={[
				{ label: t("colType"), cell: (c) => <code>{c.type}</code> },
				{ label: t("colIssuer"), cell: (c) => c.issuer },
				{
					label: t("colClaims"),
					cell: (c) => (
						<ul class="list-plain credential-claims">
							{Object.entries(c.claims).map(([name, value]) => (
								<li key={name}>
									<span class="claim-name">{name}</span>: {shown(value, t("yes"), t("no"))}
								</li>
							))}
						</ul>
					),
				},
				{ label: t("colIssued"), cell: (c) => <DateTime value={c.issuedAt} /> },
				{
					label: t("colExpires"),
					cell: (c) => (c.expiresAt ? <DateTime value={c.expiresAt} /> : t("noEnd")),
				},
			]}
			actions={[
				{
					label: t("remove"),
					named: (c) => t("removeNamed", { name: c.type }),
					confirm: {
						title: t("removeTitle"),
						message: (c) => t("removeText", { name: c.type, issuer: c.issuer }),
						run: (c) => credentials.remove(c.id),
						done: t("removed"),
					},
				},
			]}
		>
			<OpenCredentialLink open={opening} onClose={() => setOpening(false)} />
		</ListPage>
	);
}
