// Change a share in place (PATCH /api/collections/links/records/{id}): its label, the gates
// (password kept, replaced or removed; view cap up or down; expiry; proven identity; the identity
// that signs it) and the watermark. Only what changed is sent. A cap at or below the views already
// taken ends the share at once (docs/api.md "Lowering the limits of a live share"): asked first.
// An expiry in the past is refused; ending a share now is pause or revoke.
import { useRef, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import {
	announce,
	Button,
	Checkbox,
	ConfirmDialog,
	ErrorAlert,
	LoadState,
	Notice,
	Page,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { changeMessages } from "./change-messages.ts";
import { GateFields, type Gates, isStamped, type Watermark, WatermarkFields } from "./create-fields.tsx";
import {
	checkLimits,
	focusFirstInvalid,
	gatesOf,
	loadVault,
	previewFiles,
	stampOk,
	type Vault,
	watermarkOf,
} from "./form.ts";
import { messages } from "./messages.ts";
import { refusedField, type Share, shares } from "./types.ts";

type Errors = Partial<Record<"maxViews" | "expiresAt" | "stamp" | "label", string>>;

async function load(id: string): Promise<{ share: Share; vault: Vault }> {
	const [share, vault] = await Promise.all([shares.view(id), loadVault()]);
	return { share, vault };
}

export function EditShare({ id }: { id: string }) {
	const state = useLoad(() => load(id), [id]);
	return (
		<LoadState state={state}>{({ share, vault }) => <EditForm share={share} vault={vault} />}</LoadState>
	);
}

/** The members of the PATCH: only those that differ from the share as it was read. */
function changes(
	share: Share,
	form: { label: string; gates: Gates; watermark: Watermark; removePassword: boolean },
	cap: number | null,
	expiresAt: string | null,
): Record<string, unknown> {
	const body: Record<string, unknown> = {};
	const { gates, watermark } = form;
	const was = gatesOf(share);
	if (form.label.trim() !== share.label) body.label = form.label.trim();
	if (cap !== share.maxViews) body.maxViews = cap;
	if (gates.expires !== was.expires) body.expiresAt = expiresAt;
	if (form.removePassword) body.password = null;
	else if (gates.password) body.password = gates.password;
	if (gates.requireHandshake !== share.requireHandshake) body.requireHandshake = gates.requireHandshake;
	if (gates.identity !== was.identity) body.identity = gates.identity || null;
	const stamp = isStamped(watermark) ? watermark.stamp.trim() : null;
	if (stamp !== share.stamp) body.stamp = stamp;
	const purpose = watermark.application ? "application" : "";
	if (purpose !== share.purpose) body.purpose = purpose;
	return body;
}

function EditForm({ share, vault }: { share: Share; vault: Vault }) {
	const t = useT(messages);
	const c = useT(changeMessages);
	const title = share.label || t("untitled");
	const [label, setLabel] = useState(share.label);
	const [gates, setGates] = useState<Gates>(gatesOf(share));
	const [watermark, setWatermark] = useState<Watermark>(watermarkOf(share));
	const [removePassword, setRemovePassword] = useState(false);
	const [errors, setErrors] = useState<Errors>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const [lowering, setLowering] = useState<number | null>(null);
	const form = useRef<HTMLFormElement>(null);
	const back = `/shares/${encodeURIComponent(share.id)}`;
	const stamped = isStamped(watermark);
	// An expiry left as it was is not checked again: it is not sent (an expired share's is past).
	const limitsNow = () =>
		checkLimits(gates.expires === gatesOf(share).expires ? { ...gates, expires: "" } : gates);

	async function save(cap: number | null, expiresAt: string | null) {
		const body = changes(share, { label, gates, watermark, removePassword }, cap, expiresAt);
		if (Object.keys(body).length === 0) {
			announce(c("unchanged"));
			navigate(back);
			return;
		}
		setBusy(true);
		setError(null);
		try {
			await shares.update(share.id, body);
			announce(c("saved"));
			navigate(back);
		} catch (err) {
			const field = refusedField(err);
			if (err instanceof ApiError && err.code === "watermark_text_invalid")
				setErrors({ stamp: t("stampInvalid") });
			else if (field === "expiresAt") setErrors({ expiresAt: c("expiresEditPast") });
			else if (field === "maxViews") setErrors({ maxViews: t("maxViewsInvalid") });
			else if (field === "stamp") setErrors({ stamp: t("stampMissing") });
			setError(err);
			setBusy(false);
			setLowering(null);
		}
	}

	function submit(event: Event) {
		event.preventDefault();
		const problems: Errors = {};
		const limits = limitsNow();
		if (!limits.ok) {
			if (limits.maxViews) problems.maxViews = t(limits.maxViews);
			if (limits.expiresAt === "expiresPast") problems.expiresAt = c("expiresEditPast");
			else if (limits.expiresAt) problems.expiresAt = t(limits.expiresAt);
		}
		if (stamped && !watermark.stamp.trim()) problems.stamp = t("stampMissing");
		else if (stamped && !stampOk(watermark.stamp)) problems.stamp = t("stampInvalid");
		setErrors(problems);
		if (!limits.ok || Object.keys(problems).length > 0) {
			announce(t("formHasErrors"));
			focusFirstInvalid(form.current);
			return;
		}
		const { cap, expiresAt } = limits;
		const live = share.status === "active" || share.status === "paused";
		// The cap reached by this change: the share ends with it, so the owner says so first.
		if (live && cap !== null && cap !== share.maxViews && cap <= share.viewCount) {
			setLowering(cap);
			return;
		}
		void save(cap, expiresAt);
	}

	return (
		<Page title={c("editTitle", { label: title })}>
			<p>
				<Link href={back}>{c("backToShare")}</Link>
			</p>
			<p class="intro">{c("editIntro")}</p>
			{share.status === "expired" ? <Notice>{c("editExpired")}</Notice> : null}
			<form ref={form} class="share-form" onSubmit={submit} noValidate>
				<TextField
					label={t("label")}
					maxLength={200}
					autocomplete="off"
					value={label}
					onInput={setLabel}
					error={errors.label ?? null}
				/>
				<GateFields
					gates={gates}
					onChange={(patch) => setGates((g) => ({ ...g, ...patch }))}
					errors={errors}
					identityList={vault.identityList}
					maxViewsHint={c("capViewsTaken", { count: share.viewCount })}
					password={
						share.requiresPassword ? (
							<>
								{removePassword ? null : (
									<TextField
										label={c("passwordNew")}
										hint={c("passwordNewHint")}
										type="password"
										autocomplete="new-password"
										maxLength={200}
										value={gates.password}
										onInput={(password) => setGates((g) => ({ ...g, password }))}
									/>
								)}
								<Checkbox
									label={c("passwordRemove")}
									hint={c("passwordRemoveHint")}
									checked={removePassword}
									onChange={setRemovePassword}
								/>
							</>
						) : undefined
					}
				/>
				<WatermarkFields
					watermark={watermark}
					onChange={(patch) => setWatermark((w) => ({ ...w, ...patch }))}
					error={errors.stamp ?? null}
					files={previewFiles(vault.recordList, { records: share.records, sections: share.sections })}
				/>
				<ErrorAlert error={error} />
				<div class="form-actions">
					<Button type="submit" variant="primary" busy={busy}>
						{c("save")}
					</Button>
					<Link href={back} class="btn btn-secondary">
						{c("cancel")}
					</Link>
				</div>
			</form>
			<ConfirmDialog
				open={lowering !== null}
				title={c("lowerTitle")}
				message={c("lowerText", { label: title, views: share.viewCount, count: lowering ?? 0 })}
				confirmLabel={c("lowerConfirm")}
				busy={busy}
				onConfirm={() => {
					const limits = limitsNow();
					if (limits.ok) void save(limits.cap, limits.expiresAt);
				}}
				onClose={() => setLowering(null)}
			/>
		</Page>
	);
}
