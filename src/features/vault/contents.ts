// A vault's contents read out whole (an export) and written in whole (an import), with the same
// rules the records, sections and templates collections apply one at a time: vault keys, names,
// value sizes, aliases one level deep onto a value entry, file entries without a value, template
// items with unique keys. `checkContents` names every entry that breaks one by where it came from
// (`at`, given by the reader of the source); `insertContents` writes everything in the caller's
// transaction, so an import is all or nothing.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { storableText } from "../../http/text-guard.ts";
import { newId } from "../../lib/crypto.ts";
import type { StoredUpload } from "../collections/registry.ts";
import { newRecordRow } from "./records/rows.ts";
import * as records from "./records/store.ts";
import * as sections from "./sections/store.ts";
import {
	checkItems,
	TEMPLATE_ITEM_TYPES,
	TEMPLATE_MAX_ITEMS,
	type TemplateItem,
} from "./templates/service.ts";
import * as templates from "./templates/store.ts";

type Db = Kysely<Database> | Transaction<Database>;

const KEY = /^[a-z0-9_-]{1,64}$/;
export const VALUE_MAX = 100_000;
export const NAME_MAX = 200;
export const TEMPLATE_NAME_MAX = 80;

/** A section as a source names it: entries refer to it by `key`. */
export interface ContentSection {
	at: string;
	key: string;
	name: string;
	ordering: number;
}

/** An entry as a source names it; `ref` is its name in the source (an alias points at a `ref`). */
export interface ContentEntry {
	at: string;
	ref: string;
	key: string;
	name: string;
	/** A section key: one of `sections`, or one the workspace holds already. */
	section: string | null;
	hidden: boolean;
	/** The `ref` of another entry of the same source. */
	alias: string | null;
	value: string | null;
	/** A file entry: its bytes, once they are in the blob store (absent in a preview). */
	file: { name: string; size: number; sha256: string; upload?: StoredUpload } | null;
}

export interface ContentTemplate {
	at: string;
	name: string;
	items: TemplateItem[];
}

export interface VaultContents {
	sections: ContentSection[];
	entries: ContentEntry[];
	templates: ContentTemplate[];
}

export interface Refusal {
	at: string;
	message: string;
}

const text = (s: string) => storableText(s);

/** Every rule an entry, section or template of `contents` breaks, by where it came from; [] when none. */
export function checkContents(contents: VaultContents, existingSections: ReadonlySet<string>): Refusal[] {
	const out: Refusal[] = [];
	const refuse = (at: string, message: string) => out.push({ at, message });
	const sectionKeys = new Set(existingSections);
	const seenSections = new Set<string>();
	for (const s of contents.sections) {
		if (!KEY.test(s.key))
			refuse(s.at, `section key ${JSON.stringify(s.key)} is not [a-z0-9_-], 1 to 64 characters`);
		else if (seenSections.has(s.key)) refuse(s.at, `section key ${JSON.stringify(s.key)} appears twice`);
		if (s.name.trim() === "" || s.name.length > NAME_MAX || !text(s.name))
			refuse(s.at, `section name must be 1 to ${NAME_MAX} characters`);
		if (!Number.isInteger(s.ordering) || Math.abs(s.ordering) > 1_000_000)
			refuse(s.at, "section ordering must be an integer from -1000000 to 1000000");
		seenSections.add(s.key);
		sectionKeys.add(s.key);
	}
	const byRef = new Map<string, ContentEntry>();
	for (const e of contents.entries) {
		if (byRef.has(e.ref)) refuse(e.at, `entry ${JSON.stringify(e.ref)} appears twice`);
		byRef.set(e.ref, e);
	}
	for (const e of contents.entries) {
		if (!KEY.test(e.key)) refuse(e.at, `key ${JSON.stringify(e.key)} is not [a-z0-9_-], 1 to 64 characters`);
		if (e.name.trim() === "" || e.name.length > NAME_MAX || !text(e.name))
			refuse(e.at, `name must be 1 to ${NAME_MAX} characters`);
		if (e.section !== null && !sectionKeys.has(e.section))
			refuse(e.at, `section ${JSON.stringify(e.section)} is neither in the import nor in this workspace`);
		if (e.file) {
			if (e.value !== null) refuse(e.at, "a file entry takes no value");
			if (e.alias !== null) refuse(e.at, "a file entry takes no alias");
			continue;
		}
		if (e.value !== null && (e.value.length > VALUE_MAX || !text(e.value)))
			refuse(e.at, `value must be at most ${VALUE_MAX} characters of storable text`);
		if (e.alias === null) continue;
		if (e.value !== null && e.value !== "") refuse(e.at, "an alias takes no value: it reads its target's");
		const target = byRef.get(e.alias);
		if (!target) refuse(e.at, `alias ${JSON.stringify(e.alias)} names no entry of the import`);
		else if (target === e) refuse(e.at, "an alias cannot point at itself");
		else if (target.file) refuse(e.at, "an alias must point at a value entry");
		else if (target.alias !== null)
			refuse(e.at, "an alias must point at an entry that is not itself an alias");
	}
	for (const t of contents.templates) {
		if (t.name.trim() === "" || t.name.length > TEMPLATE_NAME_MAX || !text(t.name))
			refuse(t.at, `template name must be 1 to ${TEMPLATE_NAME_MAX} characters`);
		if (t.items.length > TEMPLATE_MAX_ITEMS)
			refuse(t.at, `a template has at most ${TEMPLATE_MAX_ITEMS} items`);
		const keys = new Set<string>();
		t.items.forEach((item, i) => {
			const where = `${t.at}/items/${i}`;
			if (!KEY.test(item.key))
				refuse(where, `key ${JSON.stringify(item.key)} is not [a-z0-9_-], 1 to 64 characters`);
			else if (keys.has(item.key)) refuse(where, `repeats the key ${JSON.stringify(item.key)}`);
			keys.add(item.key);
			if (item.label.trim() === "" || item.label.length > NAME_MAX || !text(item.label))
				refuse(where, `label must be 1 to ${NAME_MAX} characters`);
			if (!(TEMPLATE_ITEM_TYPES as readonly string[]).includes(item.type))
				refuse(where, `type ${JSON.stringify(item.type)} is not one of ${TEMPLATE_ITEM_TYPES.join(", ")}`);
			if (item.description !== undefined && (item.description.length > 1000 || !text(item.description)))
				refuse(where, "description must be at most 1000 characters");
		});
	}
	return out;
}

/** The section keys a workspace holds (an import puts entries into them rather than making new ones). */
export async function sectionKeys(
	db: Db,
	workspaceId: string,
): Promise<Map<string, { id: string; name: string }>> {
	const rows = await sections.selectSections(db, workspaceId).execute();
	return new Map(rows.map((r) => [r.key, { id: r.id, name: r.name }]));
}

/**
 * Writes checked `contents` into `workspaceId` inside `trx`: new sections (a key the workspace holds
 * is reused), entries with fresh ids (aliases follow their targets), templates. Every file must carry
 * its `upload`. A section made by a concurrent request between the check and here fails the unique
 * key and rolls the whole import back.
 */
export async function insertContents(
	trx: Transaction<Database>,
	workspaceId: string,
	contents: VaultContents,
	now: number,
): Promise<{ sections: number; entries: number; templates: number }> {
	const existing = await sectionKeys(trx, workspaceId);
	const sectionIds = new Map([...existing].map(([key, s]) => [key, s.id]));
	let madeSections = 0;
	for (const s of contents.sections) {
		if (sectionIds.has(s.key)) continue;
		const id = newId();
		await sections.insertSection(trx, {
			id,
			workspace: workspaceId,
			key: s.key,
			name: s.name.trim(),
			ordering: s.ordering,
			created: now,
			updated: now,
		});
		sectionIds.set(s.key, id);
		madeSections++;
	}
	// Targets first: an alias's row refers to its target's id (a foreign key).
	const ordered = [
		...contents.entries.filter((e) => e.alias === null),
		...contents.entries.filter((e) => e.alias !== null),
	];
	const ids = new Map<string, string>();
	for (const e of ordered) {
		const upload = e.file?.upload;
		if (e.file && !upload) throw new Error(`file entry ${e.at} has no stored bytes`);
		const alias = e.alias === null ? null : (ids.get(e.alias) ?? null);
		const row = newRecordRow(
			{
				workspace: workspaceId,
				key: e.key,
				name: e.name.trim(),
				kind: upload ? "file" : "value",
				value: upload ? null : alias !== null ? "" : (e.value ?? ""),
				section: e.section === null ? null : (sectionIds.get(e.section) ?? null),
				hidden: e.hidden ? 1 : 0,
				alias,
				file_key: upload?.key ?? null,
				file_name: upload ? (e.file?.name ?? upload.name) : null,
				file_type: upload?.type ?? null,
				file_size: upload?.size ?? null,
				file_sha256: upload?.sha256 ?? null,
			},
			now,
		);
		await records.insertRecord(trx, row);
		ids.set(e.ref, row.id);
	}
	for (const t of contents.templates) {
		await templates.insertTemplate(trx, {
			id: newId(),
			workspace: workspaceId,
			name: t.name.trim(),
			items: checkItems(t.items),
			created: now,
			updated: now,
		});
	}
	return { sections: madeSections, entries: ordered.length, templates: contents.templates.length };
}

/** What an export reads: the workspace's sections (in order), records, and templates. */
export async function readContents(db: Db, workspaceId: string) {
	const [sectionRows, recordRows, templateRows] = await Promise.all([
		sections.selectSections(db, workspaceId).orderBy("ordering").orderBy("created").orderBy("id").execute(),
		records.selectRecords(db, workspaceId).orderBy("records.created").orderBy("records.id").execute(),
		templates.selectTemplates(db, workspaceId).orderBy("created").orderBy("id").execute(),
	]);
	return {
		sections: sectionRows,
		records: recordRows,
		templates: templateRows.map((t) => ({ ...t, items: JSON.parse(t.items) as TemplateItem[] })),
	};
}
