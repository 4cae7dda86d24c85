// The entries of one group as a table: name and key with what kind of entry it is, the current
// value (a hidden entry's masked until shown; a file's name, type and size with a download), when
// it changed, and the actions.
import { useState } from "preact/hooks";
import { useLocale, useT } from "../../i18n/index.ts";
import { Button, DataTable, DateTime } from "../../ui/index.ts";
import { fileKind, formatSize } from "./format.ts";
import { messages } from "./messages.ts";
import type { VaultRecord } from "./types.ts";

/** Long values are cut in the list; the edit dialog holds the whole text. */
const SHOWN = 240;

export interface EntryActions {
	canWrite: boolean;
	onEdit: (entry: VaultRecord) => void;
	onReplace: (entry: VaultRecord) => void;
	onDelete: (entry: VaultRecord) => void;
	onDownload: (entry: VaultRecord) => void;
}

export function EntriesTable({
	caption,
	entries,
	byId,
	actions,
}: {
	caption: string;
	entries: VaultRecord[];
	byId: Map<string, VaultRecord>;
	actions: EntryActions;
}) {
	const t = useT(messages);
	return (
		<DataTable
			caption={caption}
			rows={entries}
			rowKey={(r) => r.id}
			columns={[
				{ label: t("colEntry"), cell: (r) => <EntryCell entry={r} /> },
				{ label: t("colValue"), cell: (r) => <ValueCell entry={r} byId={byId} actions={actions} /> },
				{ label: t("colUpdated"), cell: (r) => <DateTime value={r.updated} /> },
				{
					label: t("colActions"),
					kind: "actions",
					cell: (r) =>
						actions.canWrite ? (
							<div class="row-actions">
								<Button
									class="btn-small"
									aria-label={t("editNamed", { name: r.name })}
									onClick={() => actions.onEdit(r)}
								>
									{t("edit")}
								</Button>
								{r.type === "file" ? (
									<Button
										class="btn-small"
										aria-label={t("replaceNamed", { name: r.name })}
										onClick={() => actions.onReplace(r)}
									>
										{t("replace")}
									</Button>
								) : null}
								<Button
									class="btn-small"
									aria-label={t("deleteNamed", { name: r.name })}
									onClick={() => actions.onDelete(r)}
								>
									{t("delete")}
								</Button>
							</div>
						) : null,
				},
			]}
		/>
	);
}

function EntryCell({ entry }: { entry: VaultRecord }) {
	const t = useT(messages);
	return (
		<div class="vault-entry">
			<span class="vault-name">{entry.name}</span>
			<code class="vault-key">{entry.key}</code>
			{entry.hidden || entry.alias || entry.type === "file" ? (
				<span class="vault-badges">
					{entry.type === "file" ? <span class="badge">{t("badgeFile")}</span> : null}
					{entry.alias ? <span class="badge vault-badge-alias">{t("badgeAlias")}</span> : null}
					{entry.hidden ? <span class="badge vault-badge-hidden">{t("badgeHidden")}</span> : null}
				</span>
			) : null}
		</div>
	);
}

function ValueCell({
	entry,
	byId,
	actions,
}: {
	entry: VaultRecord;
	byId: Map<string, VaultRecord>;
	actions: EntryActions;
}) {
	const t = useT(messages);
	const lang = useLocale();
	const [shown, setShown] = useState(false);
	if (entry.type === "file" && entry.file) {
		return (
			<div class="vault-file">
				<span class="vault-file-name">{entry.file.name}</span>
				<span class="meta">
					{t("fileMeta", { type: fileKind(entry.file.type, lang), size: formatSize(entry.file.size, lang) })}
				</span>
				<Button
					class="btn-small"
					aria-label={t("downloadNamed", { name: entry.name })}
					onClick={() => actions.onDownload(entry)}
				>
					{t("download")}
				</Button>
			</div>
		);
	}
	const target = entry.alias ? byId.get(entry.alias) : undefined;
	const masked = entry.hidden || Boolean(target?.hidden);
	const value = entry.value ?? "";
	return (
		<div class="vault-value-cell">
			{entry.alias ? (
				<span class="meta vault-alias-of">{t("aliasOf", { name: target?.name ?? entry.alias })}</span>
			) : null}
			{masked && !shown ? (
				<span class="vault-masked">
					<span aria-hidden="true">••••••••</span>
					<span class="visually-hidden">{t("maskedValue")}</span>
				</span>
			) : value === "" ? (
				<span class="meta">{t("emptyValue")}</span>
			) : (
				<span class="vault-value">{value.length > SHOWN ? `${value.slice(0, SHOWN)}…` : value}</span>
			)}
			{masked ? (
				<Button
					class="btn-small vault-reveal"
					aria-label={t(shown ? "hideNamed" : "showNamed", { name: entry.name })}
					onClick={() => setShown((s) => !s)}
				>
					{t(shown ? "hide" : "show")}
				</Button>
			) : null}
		</div>
	);
}
