// One group of the vault: a section (with rename, move and delete) or the entries without one.
import { useId } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Button } from "../../ui/index.ts";
import { EntriesTable, type EntryActions } from "./entries-table.tsx";
import { messages } from "./messages.ts";
import type { Section, VaultRecord } from "./types.ts";

export interface SectionActions {
	onRename: (section: Section) => void;
	onMove: (section: Section, by: -1 | 1) => void;
	onDelete: (section: Section) => void;
}

export function SectionGroup({
	section,
	entries,
	byId,
	first,
	last,
	actions,
	sectionActions,
}: {
	/** null: the entries without a section. */
	section: Section | null;
	entries: VaultRecord[];
	byId: Map<string, VaultRecord>;
	first: boolean;
	last: boolean;
	actions: EntryActions;
	sectionActions: SectionActions;
}) {
	const t = useT(messages);
	const headingId = useId();
	const name = section?.name ?? t("unsectioned");
	return (
		<section class="vault-section" aria-labelledby={headingId}>
			<div class="vault-section-head">
				<div class="vault-section-title">
					<h2 id={headingId}>{name}</h2>
					<span class="meta">
						{section ? (
							<>
								<code>{section.key}</code>
								{" · "}
							</>
						) : null}
						{t("entryCount", { count: entries.length })}
					</span>
				</div>
				{section && actions.canWrite ? (
					<div class="row-actions">
						<Button
							class="btn-small"
							aria-label={t("renameNamed", { name })}
							onClick={() => sectionActions.onRename(section)}
						>
							{t("rename")}
						</Button>
						<Button
							class="btn-small"
							id={`vault-up-${section.id}`}
							aria-label={t("moveUpNamed", { name })}
							disabled={first}
							onClick={() => sectionActions.onMove(section, -1)}
						>
							{t("moveUp")}
						</Button>
						<Button
							class="btn-small"
							id={`vault-down-${section.id}`}
							aria-label={t("moveDownNamed", { name })}
							disabled={last}
							onClick={() => sectionActions.onMove(section, 1)}
						>
							{t("moveDown")}
						</Button>
						<Button
							class="btn-small"
							aria-label={t("deleteSectionNamed", { name })}
							onClick={() => sectionActions.onDelete(section)}
						>
							{t("delete")}
						</Button>
					</div>
				) : null}
			</div>
			{entries.length > 0 ? (
				<EntriesTable caption={t("caption", { name })} entries={entries} byId={byId} actions={actions} />
			) : (
				<p class="meta vault-section-empty">{t("sectionEmpty")}</p>
			)}
		</section>
	);
}
