// Features own their tables (docs/architecture.md "Features and their tables"): every statement
// that writes a table sits in the feature that owns it; another feature that needs the write calls
// the owner's service. Read with TypeScript's own parser, so comments and prose never count: a
// Kysely `insertInto`/`updateTable`/`deleteFrom` of a named table, and any `sql` template that
// inserts, updates or deletes.
// Runs once, not per database: it reads the source with TypeScript's parser, with no database.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import ts from "typescript";
import type { Database } from "../../src/db/schema.ts";
import { OWNER } from "./table-owners.ts";

const FEATURES = path.resolve("src/features");
const WRITES = new Set(["insertInto", "updateTable", "deleteFrom", "replaceInto", "mergeInto"]);
const RAW_WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+"?([a-z_]+)"?\s/gi;

interface Write {
	feature: string;
	file: string;
	line: number;
	table: string;
}

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return entry.name.endsWith(".ts") ? [full] : [];
	});
}

function writesIn(file: string): Write[] {
	const feature = path.relative(FEATURES, file).split(path.sep)[0] ?? "";
	const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
	const out: Write[] = [];
	const at = (node: ts.Node, table: string) =>
		out.push({
			feature,
			file: path.relative(process.cwd(), file),
			line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
			table,
		});
	const visit = (node: ts.Node): void => {
		if (
			ts.isCallExpression(node) &&
			ts.isPropertyAccessExpression(node.expression) &&
			WRITES.has(node.expression.name.text)
		) {
			const [first] = node.arguments;
			// `insertInto("links as l")` is an alias: the table is the first word.
			if (first && ts.isStringLiteralLike(first)) at(node, first.text.split(/\s/)[0] ?? "");
		}
		if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === "sql") {
			for (const m of node.template.getText(source).matchAll(RAW_WRITE)) {
				if (m[1] && m[1] in OWNER) at(node, m[1]);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return out;
}

const writes = sourceFiles(FEATURES).flatMap(writesIn);

test("the scan sees the writes it is meant to judge (a scan that finds nothing proves nothing)", () => {
	// One write of each kind the house uses, in the feature that owns it.
	const seen = (table: string, feature: string) =>
		writes.some((w) => w.table === table && w.feature === feature);
	assert.ok(seen("links", "shares"), "no write of links found in shares");
	assert.ok(seen("outbox", "callbacks"), "no write of the outbox found in callbacks");
	assert.ok(seen("records", "vault"), "no write of records found in vault");
	assert.ok(writes.length > 40, `only ${writes.length} writes found`);
});

test("every write names a table of the schema", () => {
	const unknown = writes.filter((w) => !(w.table in OWNER));
	assert.deepEqual(
		unknown.map((w) => `${w.file}:${w.line} ${w.table}`),
		[],
		"tables missing from OWNER (add the new table with its feature)",
	);
});

test("no feature writes another feature's table: it calls the owner's service", () => {
	const foreign = writes.filter((w) => w.table in OWNER && OWNER[w.table as keyof Database] !== w.feature);
	assert.deepEqual(
		foreign.map((w) => `${w.file}:${w.line} writes ${w.table}, owned by ${OWNER[w.table as keyof Database]}`),
		[],
	);
});
