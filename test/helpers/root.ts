// The repository's root, and how to start one of its TypeScript entry points, from the test
// sources (test/…, through tsx) and from their compiled copies alike (dist/test/…, which
// scripts/test.mjs runs on plain Node: loading the server through tsx's hooks cost each test
// process about four seconds of CPU more; docs/testing.md "Where the time goes").
import path from "node:path";

/** Whether this is the compiled copy under dist/. */
export const COMPILED = import.meta.filename.endsWith(".js");

export const REPO_ROOT = path.resolve(import.meta.dirname, COMPILED ? "../../.." : "../..");

/**
 * `node` arguments that run the repository's `file` (a .ts path from the root, e.g. `cli/svc.ts`):
 * its compiled copy when the tests run compiled, the source through tsx otherwise.
 */
export function entryArgs(file: string): string[] {
	return COMPILED ? [path.join(REPO_ROOT, "dist", file.replace(/\.ts$/, ".js"))] : ["--import", "tsx", file];
}
