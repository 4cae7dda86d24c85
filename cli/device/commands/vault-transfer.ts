// `svc vault export` and `svc vault import`: the whole vault out as a zip (streamed to disk, never
// whole in memory), and an archive, vCard or CSV file in, previewed first unless --yes is given.
// docs/api.md "Vault export and import".
import fs from "node:fs";
import path from "node:path";
import type { Command } from "../command.ts";
import { CliError, EXIT, ServerRefusal, UsageError } from "../errors.ts";
import { formatBytes, note, printJson, printLine, printTable, progressBar } from "../output.ts";

interface Refusal {
	at: string;
	message: string;
}

interface Report {
	format: string;
	preview: boolean;
	counts: {
		sections: number;
		entries: number;
		files: number;
		bytes: number;
		templates: number;
		skipped: number;
	};
	sections: { key: string; name: string; existing: boolean }[];
	entries: { at: string; key: string; name: string; type: string; section: string | null }[];
	refusals: Refusal[];
	refusalCount: number;
}

const FORMATS: Record<string, string> = {
	".zip": "archive",
	".vcf": "vcard",
	".vcard": "vcard",
	".csv": "csv",
};

const exportCommand: Command = {
	name: "svc vault export",
	summary:
		"Saves the workspace's whole vault (entries, sections, aliases, templates and every file) as one zip, streamed to disk.",
	help: `[-o <file>] [--force]

  -o, --output <file>  where to write (default: vault-<date>.zip, in this folder)
  --force              overwrite an existing file`,
	options: { output: { type: "string", short: "o" }, force: { type: "boolean" } },
	async run(ctx) {
		const api = ctx.api();
		const dest =
			(ctx.values.output as string | undefined) ?? `vault-${new Date().toISOString().slice(0, 10)}.zip`;
		if (fs.existsSync(dest) && !ctx.values.force)
			throw new UsageError(`${dest} exists; pass --force to overwrite it`);
		const bar = progressBar("Exporting the vault");
		const got = await api.download("/api/vault/export", dest, bar.update).finally(bar.done);
		if (ctx.json) printJson({ savedTo: path.resolve(dest), bytes: got.bytes, sha256: got.sha256 });
		else printLine(`Saved ${dest}: ${formatBytes(got.bytes)}, sha256 ${got.sha256}`);
		return EXIT.ok;
	},
};

function printReport(report: Report): void {
	const c = report.counts;
	const verb = report.preview ? "Would make" : "Made";
	printLine(
		`${verb} ${c.entries} entries (${c.files} files, ${formatBytes(c.bytes)}), ${c.sections} new sections, ${c.templates} templates` +
			(c.skipped > 0 ? `; ${c.skipped} vCard properties left out` : ""),
	);
	if (report.entries.length > 0)
		printTable(
			["FROM", "KEY", "NAME", "TYPE", "SECTION"],
			report.entries.map((e) => [e.at, e.key, e.name, e.type, e.section ?? ""]),
		);
}

function printRefusals(refusals: Refusal[], count: number): void {
	process.stderr.write(`${count} refusal${count === 1 ? "" : "s"}; nothing was imported:\n`);
	for (const r of refusals) process.stderr.write(`  ${r.at}: ${r.message}\n`);
	if (count > refusals.length) process.stderr.write(`  … and ${count - refusals.length} more\n`);
}

const importCommand: Command = {
	name: "svc vault import",
	summary:
		"Imports a vault export (.zip), contacts (.vcf) or entries (.csv) into the workspace: all or nothing, refusals named by line, card or JSON pointer.",
	help: `<file> [--format archive|vcard|csv] [--preview | --yes]

  --format <format>    what the file is (default: from its extension)
  --preview            show what would be made and every refusal; change nothing
  --yes                import without showing the preview first (scripts)`,
	options: { format: { type: "string" }, preview: { type: "boolean" }, yes: { type: "boolean" } },
	args: { min: 1, max: 1 },
	async run(ctx) {
		const file = ctx.positionals[0] as string;
		const stat = fs.statSync(file, { throwIfNoEntry: false });
		if (!stat?.isFile()) throw new UsageError(`${file} is not a file`);
		const format = (ctx.values.format as string | undefined) ?? FORMATS[path.extname(file).toLowerCase()];
		if (!format || !["archive", "vcard", "csv"].includes(format))
			throw new UsageError(`say what ${file} is: --format archive, vcard or csv`);
		if (ctx.values.preview && ctx.values.yes) throw new UsageError("--preview and --yes exclude each other");
		const api = ctx.api();
		const send = async (preview: boolean) => {
			const bar = progressBar(`Uploading ${path.basename(file)}`);
			const url = `/api/vault/import${preview ? "/preview" : ""}?format=${format}`;
			return (
				await api
					.upload<Report>("POST", url, {}, { path: file, name: path.basename(file) }, bar.update)
					.finally(bar.done)
			).data;
		};
		if (ctx.values.preview || !ctx.values.yes) {
			const report = await send(true);
			if (ctx.json && ctx.values.preview) printJson(report);
			else printReport(report);
			if (report.refusalCount > 0) {
				printRefusals(report.refusals, report.refusalCount);
				return EXIT.failed;
			}
			if (ctx.values.preview) return EXIT.ok;
			if (!process.stdin.isTTY)
				throw new UsageError(
					"the preview is above; pass --yes to import without asking (no terminal to ask on)",
				);
			process.stderr.write("Import this? [y/N] ");
			const answer = await new Promise<string>((resolve) =>
				process.stdin.once("data", (d) => resolve(String(d))),
			);
			process.stdin.pause();
			if (!/^y(es)?$/i.test(answer.trim())) {
				note("Nothing was imported.");
				return EXIT.ok;
			}
		}
		try {
			const report = await send(false);
			if (ctx.json) printJson(report);
			else printReport(report);
			return EXIT.ok;
		} catch (err) {
			if (err instanceof ServerRefusal && Array.isArray(err.problem.refusals)) {
				printRefusals(err.problem.refusals as Refusal[], Number(err.problem.refusalCount ?? 0));
				throw new CliError("the import was refused", EXIT.failed);
			}
			throw err;
		}
	},
};

export const transferCommands = [exportCommand, importCommand];
