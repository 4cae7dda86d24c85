// Entries from CSV (RFC 4180, parsed by csv-parse as it streams from the blob store): a header row
// naming the columns, in any order and case: `key` (required), `value`, `name` (default: the key),
// `section` (a section's key or name; an unknown one becomes a new section), `hidden` (true/false,
// yes/no, 1/0, empty). A share's own CSV (section, key, name, value) reads back as it is. Comma or
// semicolon, decided by the header line. Refusals name the line.
import type { Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import type { ContentEntry, ContentSection, Refusal, VaultContents } from "../vault/service.ts";
import { MAX_CSV_RECORD, MAX_ENTRIES, MAX_REFUSALS, MAX_SECTIONS } from "./limits.ts";
import { keyFrom, uniqueKey } from "./names.ts";

const COLUMNS = new Set(["key", "value", "name", "section", "hidden"]);
const TRUE = new Set(["true", "yes", "1", "ja", "x"]);
const FALSE = new Set(["false", "no", "0", "nein", ""]);

/** A value a spreadsheet-safe CSV led with an apostrophe (formats/csv.ts) reads back without it. */
const unguard = (v: string) => (/^'[=@\t\r+-]/.test(v) ? v.slice(1) : v);

export async function readCsv(
	source: Readable,
	firstLine: string,
	existing: ReadonlyMap<string, { name: string }>,
): Promise<{ contents: VaultContents; refusals: Refusal[] }> {
	const delimiter = !firstLine.includes(",") && firstLine.includes(";") ? ";" : ",";
	const parser = source.pipe(
		parse({
			bom: true,
			delimiter,
			info: true,
			skip_empty_lines: true,
			max_record_size: MAX_CSV_RECORD,
			relax_column_count: false,
		}),
	);
	source.on("error", (err) => parser.destroy(err));
	const refusals: Refusal[] = [];
	const entries: ContentEntry[] = [];
	const sections: ContentSection[] = [];
	const taken = new Set(existing.keys());
	// A section named in the file: by key, by name of a section the workspace holds, else a new one.
	const byName = new Map([...existing].map(([key, s]) => [s.name.toLowerCase(), key]));
	const sectionFor = (text: string, at: string): string | null => {
		const wanted = text.trim();
		if (wanted === "") return null;
		if (existing.has(wanted)) return wanted;
		const known = byName.get(wanted.toLowerCase());
		if (known) return known;
		if (sections.length >= MAX_SECTIONS) {
			refusals.push({ at, message: `at most ${MAX_SECTIONS} new sections are made at once` });
			return null;
		}
		const key = uniqueKey(keyFrom(wanted, "section"), taken);
		sections.push({ at, key, name: wanted.slice(0, 200), ordering: sections.length });
		byName.set(wanted.toLowerCase(), key);
		return key;
	};
	let header: string[] | undefined;
	try {
		for await (const { record, info } of parser as AsyncIterable<{
			record: string[];
			info: { lines: number };
		}>) {
			const at = `line ${info.lines}`;
			if (!header) {
				header = record.map((c) => c.trim().toLowerCase());
				const unknown = header.filter((c) => !COLUMNS.has(c));
				if (unknown.length > 0)
					refusals.push({
						at,
						message: `unknown column ${JSON.stringify(unknown[0])}; the columns are key, value, name, section, hidden`,
					});
				if (!header.includes("key")) refusals.push({ at, message: "the header has no key column" });
				if (new Set(header).size !== header.length) refusals.push({ at, message: "a column is named twice" });
				if (refusals.length > 0) break;
				continue;
			}
			if (entries.length >= MAX_ENTRIES) {
				refusals.push({ at, message: `at most ${MAX_ENTRIES} entries are read at once` });
				break;
			}
			const row = Object.fromEntries(header.map((c, i) => [c, record[i] ?? ""]));
			const hidden = (row.hidden ?? "").trim().toLowerCase();
			if (!TRUE.has(hidden) && !FALSE.has(hidden))
				refusals.push({ at, message: `hidden ${JSON.stringify(row.hidden)} is neither true nor false` });
			const key = (row.key ?? "").trim();
			entries.push({
				at,
				ref: String(info.lines),
				key,
				name: (row.name ?? "").trim() || key,
				section: sectionFor(row.section ?? "", at),
				hidden: TRUE.has(hidden),
				alias: null,
				value: unguard(row.value ?? ""),
				file: null,
			});
			if (refusals.length >= MAX_REFUSALS) break;
		}
	} catch (err) {
		if (!(err instanceof CsvError)) throw err;
		const lines = (err as { lines?: number }).lines;
		refusals.push({ at: `line ${lines ?? "?"}`, message: err.message.replace(/^Invalid [^:]*: /, "") });
	} finally {
		source.destroy();
	}
	if (!header && refusals.length === 0)
		refusals.push({ at: "line 1", message: "the file is empty: a header row comes first" });
	return { contents: { sections, entries, templates: [] }, refusals };
}
