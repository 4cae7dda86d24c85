// The stamp line as it is drawn: always one line, and for PDF only characters the standard fonts
// can encode. Knows nothing of the app.

/** Longest line drawn; callers validate their own limits, this only bounds the work. */
export const MAX_LINE_CHARS = 512;

/**
 * One line: control characters and line or paragraph separators become spaces, runs of white
 * space collapse to one, the ends are trimmed, and the result is cut at MAX_LINE_CHARS code points.
 */
export function oneLine(line: string): string {
	const flat = line
		.replace(/[\p{Cc}\u2028\u2029]/gu, " ")
		.replace(/\s+/gu, " ")
		.trim();
	const chars = [...flat];
	return chars.length > MAX_LINE_CHARS ? chars.slice(0, MAX_LINE_CHARS).join("") : flat;
}

/** Latin letters with a stroke, which Unicode does not decompose. */
const STROKED: Record<string, string> = {
	Ł: "L",
	ł: "l",
	Đ: "D",
	đ: "d",
	Ħ: "H",
	ħ: "h",
	Ŧ: "T",
	ŧ: "t",
	ı: "i",
};

/**
 * The line in a font's character set. The standard PDF fonts encode WinAnsi (Windows-1252) only:
 * a character outside it becomes its base letter when that fits ("ő" becomes "o", "Ł" "L", "ﬁ"
 * "fi"), else "?" (Greek, Cyrillic, CJK, emoji). Every character the set holds is kept as it is.
 */
export function inCharset(line: string, encodable: ReadonlySet<number>): string {
	const fits = (s: string) => [...s].every((ch) => encodable.has(ch.codePointAt(0) ?? -1));
	let out = "";
	for (const ch of line) {
		if (fits(ch)) {
			out += ch;
			continue;
		}
		const plain = STROKED[ch] ?? ch.normalize("NFKD").replace(/\p{M}/gu, "");
		out += plain !== "" && fits(plain) ? plain : "?";
	}
	return out;
}
