// The workspace's identities: name, shortened fingerprint (in full on each identity's page),
// standing, creation, and whether this browser holds the private key; create one, revoke one.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	CopyField,
	DataTable,
	DateTime,
	Dialog,
	EmptyState,
	ErrorAlert,
	LoadState,
	Page,
	StatusBadge,
	useLoad,
} from "../../ui/index.ts";
import { CertificateView } from "./cert-view.tsx";
import { CreateIdentity } from "./create.tsx";
import { shortFingerprint } from "./keys.ts";
import { heldFingerprints } from "./keystore.ts";
import { messages } from "./messages.ts";
import { type Identity, identities, revokeIdentity } from "./types.ts";

async function loadAll(): Promise<{ list: Identity[]; held: Set<string> }> {
	const [list, held] = await Promise.all([
		identities.all({ sort: "-created" }),
		heldFingerprints().catch(() => new Set<string>()),
	]);
	return { list, held };
}

export function IdentityList() {
	const t = useT(messages);
	const state = useLoad(loadAll);
	const [creating, setCreating] = useState(false);
	const [made, setMade] = useState<Identity | null>(null);
	const [revoking, setRevoking] = useState<Identity | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const canWrite = hasScope("identity:write");

	async function revoke(identity: Identity) {
		setBusy(true);
		setError(null);
		try {
			await revokeIdentity(identity);
			announce(t("revoked"));
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
			setRevoking(null);
			state.reload();
		}
	}

	return (
		<Page
			title={t("nav")}
			actions={
				canWrite ? (
					<Button variant="primary" onClick={() => setCreating(true)}>
						{t("create")}
					</Button>
				) : undefined
			}
		>
			<p class="intro">{t("intro")}</p>
			<ErrorAlert error={error} />
			<LoadState state={state}>
				{({ list, held }) =>
					list.length === 0 ? (
						<EmptyState title={t("empty")}>
							<p>{t("emptyText")}</p>
						</EmptyState>
					) : (
						<div class="identity-table">
							<DataTable
								caption={t("caption")}
								rows={list}
								rowKey={(i) => i.id}
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
									{
										label: t("device"),
										cell: (i) => (held.has(i.fingerprint) ? t("held") : t("notHeld")),
									},
									{
										label: t("actions"),
										kind: "actions",
										cell: (i) =>
											canWrite && i.status === "active" ? (
												<Button
													class="btn-small"
													aria-label={t("revokeNamed", { name: i.name })}
													onClick={() => setRevoking(i)}
												>
													{t("revoke")}
												</Button>
											) : null,
									},
								]}
							/>
						</div>
					)
				}
			</LoadState>
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
			<ConfirmDialog
				open={revoking !== null}
				title={t("revokeTitle")}
				message={t("revokeText", { name: revoking?.name ?? "" })}
				confirmLabel={t("revoke")}
				busy={busy}
				onConfirm={() => revoking && void revoke(revoking)}
				onClose={() => setRevoking(null)}
			/>
		</Page>
	);
}
