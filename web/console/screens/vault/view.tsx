// The vault of the active workspace: entries grouped by section (sections in their order, then the
// entries without one), a search by key or name, and the dialogs that add, change and delete
// entries and sections. Everything goes through the `records` and `sections` collections and the
// file endpoints of docs/api.md "Vault".
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	EmptyState,
	ErrorAlert,
	type Loaded,
	LoadState,
	Page,
	useLoad,
} from "../../ui/index.ts";
import { downloadFile } from "./download.ts";
import type { EntryActions } from "./entries-table.tsx";
import { EntryDialog } from "./entry-dialog.tsx";
import { FileDialog } from "./file-dialog.tsx";
import { messages } from "./messages.ts";
import { SectionDialog } from "./section-dialog.tsx";
import { records, type Section, sections, type VaultRecord } from "./types.ts";
import { VaultList } from "./vault-list.tsx";

type Open =
	| { kind: "entry"; entry: VaultRecord | null }
	| { kind: "file"; entry: VaultRecord | null }
	| { kind: "section"; section: Section | null }
	| null;
type Deleting = { kind: "entry"; entry: VaultRecord } | { kind: "section"; section: Section } | null;

interface Vault {
	all: VaultRecord[];
	sectionList: Section[];
}

async function loadVault(): Promise<Vault> {
	const [all, sectionList] = await Promise.all([records.all(), sections.all({ sort: "ordering,created" })]);
	all.sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
	return { all, sectionList };
}

/**
 * After the list reloads: a moved section's button keeps the focus (or its twin, when it became
 * disabled); after a delete, whose button is gone, the heading takes it. A layout effect: the focus
 * moves in the same frame as the list, never after the new order is on screen. Set the returned
 * ref to the button's id, or "heading", before reloading.
 */
function useFocusAfterReload(state: Loaded<unknown>) {
	const focusAfter = useRef<string | null>(null);
	useLayoutEffect(() => {
		const id = focusAfter.current;
		if (!id || state.loading) return;
		focusAfter.current = null;
		if (id === "heading") {
			document.querySelector<HTMLElement>("main h1")?.focus();
			return;
		}
		const twin = id.includes("-up-") ? id.replace("-up-", "-down-") : id.replace("-down-", "-up-");
		const button = document.getElementById(id) as HTMLButtonElement | null;
		(button && !button.disabled ? button : document.getElementById(twin))?.focus();
	}, [state.data, state.loading]);
	return focusAfter;
}

/** The add/change dialog that is open, if any. */
function OpenDialog({
	open,
	data,
	onClose,
	onSaved,
	onUploaded,
}: {
	open: Open;
	data: Vault;
	onClose: () => void;
	onSaved: (said: string) => void;
	onUploaded: (said: string) => void;
}) {
	if (open?.kind === "entry") {
		return (
			<EntryDialog
				entry={open.entry}
				all={data.all}
				sectionList={data.sectionList}
				onClose={onClose}
				onSaved={onSaved}
			/>
		);
	}
	if (open?.kind === "file") {
		return (
			<FileDialog
				entry={open.entry}
				sectionList={data.sectionList}
				onClose={onClose}
				onUploaded={onUploaded}
			/>
		);
	}
	if (open?.kind === "section") {
		return (
			<SectionDialog
				section={open.section}
				sectionList={data.sectionList}
				onClose={onClose}
				onSaved={onSaved}
			/>
		);
	}
	return null;
}

export default function VaultScreen() {
	const t = useT(messages);
	const state = useLoad(loadVault);
	const [query, setQuery] = useState("");
	const [open, setOpen] = useState<Open>(null);
	const [deleting, setDeleting] = useState<Deleting>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [refusal, setRefusal] = useState<string | null>(null);
	const focusAfter = useFocusAfterReload(state);
	const canWrite = hasScope("record:write") && hasScope("section:write");
	const data = state.data;

	async function run(work: () => Promise<void>) {
		setBusy(true);
		setError(null);
		setRefusal(null);
		try {
			await work();
		} catch (err) {
			if (err instanceof ApiError && err.code === "conflict" && deleting?.kind === "entry")
				setRefusal(t("aliasedConflict", { name: deleting.entry.name }));
			else setError(err);
		} finally {
			setBusy(false);
		}
	}

	function saved(said: string) {
		setOpen(null);
		announce(said);
		state.reload();
	}

	const move = (list: Section[], section: Section, by: -1 | 1) =>
		run(async () => {
			const from = list.indexOf(section);
			const order = [...list];
			order.splice(from, 1);
			order.splice(from + by, 0, section);
			for (const [position, s] of order.entries())
				if (s.ordering !== position) await sections.update(s.id, { ordering: position });
			focusAfter.current = `vault-${by < 0 ? "up" : "down"}-${section.id}`;
			announce(t("sectionMoved", { name: section.name, position: from + by + 1, count: list.length }));
			state.reload();
		});

	async function remove(target: NonNullable<Deleting>) {
		await run(async () => {
			if (target.kind === "entry") await records.remove(target.entry.id);
			else await sections.remove(target.section.id);
			announce(t(target.kind === "entry" ? "entryDeleted" : "sectionDeleted"));
			focusAfter.current = "heading";
			state.reload();
		});
		setDeleting(null);
	}

	const actions: EntryActions = {
		canWrite,
		onEdit: (entry) => setOpen({ kind: "entry", entry }),
		onReplace: (entry) => setOpen({ kind: "file", entry }),
		onDelete: (entry) => setDeleting({ kind: "entry", entry }),
		onDownload: (entry) =>
			void run(async () => {
				await downloadFile(entry);
				announce(t("downloadStarted", { name: entry.file?.name ?? entry.name }));
			}),
	};

	return (
		<Page
			title={t("nav")}
			actions={
				canWrite ? (
					<>
						<Button variant="primary" icon="plus" onClick={() => setOpen({ kind: "entry", entry: null })}>
							{t("newEntry")}
						</Button>
						<Button icon="upload" onClick={() => setOpen({ kind: "file", entry: null })}>
							{t("addFile")}
						</Button>
						<Button onClick={() => setOpen({ kind: "section", section: null })}>{t("newSection")}</Button>
					</>
				) : undefined
			}
		>
			<p class="intro">{t("intro")}</p>
			<ErrorAlert error={error} />
			{refusal ? (
				<div class="alert alert-error" role="alert">
					<p>{refusal}</p>
				</div>
			) : null}
			<LoadState state={state}>
				{({ all, sectionList }) => {
					if (all.length === 0 && sectionList.length === 0) {
						return (
							<EmptyState title={t("empty")}>
								<p>{t("emptyText")}</p>
							</EmptyState>
						);
					}
					return (
						<VaultList
							all={all}
							sectionList={sectionList}
							query={query}
							onQuery={setQuery}
							actions={actions}
							sectionActions={{
								onRename: (section) => setOpen({ kind: "section", section }),
								onMove: (section, by) => void move(sectionList, section, by),
								onDelete: (section) => setDeleting({ kind: "section", section }),
							}}
						/>
					);
				}}
			</LoadState>
			{data ? (
				<OpenDialog
					open={open}
					data={data}
					onClose={() => setOpen(null)}
					onSaved={saved}
					onUploaded={(said) => {
						announce(said);
						state.reload();
					}}
				/>
			) : null}
			<ConfirmDialog
				open={deleting !== null}
				title={t(deleting?.kind === "section" ? "deleteSectionTitle" : "deleteEntryTitle")}
				message={
					deleting?.kind === "section"
						? t("deleteSectionText", { name: deleting.section.name })
						: t("deleteEntryText", { name: deleting?.entry.name ?? "" })
				}
				confirmLabel={t("delete")}
				busy={busy}
				onConfirm={() => deleting && void remove(deleting)}
				onClose={() => setDeleting(null)}
			/>
		</Page>
	);
}
