// Where the repository's web/ folder is (the pages' scripts and styles), found from the running
// file: src/lib in development, dist/src/lib once built.
import fs from "node:fs";
import path from "node:path";

/** The repository's web/ folder, from src/lib or dist/src/lib alike. */
export function webDir(): string {
	let dir = import.meta.dirname;
	for (let i = 0; i < 6; i++) {
		const candidate = path.join(dir, "web");
		if (fs.existsSync(path.join(candidate, "passkey.js"))) return candidate;
		dir = path.dirname(dir);
	}
	throw new Error("web/passkey.js not found next to the server's sources");
}
