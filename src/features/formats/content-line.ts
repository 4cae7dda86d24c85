// Content lines as vCard 4.0 (RFC 6350 §3.2-3.4) and iCalendar (RFC 5545 §3.1, §3.3.11) write
// them: text escaped so a value stays one property whatever it holds (backslash, comma,
// semicolon, line breaks), control characters dropped, lines folded at 75 octets without
// splitting a character, CRLF line ends. Both formats share these rules.
//
// Written here rather than with ical.js (checked: it leaves a bare CR of a value unescaped and
// folds continuation lines to 76 octets); ical.js is the independent parser in the tests.

const FOLD_OCTETS = 75;

/** Line breaks of any kind become LF; other control characters (but TAB) are not text in either format. */
function plain(value: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
	return value.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
}

/**
 * A TEXT value: `\\`, `\,`, `\n`, and `\;` where the format reads it: always in iCalendar and in
 * a component of a vCard structured value, never in a plain vCard text value (RFC 6350's
 * TEXT-CHAR has no `\;`, so a reader would keep the backslash).
 */
export function escapeText(value: string, semicolons = true): string {
	const escaped = plain(value).replaceAll("\\", "\\\\").replaceAll(",", "\\,").replaceAll("\n", "\\n");
	return semicolons ? escaped.replaceAll(";", "\\;") : escaped;
}

/** A structured value (vCard N, ADR): each component escaped, joined by semicolons. */
export function structured(components: readonly string[]): string {
	return components.map((c) => escapeText(c)).join(";");
}

/**
 * One content line, folded: no line longer than 75 octets, a continuation line starting with one
 * space (which counts), never splitting a UTF-8 sequence. `value` is already in its written form.
 */
export function contentLine(name: string, value: string, params: readonly string[] = []): string {
	const line = `${[name, ...params].join(";")}:${value}`;
	if (Buffer.byteLength(line) <= FOLD_OCTETS) return line;
	const out: string[] = [];
	let current = "";
	let octets = 0;
	for (const ch of line) {
		const size = Buffer.byteLength(ch);
		if (octets + size > FOLD_OCTETS) {
			out.push(current);
			current = " ";
			octets = 1;
		}
		current += ch;
		octets += size;
	}
	out.push(current);
	return out.join("\r\n");
}

/** Lines joined with CRLF, ending in CRLF (both RFCs end every line so). */
export function document(lines: readonly string[]): string {
	return `${lines.join("\r\n")}\r\n`;
}
