// Regenerates the tables that are derived from code: the README's configuration table, the
// error-code, permission and collection tables of docs/api.md, and the table owners of
// docs/architecture.md (from the ownership test's list). `--check` fails when a file has drifted.
import fs from "node:fs";
import { collections } from "../src/app.ts";
import { options } from "../src/config.ts";
import { collectionTables } from "../src/features/collections/docs.ts";
import { errorCodes } from "../src/http/errors.ts";
import { permissions } from "../src/http/permissions.ts";
import { ownerTable } from "../test/foundation/table-owners.ts";

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

export function configTable(): string {
	const rows = options.map(
		(o) => `| \`${o.env}\` | ${o.default === "" ? "(empty)" : `\`${o.default}\``} | ${cell(o.description)} |`,
	);
	return ["| variable | default | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

export function errorTable(): string {
	const rows = Object.entries(errorCodes).map(
		([code, { status, title }]) => `| \`${code}\` | ${status} | ${cell(title)} |`,
	);
	return ["| code | status | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

export function permissionTable(): string {
	const rows = permissions.map(
		(p) => `| \`${p.name}\` | ${p.scopes.map((s) => `\`${s}\``).join(", ")} | ${cell(p.label)} |`,
	);
	return ["| permission | scopes | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

export function fill(text: string, marker: string, table: string): string {
	const start = `<!-- ${marker}:start -->`;
	const end = `<!-- ${marker}:end -->`;
	const a = text.indexOf(start);
	const b = text.indexOf(end);
	if (a < 0 || b < a) throw new Error(`marker ${marker} missing`);
	return `${text.slice(0, a + start.length)}\n${table}\n${text.slice(b)}`;
}

const targets: [string, [string, () => string][]][] = [
	["README.md", [["config", configTable]]],
	[
		"docs/api.md",
		[
			["errors", errorTable],
			["permissions", permissionTable],
			["collections", () => collectionTables(collections.map((c) => c.module))],
		],
	],
	["docs/architecture.md", [["owners", ownerTable]]],
];

export function generated(file: string): string {
	let text = fs.readFileSync(file, "utf8");
	for (const [marker, table] of targets.find(([f]) => f === file)?.[1] ?? [])
		text = fill(text, marker, table());
	return text;
}

if (process.argv[1]?.endsWith("gen-docs.ts")) {
	const check = process.argv.includes("--check");
	let drift = false;
	for (const [file] of targets) {
		const next = generated(file);
		if (next !== fs.readFileSync(file, "utf8")) {
			if (check) {
				console.error(`${file} is out of date: run npm run docs`);
				drift = true;
			} else fs.writeFileSync(file, next);
		}
	}
	process.exit(drift ? 1 : 0);
}
