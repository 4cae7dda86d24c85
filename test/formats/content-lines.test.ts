// The vCard and iCalendar writer against the RFCs' own examples (RFC 6350 §6.2.2, §6.3.1,
// §6.6.4; RFC 5545 §3.3.11), folding at 75 octets without splitting a character, and the dates
// an entry may hold (fields.ts).
// Runs once, not per database: the vCard and iCalendar writer on its own, with no app or database.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { contentLine, escapeText, structured } from "../../src/features/formats/content-line.ts";
import { fieldOf, parseDate } from "../../src/features/formats/fields.ts";

const unfold = (text: string) => text.replaceAll("\r\n ", "");

describe("content lines", () => {
	test("RFC 6350's examples: N, ADR and ORG as structured values", () => {
		assert.equal(
			contentLine("N", structured(["Public", "John", "Quinlan", "Mr.", "Esq."])),
			"N:Public;John;Quinlan;Mr.;Esq.",
		);
		assert.equal(
			contentLine("ADR", structured(["", "", "123 Main Street", "Any Town", "CA", "91921-1234", "U.S.A."])),
			"ADR:;;123 Main Street;Any Town;CA;91921-1234;U.S.A.",
		);
		assert.equal(
			contentLine("ORG", structured(["ABC, Inc.", "North American Division", "Marketing"])),
			"ORG:ABC\\, Inc.;North American Division;Marketing",
		);
	});

	test("RFC 5545's DESCRIPTION example: line breaks as \\n", () => {
		assert.equal(
			contentLine(
				"DESCRIPTION",
				escapeText("Project XYZ Final Review\nConference Room - 3B\nCome Prepared."),
			),
			"DESCRIPTION:Project XYZ Final Review\\nConference Room - 3B\\nCome Prepared.",
		);
	});

	test("backslash, comma, semicolon; CR and CRLF as \\n; other control characters dropped", () => {
		assert.equal(
			escapeText("a\\b,c;d\r\ne\rf\ng\u0000\u0007\u001b\th\u007f"),
			"a\\\\b\\,c\\;d\\ne\\nf\\ng\th",
		);
		assert.equal(escapeText("a;b", false), "a;b", "a vCard text value keeps its semicolons");
	});

	test("folds at 75 octets, a continuation's space counted, never inside a character; unfolds to the line", () => {
		for (const value of [
			"x".repeat(500),
			"ü".repeat(200),
			"漢".repeat(150),
			"😀".repeat(100),
			`a${"😀".repeat(60)}`,
		]) {
			const folded = contentLine("NOTE", escapeText(value));
			const lines = folded.split("\r\n");
			assert.ok(lines.length > 1);
			for (const [i, line] of lines.entries()) {
				assert.ok(Buffer.byteLength(line) <= 75, `${Buffer.byteLength(line)} octets`);
				if (i > 0) assert.ok(line.startsWith(" "));
				assert.ok(!line.includes("\ufffd") && line.isWellFormed(), "no split character");
			}
			assert.equal(unfold(folded), `NOTE:${value}`);
		}
		assert.equal(contentLine("NOTE", "x".repeat(70)), `NOTE:${"x".repeat(70)}`, "75 octets: one line");
	});
});

describe("what an entry holds", () => {
	test("dates and date-times; impossible ones are not dates", () => {
		assert.deepEqual(parseDate("2026-12-01"), { kind: "date", year: 2026, month: 12, day: 1 });
		assert.equal(parseDate("2026-02-30"), undefined);
		assert.equal(parseDate("2026-13-01"), undefined);
		assert.equal(parseDate("1 May 1990"), undefined);
		assert.deepEqual(parseDate("2026-12-24T18:30:00+01:00"), {
			kind: "moment",
			iso: "2026-12-24T17:30:00.000Z",
			utc: true,
			parts: [2026, 12, 24, 17, 30, 0],
		});
		assert.deepEqual(parseDate("2026-12-31T23:30Z"), {
			kind: "moment",
			iso: "2026-12-31T23:30:00.000Z",
			utc: true,
			parts: [2026, 12, 31, 23, 30, 0],
		});
		const floating = parseDate("2026-12-01T10:00");
		assert.equal(floating?.kind === "moment" && floating.utc, false);
		assert.equal(parseDate("2026-12-01T24:00"), undefined);
	});

	test("keys and template types", () => {
		assert.equal(fieldOf("email", undefined), "email");
		assert.equal(fieldOf("work-email", undefined), "email");
		assert.equal(fieldOf("phone_mobile", undefined), "phone");
		assert.equal(fieldOf("Date_Of_Birth", undefined), "birthday");
		assert.equal(fieldOf("dob", "date"), "birthday");
		assert.equal(fieldOf("contact_line", "phone"), "phone");
		assert.equal(fieldOf("name", "email"), "email", "a template's type wins");
		assert.equal(fieldOf("iban", "text"), "note");
	});
});
