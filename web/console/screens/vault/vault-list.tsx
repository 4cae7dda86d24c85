// The vault's entries as the screen shows them: a search by key, name or file name, then one group
// per section in its order and one for the entries without a section (or whose section is gone).
import { useId } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import type { EntryActions } from "./entries-table.tsx";
import { messages } from "./messages.ts";
import { type SectionActions, SectionGroup } from "./section-group.tsx";
import type { Section, VaultRecord } from "./types.ts";

function matches(entry: VaultRecord, query: string): boolean {
	const q = query.trim().toLowerCase();
	return !q || [entry.key, entry.name, entry.file?.name ?? ""].some((s) => s.toLowerCase().includes(q));
}

export function VaultList({
	all,
	sectionList,
	query,
	onQuery,
	actions,
	sectionActions,
}: {
	all: VaultRecord[];
	sectionList: Section[];
	query: string;
	onQuery: (query: string) => void;
	actions: EntryActions;
	sectionActions: SectionActions;
}) {
	const t = useT(messages);
	const searchId = useId();
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
					onInput={(e) => onQuery(e.currentTarget.value)}
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
					sectionActions={sectionActions}
				/>
			))}
		</>
	);
}
