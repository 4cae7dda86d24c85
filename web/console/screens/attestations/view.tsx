// Attestations of the active workspace: list, issue (type, label, claims one per line, optional
// validity and subject; the offer link is shown once), revoke. With issuing off on this server
// (ALLOW_ATTESTATIONS, off by default) the screen says so first and offers no form; attestations
// issued before stay listed and can still be revoked.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { serverInfo } from "../../server-info.ts";
import { hasScope } from "../../session.ts";
import {
	Button,
	CopyField,
	DateTime,
	Dialog,
	ListPage,
	Notice,
	StatusBadge,
	useLoad,
} from "../../ui/index.ts";
import { Issue } from "./issue.tsx";
import { messages } from "./messages.ts";
import { type Attestation, attestations } from "./types.ts";

export default function AttestationsScreen() {
	const t = useT(messages);
	const state = useLoad(() => attestations.all({ sort: "-created" }));
	const [issuing, setIssuing] = useState(false);
	const [offer, setOffer] = useState<string | null>(null);
	const canWrite = hasScope("attestation:write");
	const on = serverInfo().attestations;
	const name = (a: Attestation) => a.label || a.type;

	return (
		<ListPage
			title={t("nav")}
			intro={t("intro")}
			notice={
				on ? undefined : (
					<Notice>
						<p>
							<strong>{t("offTitle")}</strong> {t("offText")}
						</p>
					</Notice>
				)
			}
			action={canWrite && on ? { label: t("create"), onClick: () => setIssuing(true) } : undefined}
			state={state}
			empty={{ title: t("empty"), text: t("emptyText") }}
			caption={t("caption")}
			rowKey={(a) => a.id}
			columns={[
				{
					label: t("colWhat"),
					cell: (a) => (
						<>
							<strong>{name(a)}</strong>
							<ul class="claim-list">
								{Object.entries(a.claims).map(([k, v]) => (
									<li key={k}>
										{k}: {typeof v === "boolean" ? t(v ? "yes" : "no") : String(v)}
									</li>
								))}
							</ul>
						</>
					),
				},
				{ label: t("colStatus"), cell: (a) => <StatusBadge status={a.status} /> },
				{
					label: t("colSubject"),
					cell: (a) =>
						a.subjectName || a.subjectFingerprint ? (
							<span>
								{a.subjectName ?? ""} {a.subjectDomain ? `(${a.subjectDomain})` : ""}
							</span>
						) : (
							t("nobody")
						),
				},
				{ label: t("colCreated"), cell: (a) => <DateTime value={a.created} /> },
			]}
			actions={[
				{
					label: t("revoke"),
					named: (a) => t("revokeNamed", { name: name(a) }),
					when: (a) => canWrite && a.status !== "revoked",
					confirm: {
						title: t("revokeTitle"),
						message: (a) => t("revokeText", { name: name(a) }),
						run: (a) => attestations.update(a.id, { status: "revoked" }),
						done: t("revoked"),
					},
				},
			]}
		>
			<Issue
				open={issuing && on}
				onClose={() => setIssuing(false)}
				onIssued={(token) => {
					setIssuing(false);
					setOffer(token);
					state.reload();
				}}
			/>
			<Dialog
				title={t("offerTitle")}
				open={offer !== null}
				onClose={() => setOffer(null)}
				actions={
					<Button variant="primary" onClick={() => setOffer(null)}>
						{t("done")}
					</Button>
				}
			>
				<p>{t("offerText")}</p>
				<CopyField label={t("offerLink")} value={offer ? `svc://a/${serverInfo().domain}/${offer}` : ""} />
			</Dialog>
		</ListPage>
	);
}
