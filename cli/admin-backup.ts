// `svc admin backup --to <dir>` and `svc admin restore --from <dir>` (docs/operations.md "Backups").
// Backup, on SQLite, while the server runs: SQLite's online backup of the database (a consistent
// snapshot, the root key with it), then every blob streamed into `<dir>/blobs`, then a check that
// every file the snapshot names is in the copy (a file replaced or deleted during the copy fails
// the backup: run it again). PostgreSQL is backed up with pg_dump (documented); this command says
// so. Restore puts a backup into an empty DATA_DIR, with the server stopped.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { BlobNotFoundError, type BlobStore, createFsBlobStore } from "../src/lib/blob-store.ts";
import { blobStoreName, openBlobStore } from "../src/lib/blob-store-config.ts";

export const BACKUP_USAGE = `  svc admin backup --to <dir>        copy the SQLite database and the files into a new folder (the server may run)
  svc admin restore --from <dir>     put a backup into an empty DATA_DIR (the server stopped)
`;

const DB_FILE = "svc.sqlite";
const MANIFEST = "backup.json";

interface Manifest {
	format: 1;
	created: string;
	domain: string;
	database: "sqlite";
	records: number;
	files: number;
	bytes: number;
}

const fail = (message: string, code = 1) => {
	process.stderr.write(`${message}\n`);
	return code;
};

const isEmptyDir = (dir: string) => !fs.existsSync(dir) || fs.readdirSync(dir).length === 0;

async function holdsAny(blobs: BlobStore): Promise<boolean> {
	for await (const _ of blobs.list()) return true;
	return false;
}

export async function adminBackup(args: string[]): Promise<number> {
	const { values } = parseArgs({ args, options: { to: { type: "string" } }, strict: true });
	if (!values.to) return fail(`svc admin backup: --to <dir> is required\n${BACKUP_USAGE}`, 2);
	const config = loadConfig(process.env);
	if (config.databaseUrl) {
		return fail(
			'svc admin backup: this server runs on PostgreSQL. Back the database up with pg_dump and copy the files (docs/operations.md "Backups").',
			2,
		);
	}
	const to = path.resolve(values.to);
	if (!isEmptyDir(to)) return fail(`svc admin backup: ${to} is not empty: name a new folder`, 2);
	fs.mkdirSync(to, { recursive: true });

	const { openStore } = await import("../src/db/index.ts");
	const store = await openStore(config);
	try {
		// 1. The database: one consistent snapshot, whatever the server writes meanwhile.
		await store.backup?.(path.join(to, DB_FILE));
	} finally {
		await store.destroy();
	}
	// 2. The files, streamed (never whole in memory).
	const source = openBlobStore(config);
	await source.ready();
	const target = createFsBlobStore(path.join(to, "blobs"));
	let files = 0;
	let bytes = 0;
	for await (const { key } of source.list()) {
		let copied: { size: number };
		try {
			copied = await target.put(await source.get(key), { key });
		} catch (err) {
			// Deleted since it was listed (before or while it was read): the check below decides
			// whether it mattered. Anything else (a full disk, say) stops the backup.
			const gone = err instanceof BlobNotFoundError || (err as { code?: string }).code === "ENOENT";
			if (!gone) throw err;
			continue;
		}
		files++;
		bytes += copied.size;
	}
	// 3. Every file the snapshot names must be in the copy.
	const { default: SQLite } = await import("better-sqlite3");
	const snapshot = new SQLite(path.join(to, DB_FILE), { readonly: true });
	let missing: string[];
	let records: number;
	try {
		const keys = snapshot
			.prepare("select file_key from records where file_key is not null")
			.pluck()
			.all() as string[];
		missing = [];
		for (const key of keys) if ((await target.size(key)) === undefined) missing.push(key);
		records = snapshot.prepare("select count(*) from records").pluck().get() as number;
	} finally {
		snapshot.close();
	}
	fs.rmSync(path.join(to, "blobs", "tmp"), { recursive: true, force: true });
	if (missing.length > 0) {
		return fail(
			`svc admin backup: ${missing.length} file(s) the database names were replaced or deleted during the copy; ${to} is incomplete: remove it and run the backup again`,
		);
	}
	const manifest: Manifest = {
		format: 1,
		created: new Date().toISOString(),
		domain: config.domain,
		database: "sqlite",
		records,
		files,
		bytes,
	};
	fs.writeFileSync(path.join(to, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
	process.stdout.write(`${JSON.stringify(manifest)}\n`);
	process.stderr.write(`Backed up ${records} records and ${files} files (${bytes} bytes) to ${to}.\n`);
	return 0;
}

export async function adminRestore(args: string[]): Promise<number> {
	const { values } = parseArgs({ args, options: { from: { type: "string" } }, strict: true });
	if (!values.from) return fail(`svc admin restore: --from <dir> is required\n${BACKUP_USAGE}`, 2);
	const config = loadConfig(process.env);
	if (config.databaseUrl) {
		return fail(
			'svc admin restore: this server runs on PostgreSQL: restore with pg_restore or psql (docs/operations.md "Backups").',
			2,
		);
	}
	const from = path.resolve(values.from);
	let manifest: Manifest;
	try {
		manifest = JSON.parse(fs.readFileSync(path.join(from, MANIFEST), "utf8")) as Manifest;
	} catch {
		return fail(`svc admin restore: ${from} holds no ${MANIFEST}: not a finished backup`, 2);
	}
	if (manifest.format !== 1 || manifest.database !== "sqlite" || !fs.existsSync(path.join(from, DB_FILE))) {
		return fail(`svc admin restore: ${from} is not a backup this version can restore`, 2);
	}
	const dataDir = path.resolve(config.dataDir);
	const target = openBlobStore(config);
	await target.ready();
	if (fs.existsSync(path.join(dataDir, DB_FILE)) || (await holdsAny(target))) {
		return fail(
			`svc admin restore: ${dataDir} or ${blobStoreName(config)} already holds a database or files; restore into an empty DATA_DIR and blob store (move the old ones aside, with the server stopped)`,
			2,
		);
	}
	fs.mkdirSync(dataDir, { recursive: true });
	fs.copyFileSync(path.join(from, DB_FILE), path.join(dataDir, DB_FILE), fs.constants.COPYFILE_EXCL);
	const source = createFsBlobStore(path.join(from, "blobs"));
	let files = 0;
	for await (const { key } of source.list()) {
		await target.put(await source.get(key), { key });
		files++;
	}
	if (config.blobStore === "fs")
		fs.rmSync(path.join(dataDir, "blobs", "tmp"), { recursive: true, force: true });
	process.stderr.write(
		`Restored the backup of ${manifest.domain} taken ${manifest.created} (${manifest.records} records, ${files} files) into ${dataDir}. Start the server; then repeat any identity revocation made after ${manifest.created} (docs/operations.md).\n`,
	);
	return 0;
}
