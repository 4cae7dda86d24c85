// One share as every format reads it: the label, who shares it, its entries grouped by section in
// the share's order, each with its field (fields.ts) and date, and the share's limits. Built from
// what the shares feature answers (the resolve, or the same rows read without a view), so every
// format shows exactly what the API resolve would.
import crypto from "node:crypto";
import type { ServerClaim, Sharer } from "../server/service.ts";
import { sharerOf } from "../server/service.ts";
import type { PublicLinkRow, sharedRecord, sharedSections } from "../shares/service.ts";
import { isWatermarked } from "../shares/service.ts";
import type { TemplateItemType } from "../vault/templates/service.ts";
import { type DateValue, type Field, fieldOf, parseDate } from "./fields.ts";

type SharedRecord = ReturnType<typeof sharedRecord>;
type SharedSection = ReturnType<typeof sharedSections>[number];

/** What a read of the share holds: the resolve's answer, or the same read without a view. */
export interface Shared {
	label: string;
	sections: SharedSection[];
	records: SharedRecord[];
	viewCount: number;
	archiveToken?: string | undefined;
}

export interface Entry {
	id: string;
	key: string;
	name: string;
	/** The current value; null for a file. */
	value: string | null;
	file: SharedRecord["file"];
	/** Marked sensitive by the sharer: served, for the reader to reveal. */
	hidden: boolean;
	downloadToken?: string | undefined;
	version: number;
	/** Milliseconds. */
	updated: number;
	field: Field;
	date: DateValue | undefined;
}

export interface Group {
	/** Null for the entries the share names outside any section. */
	section: { key: string; name: string } | null;
	entries: Entry[];
}

export interface ShareModel {
	slug: string;
	label: string;
	sharer: Sharer;
	server: ServerClaim;
	/** Every entry in the share's order. */
	entries: Entry[];
	groups: Group[];
	expiresAt: number | null;
	maxViews: number | null;
	/** The view count after this read (before it, for a read that took none). */
	viewCount: number;
	watermarked: boolean;
	archiveToken?: string | undefined;
	/** What the representations are made of, hashed: equal digests, equal answers (ETag). */
	digest: string;
}

export function shareModel(
	link: PublicLinkRow,
	shared: Shared,
	types: Map<string, TemplateItemType>,
	server: ServerClaim,
	etagKey: Buffer,
): ShareModel {
	const entries: Entry[] = shared.records.map((r) => {
		const field = fieldOf(r.key, types.get(r.key));
		const date =
			r.value !== null && (field === "birthday" || field === "date" || field === "note")
				? parseDate(r.value)
				: undefined;
		return {
			id: r.id,
			key: r.key,
			name: r.name,
			value: r.value,
			file: r.file,
			hidden: r.hidden,
			downloadToken: r.downloadToken,
			version: r.version,
			updated: Date.parse(r.updated),
			field: date && field === "note" ? "date" : field,
			date,
		};
	});
	// The entries named outside any section first, then each section with its entries.
	const byId = new Map<string, Entry>();
	for (const e of entries) byId.set(e.id, e);
	const sectioned = new Set<string>();
	const groups: Group[] = [];
	for (const s of shared.sections) {
		const inside: Entry[] = [];
		for (const id of s.records) {
			const e = byId.get(id);
			if (e) inside.push(e);
			sectioned.add(id);
		}
		if (inside.length > 0) groups.push({ section: { key: s.key, name: s.name }, entries: inside });
	}
	const loose = entries.filter((e) => !sectioned.has(e.id));
	if (loose.length > 0) groups.unshift({ section: null, entries: loose });
	const { sharer_name: name, identity, identity_fingerprint, identity_name } = link;
	const sharer = sharerOf({ name, identity, identity_fingerprint, identity_name }, server);
	return {
		slug: link.slug,
		label: shared.label,
		sharer,
		server,
		entries,
		groups,
		expiresAt: link.expires_at,
		maxViews: link.max_views,
		viewCount: shared.viewCount,
		watermarked: isWatermarked(link),
		archiveToken: shared.archiveToken,
		digest: digestOf(link, shared, entries, sharer, etagKey),
	};
}

/**
 * Everything a representation shows but the view count and the one-time tokens: the granted
 * values and names, sections, each entry's field (so the template types that decide it), the
 * share's label and limits, and who shares it. A change to any of them is a new ETag. Keyed
 * with a secret of the server: a tag shown without a view (the addressbook's PROPFIND) cannot
 * be used to test guesses of a value offline.
 */
function digestOf(
	link: PublicLinkRow,
	shared: Shared,
	entries: Entry[],
	sharer: Sharer,
	key: Buffer,
): string {
	// Fields joined by NUL, which no stored text holds (src/http/text-guard.ts).
	const id = sharer.identity;
	let text = [
		link.id,
		shared.label,
		link.expires_at ?? "-",
		link.max_views ?? "-",
		isWatermarked(link),
		sharer.name,
		id ? `${id.name}\0${id.fingerprint}` : "-",
		shared.sections.length,
	].join("\0");
	for (const s of shared.sections) text += `\0${s.id}\0${s.key}\0${s.name}\0${s.records.join(",")}`;
	for (const e of entries) {
		const file = e.file ? `${e.file.name}\0${e.file.type}\0${e.file.size}\0${e.file.sha256}` : "-";
		text += `\0${e.id}\0${e.key}\0${e.name}\0${e.value ?? "-"}\0${e.hidden}\0${e.version}\0${e.updated}\0${e.field}\0${file}`;
	}
	// The secret first (a keyed hash: the tag is only ever compared, so length extension is no concern).
	return crypto.createHash("sha256").update(key).update(text).digest("base64url").slice(0, 27);
}
