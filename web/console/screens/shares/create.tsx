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
	Checkbox,
	EmptyState,
	ErrorAlert,
	Fieldset,
	LoadState,
	Page,
	SelectField,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { EntryPicker, type Picked } from "./entry-picker.tsx";
import { messages } from "./messages.ts";
import { StampPreview } from "./stamp-preview.tsx";
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

export function CreateShare() {
	const t = useT(messages);
	const vault = useLoad(loadVault);
	const [label, setLabel] = useState("");
	const [picked, setPicked] = useState<Picked>({ records: [], sections: [] });
	const [password, setPassword] = useState("");
	const [maxViews, setMaxViews] = useState("");
	const [expires, setExpires] = useState("");
	const [requireHandshake, setRequireHandshake] = useState(false);
	const [identity, setIdentity] = useState("");
	const [watermark, setWatermark] = useState(false);
	const [stamp, setStamp] = useState("");
	const [application, setApplication] = useState(false);
	const [errors, setErrors] = useState<Errors>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const form = useRef<HTMLFormElement>(null);

	const recordList = vault.data?.recordList ?? [];
	const stamped = watermark || application;

	/** The chosen entries, without those a chosen whole section already shares. */
	function chosenRecords(): string[] {
		const whole = new Set(picked.sections);
		return picked.records.filter((id) => {
			const r = recordList.find((x) => x.id === id);
			return r !== undefined && !(r.section && whole.has(r.section));
		});
	}

	/** How many entries the share grants now: those chosen and those of the chosen sections. */
	function sharedCount(): number {
		return recordList.filter(
			(r) => picked.records.includes(r.id) || (r.section !== null && picked.sections.includes(r.section)),
		).length;
	}

	/** Files among the chosen entries (directly or through a section), else every file of the vault. */
	function previewFiles(): VaultRecord[] {
		const files = recordList.filter((r) => r.type === "file");
		const chosen = files.filter(
			(r) => picked.records.includes(r.id) || (r.section !== null && picked.sections.includes(r.section)),
		);
		return chosen.length > 0 ? chosen : files;
	}

	async function submit(event: Event) {
		event.preventDefault();
		const problems: Errors = {};
		const ids = chosenRecords();
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
									{t("chosen", { count: sharedCount() })}
								</p>
							</Fieldset>
							<Fieldset legend={t("gates")}>
								<TextField
									label={t("password")}
									hint={t("passwordHint")}
									type="password"
									autocomplete="new-password"
									maxLength={200}
									value={password}
									onInput={setPassword}
								/>
								<TextField
									label={t("maxViews")}
									hint={t("maxViewsHint")}
									type="number"
									inputMode="numeric"
									min={1}
									max={1_000_000_000}
									step={1}
									value={maxViews}
									onInput={setMaxViews}
									error={errors.maxViews ?? null}
								/>
								<TextField
									label={t("expires")}
									hint={t("expiresHint")}
									type="datetime-local"
									value={expires}
									onInput={setExpires}
									error={errors.expiresAt ?? null}
								/>
								<Checkbox
									label={t("handshake")}
									hint={t("handshakeHint")}
									checked={requireHandshake}
									onChange={setRequireHandshake}
								/>
								{loaded.identityList.length > 0 ? (
									<SelectField
										label={t("identity")}
										hint={t("identityHint")}
										value={identity}
										onChange={setIdentity}
										options={[
											{ value: "", label: t("identityNone") },
											...loaded.identityList.map((i) => ({ value: i.id, label: i.name })),
										]}
									/>
								) : null}
							</Fieldset>
							<Fieldset legend={t("watermark")}>
								<Checkbox
									label={t("watermarkOn")}
									hint={t("watermarkHint")}
									checked={stamped}
									onChange={(on) => {
										setWatermark(on);
										if (!on) setApplication(false);
									}}
								/>
								<Checkbox
									label={t("application")}
									hint={t("applicationHint")}
									checked={application}
									onChange={setApplication}
								/>
								{stamped ? (
									<>
										<TextField
											label={t("stamp")}
											hint={t("stampHint")}
											required
											maxLength={400}
											autocomplete="off"
											value={stamp}
											onInput={setStamp}
											error={errors.stamp ?? null}
										/>
										<StampPreview text={stamp} files={previewFiles()} />
									</>
								) : null}
							</Fieldset>
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
