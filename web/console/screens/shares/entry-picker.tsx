// The vault's entries as checkboxes grouped by section, each group a fieldset with its own
// "the whole section" choice (which shares entries added to it later too). Native checkboxes, so
// Tab moves between them and Space ticks one.
import { useId } from "preact/hooks";
import { type Translate, useT } from "../../i18n/index.ts";
import { messages } from "./messages.ts";
import type { Section, VaultRecord } from "./types.ts";

export interface Picked {
	records: string[];
	sections: string[];
}

function Box({
	label,
	hint,
	checked,
	disabled,
	onChange,
}: {
	label: string;
	hint?: string | undefined;
	checked: boolean;
	disabled?: boolean;
	onChange: (checked: boolean) => void;
}) {
	const id = useId();
	return (
		<div class={`checkbox${disabled ? " checkbox-disabled" : ""}`}>
			<input
				type="checkbox"
				id={id}
				checked={checked}
				disabled={disabled}
				aria-describedby={hint ? `${id}-hint` : undefined}
				onChange={(e) => onChange(e.currentTarget.checked)}
			/>
			<label for={id}>{label}</label>
			{hint ? (
				<p class="field-hint" id={`${id}-hint`}>
					{hint}
				</p>
			) : null}
		</div>
	);
}

function toggle(list: string[], id: string, on: boolean): string[] {
	return on ? (list.includes(id) ? list : [...list, id]) : list.filter((x) => x !== id);
}

function entryHint(t: Translate<keyof (typeof messages)["en"]>, r: VaultRecord): string {
	const parts = [r.key];
	if (r.type === "file" && r.file) parts.push(t("fileHint", { name: r.file.name }));
	if (r.hidden) parts.push(t("hiddenHint"));
	return parts.join(" · ");
}

export function EntryPicker({
	records,
	sections,
	picked,
	onChange,
}: {
	records: VaultRecord[];
	sections: Section[];
	picked: Picked;
	onChange: (next: Picked) => void;
}) {
	const t = useT(messages);
	const known = new Set(sections.map((s) => s.id));
	const groups: { section: Section | null; entries: VaultRecord[] }[] = [
		...sections.map((s) => ({ section: s, entries: records.filter((r) => r.section === s.id) })),
		{ section: null, entries: records.filter((r) => r.section === null || !known.has(r.section)) },
	].filter((g) => g.section !== null || g.entries.length > 0);

	return (
		<div class="share-picker">
			{groups.map(({ section, entries }) => {
				const whole = section !== null && picked.sections.includes(section.id);
				return (
					<fieldset class="share-group" key={section?.id ?? "none"}>
						<legend>{section ? section.name : t("unsectioned")}</legend>
						{section ? (
							<Box
								label={t("wholeSection", { name: section.name })}
								hint={t("wholeSectionHint", { count: entries.length })}
								checked={whole}
								onChange={(on) => onChange({ ...picked, sections: toggle(picked.sections, section.id, on) })}
							/>
						) : null}
						{entries.length > 0 ? (
							<ul class="list-plain share-entries">
								{entries.map((r) => (
									<li key={r.id}>
										<Box
											label={r.name || r.key}
											hint={whole ? t("includedWithSection") : entryHint(t, r)}
											checked={whole || picked.records.includes(r.id)}
											disabled={whole}
											onChange={(on) => onChange({ ...picked, records: toggle(picked.records, r.id, on) })}
										/>
									</li>
								))}
							</ul>
						) : null}
					</fieldset>
				);
			})}
		</div>
	);
}
