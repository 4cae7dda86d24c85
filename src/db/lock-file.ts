// A lock file for work that two processes on one DATA_DIR must not do at once (SQLite's migrations:
// Kysely's migrator takes a lock on PostgreSQL only).
import fs from "node:fs";

/** Runs `fn` while holding an exclusive lock file; a lock older than `staleMs` is taken over. */
export async function withLockFile<T>(file: string, fn: () => Promise<T>, staleMs = 60_000): Promise<T> {
	const deadline = Date.now() + 2 * staleMs;
	for (;;) {
		try {
			fs.writeFileSync(file, String(process.pid), { flag: "wx" });
			break;
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
			const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
			if (age > staleMs) fs.rmSync(file, { force: true });
			else if (Date.now() > deadline) throw new Error(`could not take ${file}`);
			else await new Promise((r) => setTimeout(r, 50));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(file, { force: true });
	}
}
