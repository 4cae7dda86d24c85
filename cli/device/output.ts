// How device commands print: `--json` writes the answer as JSON on stdout for scripts; otherwise a
// plain table or lines. No colour anywhere, and the progress bar only when stderr is a terminal.

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
 * A progress bar on stderr, redrawn at most ten times a second; nothing at all when stderr is not a
 * terminal (a script's log stays clean).
 */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
	if (!stream.isTTY) return { update: (_d: number, _t: number) => {}, done: () => {} };
	let last = 0;
	let shown = false;
	const draw = (done: number, total: number) => {
		const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - 30));
		const ratio = total > 0 ? Math.min(1, done / total) : 0;
		const filled = Math.round(ratio * width);
		const bar =
			total > 0 ? `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.floor(ratio * 100)}%` : "";
		stream.write(
			`\r${label} ${bar} ${formatBytes(done)}${total > 0 ? ` of ${formatBytes(total)}` : ""}\x1b[K`,
		);
		shown = true;
	};
	return {
		update(done: number, total: number) {
			const now = Date.now();
			if (now - last < 100 && done < total) return;
			last = now;
			draw(done, total);
		},
		done() {
			if (shown) stream.write("\n");
		},
	};
}
