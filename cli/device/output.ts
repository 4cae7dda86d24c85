// How device commands print: `--json` writes the answer as JSON on stdout for scripts; otherwise a
// plain table or lines. No colour anywhere, and the progress bar only when stderr is a terminal.
import cliProgress from "cli-progress";

export function printJson(value: unknown): void {
	process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(text = ""): void {
	process.stdout.write(`${text}\n`);
}

/** Messages about what happened (not the answer itself) go to stderr, so stdout stays the answer. */
export function note(text: string): void {
	process.stderr.write(`${text}\n`);
}

/** Columns padded to their widest cell; `rows` are already text. */
export function printTable(headers: string[], rows: string[][]): void {
	if (rows.length === 0) {
		printLine("(none)");
		return;
	}
	const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
	const line = (cells: string[]) =>
		cells
			.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
			.join("  ")
			.trimEnd();
	printLine(line(headers));
	for (const row of rows) printLine(line(row));
}

export function formatBytes(n: number): string {
	if (n < 1024) return `${n} B`;
	const units = ["KiB", "MiB", "GiB", "TiB"];
	let value = n / 1024;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	return `${value.toFixed(1)} ${units[unit]}`;
}

export const dateOnly = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : "-");

/**
 * A progress bar on stderr (cli-progress, plain characters, redrawn at most ten times a second);
 * nothing at all, not even an escape sequence, when stderr is not a terminal: a script's log stays
 * clean. `update(done, total)` takes bytes; a total below 1 (no Content-Length) shows bytes only.
 */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
	if (!stream.isTTY) return { update: (_d: number, _t: number) => {}, done: () => {} };
	const bar = new cliProgress.SingleBar({
		stream,
		barsize: Math.max(10, Math.min(40, (stream.columns || 80) - label.length - 40)),
		barCompleteChar: "#",
		barIncompleteChar: "-",
		// Trimmed to the terminal's width rather than switching its line wrapping off, which a Ctrl-C
		// in the middle would leave off.
		linewrap: true,
		format: (options, params) =>
			params.total > 0
				? `${label} [${cliProgress.Format.BarFormat(params.progress, options)}] ${Math.floor(params.progress * 100)}% ${formatBytes(params.value)} of ${formatBytes(params.total)}`
				: `${label} ${formatBytes(params.value)}`,
	});
	let started = false;
	return {
		update(done: number, total: number) {
			if (!started) {
				bar.start(Math.max(0, total), done);
				started = true;
			} else bar.update(done);
		},
		done() {
			if (started) bar.stop();
		},
	};
}
