// A new share: the entries and sections it names (picked from the vault, grouped by section), a
// label, the gates (password, view cap, expiry, proven identity) and the watermark with its
// preview. POST /api/collections/links/records, then the share's own page with its link.
import { useRef, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	EmptyState,
	ErrorAlert,
	Fieldset,
	LoadState,
	Page,
	TextField,
	useLoad,
} from "../../ui/index.ts";
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
import { messages } from "./messages.ts";
import {
	type Identity,
	identities,
	localToIso,
	records,
	refusedField,
	type Section,
	sections,
	shares,
	type VaultRecord,
} from "./types.ts";

type Errors = Partial<Record<"picked" | "maxViews" | "expiresAt" | "stamp", string>>;

interface Vault {
	recordList: VaultRecord[];
	sectionList: Section[];
	identityList: Identity[];
}

async function loadVault(): Promise<Vault> {
	const [recordList, sectionList, identityList] = await Promise.all([
		records.all({ sort: "name", fields: "id,key,name,type,section,hidden,file" }),
		sections.all({ sort: "ordering,created" }),
		hasScope("identity:read")
			? identities.all({ filter: 'status = "active"', sort: "name" })
			: Promise.resolve([]),
	]);
	return { recordList, sectionList, identityList };
}

/** The stamp's rule (docs/api.md "Making and changing shares"): one line, 1 to 120 characters. */
function stampOk(text: string): boolean {
	const chars = [...text.trim()];
	const control = chars.some((c) => {
		const code = c.codePointAt(0) ?? 0;
		return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
	});
	return chars.length >= 1 && chars.length <= 120 && !control;
}

/** Moves the keyboard to the first field marked invalid once the errors are rendered. */
function focusFirstInvalid(form: HTMLFormElement | null) {
	requestAnimationFrame(() =>
		form?.querySelector<HTMLElement>('[aria-invalid="true"], fieldset[aria-describedby] input')?.focus(),
	);
}

/** The chosen entries, without those a chosen whole section already shares. */
function chosenRecords(recordList: VaultRecord[], picked: Picked): string[] {
	const whole = new Set(picked.sections);
	return picked.records.filter((id) => {
		const r = recordList.find((x) => x.id === id);
		return r !== undefined && !(r.section && whole.has(r.section));
	});
}

/** Whether the share grants the entry now: chosen, or in a chosen section. */
const grants = (picked: Picked, r: VaultRecord) =>
	picked.records.includes(r.id) || (r.section !== null && picked.sections.includes(r.section));

/** How many entries the share grants now: those chosen and those of the chosen sections. */
function sharedCount(recordList: VaultRecord[], picked: Picked): number {
	return recordList.filter((r) => grants(picked, r)).length;
}

/** Files among the chosen entries (directly or through a section), else every file of the vault. */
function previewFiles(recordList: VaultRecord[], picked: Picked): VaultRecord[] {
	const files = recordList.filter((r) => r.type === "file");
	const chosen = files.filter((r) => grants(picked, r));
	return chosen.length > 0 ? chosen : files;
}

export function CreateShare() {
	const t = useT(messages);
	const vault = useLoad(loadVault);
	const [label, setLabel] = useState("");
	const [picked, setPicked] = useState<Picked>({ records: [], sections: [] });
	const [gates, setGates] = useState<Gates>(OPEN);
	const [watermark, setWatermark] = useState<Watermark>(UNSTAMPED);
	const [errors, setErrors] = useState<Errors>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const form = useRef<HTMLFormElement>(null);

	const recordList = vault.data?.recordList ?? [];
	const { password, maxViews, expires, requireHandshake, identity } = gates;
	const { stamp, application } = watermark;
	const stamped = isStamped(watermark);

	async function submit(event: Event) {
		event.preventDefault();
		const problems: Errors = {};
		const ids = chosenRecords(recordList, picked);
		if (ids.length === 0 && picked.sections.length === 0) problems.picked = t("pickOne");
		else if (ids.length > 500 || picked.sections.length > 500) problems.picked = t("tooMany");
		const cap = maxViews.trim() === "" ? null : Number(maxViews);
		if (cap !== null && (!Number.isInteger(cap) || cap < 1 || cap > 1_000_000_000))
			problems.maxViews = t("maxViewsInvalid");
		const expiresAt = expires ? localToIso(expires) : null;
		if (expires && expiresAt === null) problems.expiresAt = t("expiresInvalid");
		else if (expiresAt && new Date(expiresAt).getTime() <= Date.now()) problems.expiresAt = t("expiresPast");
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
		<Page title={t("createTitle")}>
			<p>
				<Link href="/shares">{t("backToList")}</Link>
			</p>
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
