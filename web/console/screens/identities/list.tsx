// The workspace's identities: name, shortened fingerprint (in full on each identity's page),
// standing, creation, and whether this browser holds the private key; create one, revoke one.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	CopyField,
	DateTime,
	Dialog,
	ListPage,
	StatusBadge,
	useLoad,
} from "../../ui/index.ts";
import { CertificateView } from "./cert-view.tsx";
import { CreateIdentity } from "./create.tsx";
import { shortFingerprint } from "./keys.ts";
import { heldFingerprints } from "./keystore.ts";
import { messages } from "./messages.ts";
import { type Identity, identities, revokeIdentity } from "./types.ts";

/** Each identity with whether this browser holds its private key. */
async function loadAll(): Promise<(Identity & { held: boolean })[]> {
	const [list, held] = await Promise.all([
		identities.all({ sort: "-created" }),
		heldFingerprints().catch(() => new Set<string>()),
	]);
	return list.map((i) => ({ ...i, held: held.has(i.fingerprint) }));
}

export function IdentityList() {
	const t = useT(messages);
	const state = useLoad(loadAll);
	const [creating, setCreating] = useState(false);
	const [made, setMade] = useState<Identity | null>(null);
	const canWrite = hasScope("identity:write");

	return (
		<ListPage
			title={t("nav")}
			intro={t("intro")}
			action={canWrite ? { label: t("create"), onClick: () => setCreating(true) } : undefined}
			state={state}
			empty={{ title: t("empty"), text: t("emptyText") }}
			caption={t("caption")}
			rowKey={(i) => i.id}
			tableClass="identity-table"
			columns={[
				{
					label: t("name"),
					cell: (i) => (
						<Link href={`/identities/${encodeURIComponent(i.id)}`} class="identity-name">
							{i.name}
						</Link>
					),
				},
				{
					label: t("fingerprint"),
					cell: (i) => <code class="identity-hex">{shortFingerprint(i.fingerprint)}</code>,
				},
				{ label: t("standing"), cell: (i) => <StatusBadge status={i.status} /> },
				{ label: t("created"), cell: (i) => <DateTime value={i.created} /> },
				{ label: t("device"), cell: (i) => (i.held ? t("held") : t("notHeld")) },
			]}
			actions={[
				{
					label: t("revoke"),
					named: (i) => t("revokeNamed", { name: i.name }),
					when: (i) => canWrite && i.status === "active",
					confirm: {
						title: t("revokeTitle"),
						message: (i) => t("revokeText", { name: i.name }),
						run: revokeIdentity,
						done: t("revoked"),
					},
				},
			]}
		>
			<CreateIdentity
				open={creating}
				onClose={() => setCreating(false)}
				onCreated={(identity) => {
					setCreating(false);
					setMade(identity);
					announce(t("madeTitle"));
					state.reload();
				}}
			/>
			<Dialog
				title={t("madeTitle")}
				open={made !== null}
				onClose={() => setMade(null)}
				actions={
					<>
						<Button
							onClick={() => {
								const id = made?.id ?? "";
								setMade(null);
								navigate(`/identities/${encodeURIComponent(id)}`);
							}}
						>
							{t("openIdentity")}
						</Button>
						<Button variant="primary" onClick={() => setMade(null)}>
							{t("done")}
						</Button>
					</>
				}
			>
				{made ? (
					<>
						<p>{t("madeText")}</p>
						<p class="identity-made-name">{made.name}</p>
						<CopyField label={t("fingerprintFull")} value={made.fingerprint} />
						<CertificateView identity={made} />
					</>
				) : null}
			</Dialog>
		</ListPage>
	);
}
