// The compiled server (`npm run build` output) for tests that measure the process the way it runs
// in production, without the TypeScript loader's own memory. Builds once when dist is missing or
// older than the sources.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
export const COMPILED_MAIN = "dist/src/main.js";

function newest(dir: string): number {
	let latest = 0;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
	}
	return latest;
}

export function ensureBuilt(): string {
	const main = path.join(root, COMPILED_MAIN);
	const built = fs.statSync(main, { throwIfNoEntry: false })?.mtimeMs ?? 0;
	if (built < newest(path.join(root, "src"))) {
		execFileSync(
			process.execPath,
			[path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
			{
				cwd: root,
				stdio: "inherit",
			},
		);
	}
	return COMPILED_MAIN;
}
