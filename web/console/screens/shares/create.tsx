// A new share: the entries and sections it names (picked from the vault, grouped by section), a
// label, the gates (password, view cap, expiry, proven identity) and the watermark with its
// preview. POST /api/collections/links/records, then the share's own page with its link. "Make a
// copy" opens this form filled in from another share (a new address, views from 0; the password
// is never read back, so it is typed again).
import { useRef, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import {
	announce,
	Button,
	EmptyState,
	ErrorAlert,
	Fieldset,
	LoadState,
	Notice,
	Page,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { changeMessages } from "./change-messages.ts";
import {
	GateFields,
	type Gates,
	isStamped,
	OPEN,
	UNSTAMPED,
	type Watermark,
	WatermarkFields,
} from "./create-fields.tsx";
import { EntryPicker, type Picked } from "./entry-picker.tsx";
import {
	checkLimits,
	chosenRecords,
	focusFirstInvalid,
	gatesOf,
	loadVault,
	previewFiles,
	sharedCount,
	stampOk,
	watermarkOf,
} from "./form.ts";
import { messages } from "./messages.ts";
import { refusedField, type Share, shares } from "./types.ts";

type Errors = Partial<Record<"picked" | "maxViews" | "expiresAt" | "stamp", string>>;

/** "Make a copy": the form filled in from the share with this id. */
export function CopyShare({ id }: { id: string }) {
	const source = useLoad(() => shares.view(id), [id]);
	return <LoadState state={source}>{(share) => <CreateShare from={share} />}</LoadState>;
}

export function CreateShare({ from }: { from?: Share } = {}) {
	const t = useT(messages);
	const c = useT(changeMessages);
	const vault = useLoad(loadVault);
	const [label, setLabel] = useState(
		from ? c("copyOf", { label: from.label || t("untitled") }).slice(0, 200) : "",
	);
	const [picked, setPicked] = useState<Picked>({
		records: from?.records ?? [],
		sections: from?.sections ?? [],
	});
	// A copy's expiry is kept only while it is still ahead: a past one would be refused.
	const [gates, setGates] = useState<Gates>(() => {
		if (!from) return OPEN;
		const copied = gatesOf(from);
		return checkLimits({ ...copied, maxViews: "" }).ok ? copied : { ...copied, expires: "" };
	});
	const [watermark, setWatermark] = useState<Watermark>(from ? watermarkOf(from) : UNSTAMPED);
	const [errors, setErrors] = useState<Errors>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const form = useRef<HTMLFormElement>(null);

	const recordList = vault.data?.recordList ?? [];
	const { password, requireHandshake, identity } = gates;
	const { stamp, application } = watermark;
	const stamped = isStamped(watermark);

	async function submit(event: Event) {
		event.preventDefault();
		const problems: Errors = {};
		const ids = chosenRecords(recordList, picked);
		if (ids.length === 0 && picked.sections.length === 0) problems.picked = t("pickOne");
		else if (ids.length > 500 || picked.sections.length > 500) problems.picked = t("tooMany");
		const limits = checkLimits(gates);
		if (!limits.ok) {
			if (limits.maxViews) problems.maxViews = t(limits.maxViews);
			if (limits.expiresAt) problems.expiresAt = t(limits.expiresAt);
		}
		const cap = limits.ok ? limits.cap : null;
		const expiresAt = limits.ok ? limits.expiresAt : null;
		if (stamped && !stamp.trim()) problems.stamp = t("stampMissing");
		else if (stamped && !stampOk(stamp)) problems.stamp = t("stampInvalid");
		setErrors(problems);
		if (Object.keys(problems).length > 0) {
			announce(t("formHasErrors"));
			focusFirstInvalid(form.current);
			return;
		}
		setBusy(true);
		setError(null);
		try {
			const { data } = await shares.create({
				label: label.trim(),
				records: ids,
				sections: picked.sections,
				...(password ? { password } : {}),
				...(cap !== null ? { maxViews: cap } : {}),
				...(expiresAt ? { expiresAt } : {}),
				requireHandshake,
				...(identity ? { identity } : {}),
				...(stamped ? { stamp: stamp.trim() } : {}),
				...(application ? { purpose: "application" } : {}),
			});
			announce(t("createdNotice"));
			navigate(`/shares/${data.id}`);
		} catch (err) {
			const field = refusedField(err);
			if (err instanceof ApiError && err.code === "watermark_text_invalid")
				setErrors({ stamp: t("stampInvalid") });
			else if (field === "expiresAt") setErrors({ expiresAt: t("expiresPast") });
			else if (field === "maxViews") setErrors({ maxViews: t("maxViewsInvalid") });
			setError(err);
			setBusy(false);
		}
	}

	return (
		<Page title={from ? c("copyTitle", { label: from.label || t("untitled") }) : t("createTitle")}>
			<p>
				<Link href="/shares">{t("backToList")}</Link>
			</p>
			{from ? (
				<Notice>
					<p>{c(from.requiresPassword ? "copyIntroPassword" : "copyIntro")}</p>
				</Notice>
			) : null}
			<LoadState state={vault}>
				{(loaded) =>
					loaded.recordList.length === 0 && loaded.sectionList.length === 0 ? (
						<EmptyState title={t("vaultEmpty")}>
							<p>{t("vaultEmptyText")}</p>
							<p>
								<Link href="/vault">{t("openVault")}</Link>
							</p>
						</EmptyState>
					) : (
						<form ref={form} class="share-form" onSubmit={(e) => void submit(e)} noValidate>
							<TextField
								label={t("label")}
								hint={t("labelHint")}
								maxLength={200}
								autocomplete="off"
								value={label}
								onInput={setLabel}
							/>
							<Fieldset legend={t("what")} error={errors.picked ?? null}>
								<p class="field-hint">{t("whatHint")}</p>
								<EntryPicker
									records={loaded.recordList}
									sections={loaded.sectionList}
									picked={picked}
									onChange={(next) => {
										setPicked(next);
										setErrors((e) => ({ ...e, picked: undefined }));
									}}
								/>
								<p class="meta" aria-live="polite">
									{t("chosen", { count: sharedCount(recordList, picked) })}
								</p>
							</Fieldset>
							<GateFields
								gates={gates}
								onChange={(patch) => setGates((g) => ({ ...g, ...patch }))}
								errors={errors}
								identityList={loaded.identityList}
							/>
							<WatermarkFields
								watermark={watermark}
								onChange={(patch) => setWatermark((w) => ({ ...w, ...patch }))}
								error={errors.stamp ?? null}
								files={previewFiles(recordList, picked)}
							/>
							<ErrorAlert error={error} />
							<div class="form-actions">
								<Button type="submit" variant="primary" busy={busy}>
									{t("createSubmit")}
								</Button>
								<Link href="/shares" class="btn btn-secondary">
									{t("cancel")}
								</Link>
							</div>
						</form>
					)
				}
			</LoadState>
		</Page>
	);
}
