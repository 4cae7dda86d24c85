// After answering: what was shared, that the requester reads it live, and that the responder can
// revoke it (here at once, or later with the answer's share).
import { useEffect, useRef, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { announce, Button, ConfirmDialog, DataTable, ErrorAlert, Notice } from "../../ui/index.ts";
import type { Shared } from "./form.tsx";
import { messages } from "./messages.ts";
import { type Answered, links, type Probe } from "./types.ts";

export function AnswerDone({
	probe,
	result,
	shared,
	onAgain,
}: {
	probe: Probe;
	result: Answered;
	shared: Shared[];
	onAgain: () => void;
}) {
	const t = useT(messages);
	const heading = useRef<HTMLHeadingElement>(null);
	const [confirming, setConfirming] = useState(false);
	const [revoked, setRevoked] = useState(false);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	useEffect(() => heading.current?.focus(), []);

	async function revoke() {
		setBusy(true);
		setError(null);
		try {
			await links.update(result.linkId, { status: "revoked" });
			setRevoked(true);
			announce(t("revokedNotice"));
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
			setConfirming(false);
		}
	}

	return (
		<section class="answer-done" aria-labelledby="answer-done-heading">
			<h2 id="answer-done-heading" ref={heading} tabIndex={-1}>
				{revoked ? t("revokedTitle") : t(result.updated ? "updatedTitle" : "sharedTitle")}
			</h2>
			{revoked ? (
				<Notice>{t("revokedText", { name: probe.requester.name })}</Notice>
			) : (
				<Notice tone="success">{t("sharedText", { name: probe.requester.name })}</Notice>
			)}
			<DataTable
				caption={t("sharedCaption")}
				captionHidden={false}
				rows={shared}
				rowKey={(s) => s.label}
				columns={[
					{ label: t("itemColumn"), cell: (s) => s.label },
					{ label: t("valueColumn"), cell: (s) => <span class="answer-entry-value">{s.text}</span> },
					{ label: t("fromColumn"), cell: (s) => t(s.from === "entry" ? "fromEntry" : "fromTyped") },
				]}
			/>
			{revoked ? null : <p>{t("revokeLater")}</p>}
			<ErrorAlert error={error} />
			<div class="form-actions">
				{revoked ? null : (
					<Button variant="danger" onClick={() => setConfirming(true)}>
						{t("revokeNow")}
					</Button>
				)}
				<Button onClick={onAgain}>{t(revoked ? "answerAgain" : "changeAnswer")}</Button>
				<Link href="/shares" class="btn btn-secondary">
					{t("toShares")}
				</Link>
			</div>
			<ConfirmDialog
				open={confirming}
				title={t("revokeTitle")}
				message={t("revokeText", { name: probe.requester.name })}
				confirmLabel={t("revoke")}
				busy={busy}
				onConfirm={() => void revoke()}
				onClose={() => setConfirming(false)}
			/>
		</section>
	);
}
