// The vault of the active workspace: entries grouped by section (sections in their order, then the
// entries without one), a search by key or name, and the dialogs that add, change and delete
// entries and sections. Everything goes through the `records` and `sections` collections and the
// file endpoints of docs/api.md "Vault".
import { useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	EmptyState,
	ErrorAlert,
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
import { SectionGroup } from "./section-group.tsx";
import { records, type Section, sections, type VaultRecord } from "./types.ts";

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

function matches(entry: VaultRecord, query: string): boolean {
	const q = query.trim().toLowerCase();
	return !q || [entry.key, entry.name, entry.file?.name ?? ""].some((s) => s.toLowerCase().includes(q));
}

export default function VaultScreen() {
	const t = useT(messages);
	const searchId = useId();
	const state = useLoad(loadVault);
	const [query, setQuery] = useState("");
	const [open, setOpen] = useState<Open>(null);
	const [deleting, setDeleting] = useState<Deleting>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [refusal, setRefusal] = useState<string | null>(null);
	const focusAfter = useRef<string | null>(null);
	const canWrite = hasScope("record:write") && hasScope("section:write");
	const data = state.data;

	// Once the list is reloaded: after a move the section's move button keeps the focus (or its twin,
	// when it became disabled); after a delete, whose button is gone, the heading takes it. A layout
	// effect: the focus moves in the same frame as the list, never after the new order is on screen.
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
						<Button variant="primary" onClick={() => setOpen({ kind: "entry", entry: null })}>
							{t("newEntry")}
						</Button>
						<Button onClick={() => setOpen({ kind: "file", entry: null })}>{t("addFile")}</Button>
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
					const byId = new Map(all.map((r) => [r.id, r]));
					const shown = all.filter((r) => matches(r, query));
					const known = new Set(sectionList.map((s) => s.id));
					const groups = [
						...sectionList.map((s) => ({ section: s, entries: shown.filter((r) => r.section === s.id) })),
						{
							section: null,
							entries: shown.filter((r) => r.section === null || !known.has(r.section)),
						},
					].filter((g) => (query ? g.entries.length > 0 : g.section !== null || g.entries.length > 0));
					return (
						<>
							<div class="vault-search field">
								<label for={searchId}>{t("search")}</label>
								<input
									id={searchId}
									type="search"
									value={query}
									autocomplete="off"
									onInput={(e) => setQuery(e.currentTarget.value)}
								/>
							</div>
							<p class="meta vault-matches" role="status">
								{query.trim() ? t("matches", { count: shown.length }) : ""}
							</p>
							{groups.map((g) => (
								<SectionGroup
									key={g.section?.id ?? "none"}
									section={g.section}
									entries={g.entries}
									byId={byId}
									first={g.section === null || sectionList.indexOf(g.section) === 0}
									last={g.section === null || sectionList.indexOf(g.section) === sectionList.length - 1}
									actions={actions}
									sectionActions={{
										onRename: (section) => setOpen({ kind: "section", section }),
										onMove: (section, by) => void move(sectionList, section, by),
										onDelete: (section) => setDeleting({ kind: "section", section }),
									}}
								/>
							))}
						</>
					);
				}}
			</LoadState>
			{data ? (
				<>
					{open?.kind === "entry" ? (
						<EntryDialog
							entry={open.entry}
							all={data.all}
							sectionList={data.sectionList}
							onClose={() => setOpen(null)}
							onSaved={saved}
						/>
					) : null}
					{open?.kind === "file" ? (
						<FileDialog
							entry={open.entry}
							sectionList={data.sectionList}
							onClose={() => setOpen(null)}
							onUploaded={(said) => {
								announce(said);
								state.reload();
							}}
						/>
					) : null}
					{open?.kind === "section" ? (
						<SectionDialog
							section={open.section}
							sectionList={data.sectionList}
							onClose={() => setOpen(null)}
							onSaved={saved}
						/>
					) : null}
				</>
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
