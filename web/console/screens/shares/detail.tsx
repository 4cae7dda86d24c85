// One share: its link (copied with one press, and as a QR code), the API address, what its
// visitors see (without a view), its live status and views (polled every few seconds while the
// page is visible, and a Refresh button), pause, resume and revoke (only the transitions the status
// table allows; revoke after a confirm), edit and make a copy, its gates, what it names, and its
// read log.
import { useEffect, useRef, useState } from "preact/hooks";
import { shareChanges } from "../../../../src/lib/share-status.ts";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
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
import { changeMessages } from "./change-messages.ts";
import { ViewCount } from "./list.tsx";
import { messages } from "./messages.ts";
import { QrCode } from "./qr-code.tsx";
import { ReadLog } from "./read-log.tsx";
import { records, type Share, sections, shareApiUrl, shares, shareUrl } from "./types.ts";

/** How often the status, views and read log are read again while the page is visible. */
const POLL_MS = 5000;

/** Names of the vault's entries and sections by id (empty without the vault's read scopes). */
async function loadNames(): Promise<{ entries: Map<string, string>; sections: Map<string, string> }> {
	const [entryList, sectionList] = await Promise.all([
		hasScope("record:read") ? records.all({ fields: "id,key,name" }) : Promise.resolve([]),
		hasScope("section:read") ? sections.all({ fields: "id,key,name" }) : Promise.resolve([]),
	]);
	return {
		entries: new Map(entryList.map((r) => [r.id, r.name || r.key])),
		sections: new Map(sectionList.map((s) => [s.id, s.name || s.key])),
	};
}

function Gates({ share }: { share: Share }) {
	const t = useT(messages);
	return (
		<section class="share-section" aria-labelledby="share-gates-heading">
			<h2 id="share-gates-heading">{t("gatesHeading")}</h2>
			<dl class="share-facts">
				<dt>{t("passwordShort")}</dt>
				<dd>{t(share.requiresPassword ? "passwordSet" : "passwordNone")}</dd>
				<dt>{t("capShort")}</dt>
				<dd>{share.maxViews === null ? t("noCap") : t("capValue", { count: share.maxViews })}</dd>
				<dt>{t("expiresShort")}</dt>
				<dd>{share.expiresAt ? <DateTime value={share.expiresAt} /> : t("noExpiry")}</dd>
				<dt>{t("handshakeShort")}</dt>
				<dd>{t(share.requireHandshake ? "handshakeRequired" : "handshakeNone")}</dd>
				<dt>{t("watermarkShort")}</dt>
				<dd>{share.stamp ? <q>{share.stamp}</q> : t("watermarkNone")}</dd>
				{share.purpose === "application" ? (
					<>
						<dt>{t("purposeShort")}</dt>
						<dd>{t("purposeApplication")}</dd>
					</>
				) : null}
				{share.signInClient ? (
					<>
						<dt>{t("signInShort")}</dt>
						<dd>{t("signInValue", { client: share.signInClient })}</dd>
					</>
				) : null}
				<dt>{t("created")}</dt>
				<dd>
					<DateTime value={share.created} />
				</dd>
			</dl>
		</section>
	);
}

function Grants({
	share,
	names,
}: {
	share: Share;
	names: { entries: Map<string, string>; sections: Map<string, string> } | undefined;
}) {
	const t = useT(messages);
	// Without the vault's read scopes the names are unknown, not gone: the id stands in.
	const gone = (id: string, scope: string) => (hasScope(scope) ? t("grantGone") : id);
	const items = [
		...share.records.map((id) => ({ id, text: names?.entries.get(id) ?? gone(id, "record:read") })),
		...share.sections.map((id) => {
			const name = names?.sections.get(id) ?? (hasScope("section:read") ? undefined : id);
			return { id, text: name ? t("grantSection", { name }) : t("grantGone") };
		}),
	];
	return (
		<section class="share-section" aria-labelledby="share-grants-heading">
			<h2 id="share-grants-heading">{t("grantsHeading")}</h2>
			{items.length === 0 ? (
				<p>{t("grantsNone")}</p>
			) : names ? (
				<ul class="share-grants">
					{items.map((i) => (
						<li key={i.id}>{i.text}</li>
					))}
				</ul>
			) : (
				<p class="meta">…</p>
			)}
		</section>
	);
}

/** After a status change the pressed button is gone: the keyboard goes to the next action, or the heading. */
function focusActions() {
	const target =
		document.querySelector<HTMLElement>("main .page-actions button") ??
		document.querySelector<HTMLElement>("main h1");
	target?.focus();
}

function Loaded({
	share,
	reload,
	refresh,
	tick,
}: {
	share: Share;
	/** Reads the share again quietly (after a change). */
	reload: () => void;
	/** Reads it again and says so (the Refresh button). */
	refresh: () => void;
	tick: number;
}) {
	const t = useT(messages);
	const c = useT(changeMessages);
	const changed = useRef(false);
	const canWrite = hasScope("link:write");
	const path = `/shares/${encodeURIComponent(share.id)}`;
	const editable = share.status === "active" || share.status === "paused" || share.status === "expired";
	const names = useLoad(loadNames);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [revoking, setRevoking] = useState(false);
	// The server's own transition table (docs/api.md "Status and transitions").
	const allowed = shareChanges(share.status);
	const title = share.label || t("untitled");

	async function setStatus(status: "active" | "paused" | "revoked") {
		setBusy(true);
		setError(null);
		try {
			await shares.update(share.id, { status });
			changed.current = true;
			announce(
				t(status === "paused" ? "pausedNotice" : status === "active" ? "resumedNotice" : "revokedNotice"),
			);
			reload();
		} catch (err) {
			setError(err);
			reload();
		} finally {
			setBusy(false);
			setRevoking(false);
		}
	}

	useEffect(() => {
		if (!changed.current) return;
		changed.current = false;
		focusActions();
	}, [share.status]);

	return (
		<Page
			title={title}
			actions={
				canWrite ? (
					<>
						{editable ? (
							<Link href={`${path}/edit`} class="btn btn-secondary">
								{c("edit")}
							</Link>
						) : null}
						{share.signInClient ? null : (
							<Link href={`/shares/new?copy=${encodeURIComponent(share.id)}`} class="btn btn-secondary">
								{c("copy")}
							</Link>
						)}
						{allowed.includes("paused") ? (
							<Button busy={busy} onClick={() => void setStatus("paused")}>
								{t("pause")}
							</Button>
						) : null}
						{allowed.includes("active") ? (
							<Button busy={busy} onClick={() => void setStatus("active")}>
								{t("resume")}
							</Button>
						) : null}
						{allowed.includes("revoked") ? (
							<Button variant="danger" onClick={() => setRevoking(true)}>
								{t("revoke")}
							</Button>
						) : null}
					</>
				) : undefined
			}
		>
			<p>
				<Link href="/shares">{t("backToList")}</Link>
			</p>
			<div class="share-live">
				<dl class="share-stats">
					<div>
						<dt>{t("status")}</dt>
						<dd>
							<StatusBadge status={share.status} />
						</dd>
					</div>
					<div>
						<dt>{t("views")}</dt>
						<dd class="share-views">
							<ViewCount share={share} />
						</dd>
					</div>
				</dl>
				<div class="share-refresh">
					<Button onClick={refresh}>{t("refresh")}</Button>
					<p class="meta">{t("autoRefresh")}</p>
				</div>
			</div>
			<ErrorAlert error={error} />
			{share.status === "active" ? null : <Notice>{t(`notActive_${share.status}`)}</Notice>}
			<section class="share-section" aria-labelledby="share-link-heading">
				<h2 id="share-link-heading">{t("linkHeading")}</h2>
				{share.slug ? (
					<div class="share-link">
						<div class="share-link-text">
							<p>{t("linkText")}</p>
							<CopyField label={t("linkLabel")} value={shareUrl(share.slug)} />
							<CopyField label={t("apiLabel")} value={shareApiUrl(share.slug)} />
							{hasScope("record:read") ? (
								<p>
									<Link href={`${path}/preview`} class="btn btn-secondary">
										{c("preview")}
									</Link>
								</p>
							) : null}
						</div>
						<figure class="share-qr-figure">
							<QrCode text={shareUrl(share.slug)} label={t("qrLabel")} />
							<figcaption class="meta">{t("qrHint")}</figcaption>
						</figure>
					</div>
				) : (
					<p>{t("noSlug")}</p>
				)}
			</section>
			<Gates share={share} />
			<Grants share={share} names={names.data} />
			<ReadLog shareId={share.id} tick={tick} names={names.data?.entries ?? new Map()} />
			<ConfirmDialog
				open={revoking}
				title={t("revokeTitle")}
				message={t("revokeText", { label: title })}
				confirmLabel={t("revoke")}
				busy={busy}
				onConfirm={() => void setStatus("revoked")}
				onClose={() => setRevoking(false)}
			/>
		</Page>
	);
}

export function ShareDetail({ id }: { id: string }) {
	const t = useT(messages);
	const [tick, setTick] = useState(0);
	const state = useLoad(() => shares.view(id), [id, tick]);
	const manual = useRef(false);

	// Poll while the page is visible; read again at once when it becomes visible.
	useEffect(() => {
		const poll = () => {
			if (document.visibilityState === "visible") setTick((n) => n + 1);
		};
		const timer = window.setInterval(poll, POLL_MS);
		document.addEventListener("visibilitychange", poll);
		return () => {
			window.clearInterval(timer);
			document.removeEventListener("visibilitychange", poll);
		};
	}, []);

	useEffect(() => {
		if (!state.loading && manual.current) {
			manual.current = false;
			announce(t("refreshed"));
		}
	}, [state.loading]);

	if (state.error instanceof ApiError && state.error.status === 404 && !state.data) {
		return (
			<Page title={t("notFound")}>
				<p>{t("notFoundText")}</p>
				<p>
					<Link href="/shares">{t("backToList")}</Link>
				</p>
			</Page>
		);
	}
	return (
		<LoadState state={state}>
			{(share) => (
				<Loaded
					key={share.id}
					share={share}
					tick={tick}
					reload={() => setTick((n) => n + 1)}
					refresh={() => {
						manual.current = true;
						setTick((n) => n + 1);
					}}
				/>
			)}
		</LoadState>
	);
}
