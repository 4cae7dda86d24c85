// The share as CSV (RFC 4180, written by csv-stringify): a header row, then one row per entry
// with its section, key, name and value; CRLF line ends, fields quoted when they hold a comma,
// quote or line break, quotes doubled. A UTF-8 byte order mark leads so spreadsheet programs
// read the text as UTF-8 (docs/api.md "Share page and formats"). A value a spreadsheet would run
// as a formula is led by an apostrophe; numbers and phone numbers stay as they are.
import { stringify } from "csv-stringify/sync";
import { inertCell } from "../../lib/csv-cell.ts";
import type { ShareModel } from "./model.ts";

export function renderCsv(model: ShareModel): string {
	const rows: string[][] = [["section", "key", "name", "value"]];
	for (const group of model.groups) {
		for (const e of group.entries) {
			const value = e.value ?? e.file?.name ?? "";
			rows.push([group.section?.name ?? "", e.key, e.name, value].map(inertCell));
		}
	}
	// Every line break inside a field is quoted (not only CRLF); a semicolon too, for the programs
	// that split on it.
	return stringify(rows, {
		bom: true,
		record_delimiter: "windows",
		quote_record_delimiter: true,
		quoted_match: ";",
	});
}
