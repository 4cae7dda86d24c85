// Stamped copies kept on disk, so the same copy asked for again costs a file read instead of a
// worker's time. A key names what was stamped (the caller hashes the tenant, the stored file and
// the line into it); an entry is one file in `dir`, written whole under a temporary name and
// renamed, served as a stream. Bounded by total size and by age: the oldest entries go first, and
// none is served or kept past `maxAgeMs` (stamped copies name their recipients). Knows nothing of
// the app.
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";

export interface StampCacheOptions {
	dir: string;
	/** Total bytes of all entries; the oldest are removed past it. */
	maxBytes: number;
	/** An entry older than this is neither served nor kept. */
	maxAgeMs: number;
}

interface Entry {
	size: number;
	/** When the copy was made (ms). */
	at: number;
}

export class StampCache {
	/** Oldest first: Map order is the order entries were written. */
	private readonly entries = new Map<string, Entry>();
	private total = 0;
	private readonly sweeper: NodeJS.Timeout;

	constructor(private readonly options: StampCacheOptions) {
		fs.mkdirSync(options.dir, { recursive: true, mode: 0o700 });
		// Entries of an earlier run are kept within the bounds; half-written ones are removed.
		const found: [string, Entry][] = [];
		for (const name of fs.readdirSync(options.dir)) {
			const file = path.join(options.dir, name);
			if (!/^[0-9a-f]{64}$/.test(name)) {
				fs.rmSync(file, { force: true });
				continue;
			}
			const stat = fs.statSync(file, { throwIfNoEntry: false });
			if (stat?.isFile()) found.push([name, { size: stat.size, at: stat.mtimeMs }]);
		}
		found.sort((a, b) => a[1].at - b[1].at);
		for (const [key, entry] of found) this.add(key, entry);
		this.trim();
		this.sweeper = setInterval(() => this.trim(), Math.min(options.maxAgeMs, 10 * 60_000));
		this.sweeper.unref();
	}

	/** The file name of a key made of parts. */
	static key(...parts: string[]): string {
		const hash = crypto.createHash("sha256");
		for (const part of parts) hash.update(`${part.length}:${part}`);
		return hash.digest("hex");
	}

	/** Bytes held now. */
	get size(): number {
		return this.total;
	}

	/** The stored copy as a stream with its size, or undefined. */
	async get(key: string): Promise<{ stream: Readable; size: number } | undefined> {
		const entry = this.entries.get(key);
		if (!entry) return undefined;
		if (Date.now() - entry.at > this.options.maxAgeMs) {
			this.remove(key);
			return undefined;
		}
		let handle: fsp.FileHandle;
		try {
			handle = await fsp.open(path.join(this.options.dir, key), "r");
		} catch {
			// Removed under us (another process sharing the folder, or an operator): a miss.
			this.forget(key);
			return undefined;
		}
		return { stream: handle.createReadStream(), size: entry.size };
	}

	/** Stores a copy (not when it alone would take more than a quarter of the cache). */
	async put(key: string, bytes: Uint8Array): Promise<void> {
		if (bytes.byteLength > this.options.maxBytes / 4 || this.entries.has(key)) return;
		const file = path.join(this.options.dir, key);
		const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
		try {
			await fsp.writeFile(tmp, bytes, { mode: 0o600 });
			await fsp.rename(tmp, file);
		} catch {
			await fsp.rm(tmp, { force: true });
			return; // a full disk costs the cache, not the request
		}
		this.add(key, { size: bytes.byteLength, at: Date.now() });
		this.trim();
	}

	close(): void {
		clearInterval(this.sweeper);
	}

	private add(key: string, entry: Entry): void {
		this.entries.set(key, entry);
		this.total += entry.size;
	}

	private forget(key: string): void {
		const entry = this.entries.get(key);
		if (!entry) return;
		this.entries.delete(key);
		this.total -= entry.size;
	}

	private remove(key: string): void {
		this.forget(key);
		fs.rm(path.join(this.options.dir, key), { force: true }, () => {});
	}

	/** Removes entries past their age, then the oldest until the total fits. */
	private trim(): void {
		const now = Date.now();
		for (const [key, entry] of this.entries) {
			if (this.total <= this.options.maxBytes && now - entry.at <= this.options.maxAgeMs) break;
			this.remove(key);
		}
	}
}
