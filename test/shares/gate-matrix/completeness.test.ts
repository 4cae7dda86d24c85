// The gate-by-reader matrix is complete: every pair of SHARE_GATES × SHARE_READERS has an expected
// answer, and every reader has a file that runs its cells. A gate added to src/features/shares/
// gates.ts fails this test naming each reader the table does not yet say it honours it.
// Runs once, not per database: it reads the matrix's tables, with no database.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
	expected,
	missingPairs,
	missingWrongPassword,
	READER_FILES,
	SHARE_GATES,
	SHARE_READERS,
	wrongPassword,
} from "./expected.ts";

test("every gate × reader pair has an expected answer", () => {
	const missing = missingPairs();
	const byReader = new Map<string, string[]>();
	for (const { gate, reader } of missing) byReader.set(reader, [...(byReader.get(reader) ?? []), gate]);
	const listed = [...byReader].map(([reader, gates]) => `${reader}: ${gates.join(", ")}`).join("; ");
	assert.equal(missing.length, 0, `readers without an answer for a gate (reader: gates): ${listed}`);
});

// The `password` cells present a wrong password too (expected.ts, `wrongPassword`): a reader added
// to gates.ts must say what it answers to one, or why it has no place for one.
test("every reader has an answer for a wrong password", () => {
	const missing = missingWrongPassword();
	assert.deepEqual(missing, [], `readers without an answer for a wrong password: ${missing.join(", ")}`);
});

test("the table names only the gates and readers of gates.ts", () => {
	const gates: readonly string[] = SHARE_GATES;
	const readers: readonly string[] = SHARE_READERS;
	assert.deepEqual(
		Object.keys(expected).filter((g) => !gates.includes(g)),
		[],
		"gates the table has that gates.ts does not",
	);
	for (const [gate, row] of Object.entries(expected)) {
		assert.deepEqual(
			Object.keys(row).filter((r) => !readers.includes(r)),
			[],
			`readers of row ${gate} that gates.ts does not name`,
		);
	}
	assert.deepEqual(
		Object.keys(wrongPassword).filter((r) => !readers.includes(r)),
		[],
		"readers of the wrong-password row that gates.ts does not name",
	);
});

test("every reader's cells run in a file of this folder", () => {
	const without = SHARE_READERS.filter((r) => READER_FILES[r] === undefined);
	assert.deepEqual(without, [], `readers no file drives: ${without.join(", ")}`);
});
