// One request: the link responders open (copied with one press), what it asks, how it is gated,
// its callback (tested with the request's real id), its answer-only sign-ups (switched on and off
// here), close or reopen, delete, and its answers.
import { useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { serverInfo } from "../../server-info.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	CopyField,
	DateTime,
	ErrorAlert,
	LoadState,
	Notice,
	Page,
	StatusBadge,
	useLoad,
} from "../../ui/index.ts";
import { AnswerSignups } from "./answer-signups.tsx";
import { Answers } from "./answers.tsx";
import { TestDelivery } from "./callback-field.tsx";
import { ItemsTable } from "./items-table.tsx";
import { messages } from "./messages.ts";
import { SendLink } from "./send-link.tsx";
import { answerUrl, type DataRequest, requests } from "./types.ts";

function Settings({ req }: { req: DataRequest }) {
	const t = useT(messages);
	return (
		<section class="req-section" aria-labelledby="req-settings-heading">
			<h2 id="req-settings-heading">{t("settings")}</h2>
			<dl class="req-facts">
				<dt>{t("passwordShort")}</dt>
				<dd>{t(req.requiresPassword ? "passwordSet" : "passwordNone")}</dd>
				<dt>{t("identifierShort")}</dt>
				<dd>{t(req.requiresIdentifier ? "identifierAsked" : "identifierNotAsked")}</dd>
				<dt>{t("handshakeShort")}</dt>
				<dd>
					{req.requireHandshake
						? `${t("handshakeRequired")} (${t(`scope_${req.identityScope}`)})`
						: t("handshakeNotRequired")}
				</dd>
				<dt>{t("extraShort")}</dt>
				<dd>{t(req.allowExtraFields ? "extraAllowed" : "extraNotAllowed")}</dd>
				<dt>{t("expiresAt")}</dt>
				<dd>{req.expiresAt ? <DateTime value={req.expiresAt} /> : t("noExpiry")}</dd>
				<dt>{t("created")}</dt>
				<dd>
					<DateTime value={req.created} />
				</dd>
				<dt>{t("callbackShort")}</dt>
				<dd>{req.callbackUrl ? <code>{req.callbackUrl}</code> : t("callbackNone")}</dd>
			</dl>
			{req.callbackUrl && hasScope("request:write") ? (
				<TestDelivery url={req.callbackUrl} requestId={req.id} />
			) : null}
		</section>
	);
}

function Loaded({ req, reload }: { req: DataRequest; reload: () => void }) {
	const t = useT(messages);
	const canWrite = hasScope("request:write");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [deleting, setDeleting] = useState(false);

	async function setStatus(status: "open" | "closed") {
		setBusy(true);
		setError(null);
		try {
			await requests.update(req.id, { status });
			announce(t(status === "closed" ? "closedNotice" : "reopenedNotice"));
			reload();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	async function remove() {
		setBusy(true);
		setError(null);
		try {
			await requests.remove(req.id);
			announce(t("deletedNotice"));
			navigate("/requests");
		} catch (err) {
			setError(err);
			setBusy(false);
			setDeleting(false);
		}
	}

	return (
		<Page
			title={req.label}
			actions={
				canWrite ? (
					<>
						{req.status === "closed" ? (
							<Button busy={busy} onClick={() => void setStatus("open")}>
								{t("reopen")}
							</Button>
						) : (
							<Button busy={busy} onClick={() => void setStatus("closed")}>
								{t("close")}
							</Button>
						)}
						<Button variant="danger" onClick={() => setDeleting(true)}>
							{t("delete")}
						</Button>
					</>
				) : undefined
			}
		>
			<p class="req-status-line">
				<Link href="/requests">{t("backToList")}</Link>
				<span>
					{t("status")}: <StatusBadge status={req.status} />
				</span>
			</p>
			<ErrorAlert error={error} />
			<section class="req-section" aria-labelledby="req-link-heading">
				<h2 id="req-link-heading">{t("linkHeading")}</h2>
				<p>{t("linkText")}</p>
				<CopyField label={t("linkLabel")} value={answerUrl(req.slug)} />
				{serverInfo().mail && canWrite && req.status === "open" ? <SendLink requestId={req.id} /> : null}
				{req.status === "open" ? null : <Notice>{t(`notOpen_${req.status}`)}</Notice>}
			</section>
			<section class="req-section" aria-labelledby="req-items-heading">
				<h2 id="req-items-heading">{t("asks")}</h2>
				<ItemsTable items={req.items} caption={t("asksCaption")} />
			</section>
			<Settings req={req} />
			<AnswerSignups req={req} reload={reload} />
			<Answers requestId={req.id} label={req.label} />
			<ConfirmDialog
				open={deleting}
				title={t("deleteTitle")}
				message={t("deleteText", { label: req.label })}
				confirmLabel={t("delete")}
				busy={busy}
				onConfirm={() => void remove()}
				onClose={() => setDeleting(false)}
			/>
		</Page>
	);
}

export function RequestDetail({ id }: { id: string }) {
	const t = useT(messages);
	const state = useLoad(() => requests.view(id), [id]);
	if (state.error instanceof ApiError && state.error.status === 404 && !state.data) {
		return (
			<Page title={t("notFound")}>
				<p>{t("notFoundText")}</p>
				<p>
					<Link href="/requests">{t("backToList")}</Link>
				</p>
			</Page>
		);
	}
	return (
		<LoadState state={state}>{(req) => <Loaded key={req.id} req={req} reload={state.reload} />}</LoadState>
	);
}
