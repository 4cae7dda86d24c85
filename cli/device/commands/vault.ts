// `svc vault`: value entries and files of the active workspace. Files stream from and to disk
// (never whole in memory), with a progress bar on a terminal and the SHA-256 checked both ways.
import fs from "node:fs";
import path from "node:path";
import type { Api } from "../api.ts";
import { type Command, readSecret, secretOptions } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { dateOnly, formatBytes, note, printJson, printLine, printTable, progressBar } from "../output.ts";
import { transferCommands } from "./vault-transfer.ts";

export interface VaultRecord {
	id: string;
	key: string;
	name: string;
	type: "value" | "file";
	value: string | null;
	section: string | null;
	hidden: boolean;
	alias: string | null;
	file: { name: string; type: string; size: number; sha256: string } | null;
	version: number;
	updated: string;
}

const RECORDS = "/api/collections/records/records";
const KEY = /^[a-z0-9_-]{1,64}$/;
const ID = /^[a-z0-9]{20}$/;
const filterQuery = (filter: string) => `filter=${encodeURIComponent(filter)}`;
const quote = (s: string) => `"${s.replace(/["\\]/g, "\\$&")}"`;

async function byKey(api: Api, key: string): Promise<VaultRecord[]> {
	return (
		await api.get<{ items: VaultRecord[] }>(`${RECORDS}?perPage=1000&${filterQuery(`key = ${quote(key)}`)}`)
	).items;
}

/** The one record `ref` names: an id, or a key held by exactly one record. */
export async function findRecord(api: Api, ref: string): Promise<VaultRecord> {
	if (ID.test(ref)) {
		try {
			return await api.get<VaultRecord>(`${RECORDS}/${ref}`);
		} catch (err) {
			if (!(err instanceof CliError) || err.exitCode !== EXIT.notFound) throw err;
		}
	}
	if (!KEY.test(ref)) throw new CliError(`no vault entry ${ref}`, EXIT.notFound);
	const found = await byKey(api, ref);
	if (found.length === 1) return found[0] as VaultRecord;
	if (found.length === 0) throw new CliError(`no vault entry with key ${ref}`, EXIT.notFound);
	throw new CliError(
		`${found.length} entries have the key ${ref} (${found.map((r) => r.id).join(", ")}); name one by its id`,
		EXIT.usage,
	);
}

const shown = (r: VaultRecord) =>
	r.type === "file"
		? `${r.file?.name ?? ""} (${formatBytes(r.file?.size ?? 0)})`
		: r.hidden
			? "(hidden)"
			: (r.value ?? "").replace(/\s+/g, " ").slice(0, 60);

const list: Command = {
	name: "svc vault list",
	summary: "Lists the vault's entries (hidden values masked; --json gives them whole).",
	help: "[--key <key>] [--json]",
	options: { key: { type: "string" } },
	async run(ctx) {
		const api = ctx.api();
		const key = ctx.values.key as string | undefined;
		const items = key
			? await byKey(api, key)
			: (await api.get<{ items: VaultRecord[] }>(`${RECORDS}?perPage=1000&sort=key,created`)).items;
		if (ctx.json) printJson(items);
		else
			printTable(
				["ID", "KEY", "TYPE", "VALUE", "UPDATED"],
				items.map((r) => [r.id, r.key, r.type, shown(r), dateOnly(r.updated)]),
			);
		return EXIT.ok;
	},
};

const get: Command = {
	name: "svc vault get",
	summary: "Prints an entry's value (a file entry: its description; use download for the bytes).",
	help: "<key | id> [--json]",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const record = await findRecord(ctx.api(), ctx.positionals[0] as string);
		if (ctx.json) printJson(record);
		else if (record.type === "file")
			printLine(
				`${record.file?.name} ${record.file?.type} ${record.file?.size} bytes sha256 ${record.file?.sha256}`,
			);
		else process.stdout.write(`${record.value ?? ""}\n`);
		return EXIT.ok;
	},
};

const set: Command = {
	name: "svc vault set",
	summary:
		"Sets the value of the entry with this key (creating it when there is none); every share of it reads the new value next time.",
	help: `<key> [<value>] [--value-file <file> | --value-stdin] [--name <name>] [--hidden]

  <value>              the value (or read it from a file or stdin, for secrets)
  --name <name>        display name (on creation; default: the key)
  --hidden             mark the entry hidden (masked until revealed; never handed to a tool)`,
	options: { ...secretOptions("value"), name: { type: "string" }, hidden: { type: "boolean" } },
	args: { min: 1, max: 2 },
	async run(ctx) {
		const [key, inline] = ctx.positionals as [string, string | undefined];
		if (!KEY.test(key)) throw new UsageError(`${key} is not a vault key ([a-z0-9_-], 1 to 64 characters)`);
		const fromSecret = readSecret(ctx.values, "value");
		if ((inline === undefined) === (fromSecret === undefined)) {
			throw new UsageError("give the value once: as an argument, --value-file or --value-stdin");
		}
		const value = (inline ?? fromSecret) as string;
		const api = ctx.api();
		const existing = await byKey(api, key);
		if (existing.length > 1) {
			throw new CliError(
				`${existing.length} entries have the key ${key}; change one by id in the console`,
				EXIT.usage,
			);
		}
		const extra = {
			...(ctx.values.hidden ? { hidden: true } : {}),
			...(ctx.values.name ? { name: ctx.values.name as string } : {}),
		};
		const current = existing[0];
		if (current?.type === "file")
			throw new CliError(`${key} is a file entry: use \`svc vault upload --replace\``, EXIT.usage);
		const record = current
			? await api.patch<VaultRecord>(`${RECORDS}/${current.id}`, { value, ...extra })
			: await api.post<VaultRecord>(RECORDS, { key, value, ...extra });
		if (ctx.json) printJson(record);
		else
			printLine(`${current ? "Updated" : "Created"} ${record.key} (${record.id}), version ${record.version}`);
		return EXIT.ok;
	},
};

/** A vault key from a file name: lower case, other characters as `-`, at most 64. */
const keyFromName = (name: string) =>
	name
		.toLowerCase()
		.replace(/\.[^.]*$/, "")
		.replace(/[^a-z0-9_-]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 64) || "file";

const upload: Command = {
	name: "svc vault upload",
	summary:
		"Uploads a file as a vault entry, streamed from disk; the server's SHA-256 is checked against the file's.",
	help: `<file> [--key <key>] [--name <name>] [--replace <key | id>]

  --key <key>          the entry's key (default: from the file name)
  --name <name>        display name (default: the file name)
  --replace <ref>      replace the bytes of an existing file entry instead`,
	options: { key: { type: "string" }, name: { type: "string" }, replace: { type: "string" } },
	args: { min: 1, max: 1 },
	async run(ctx) {
		const file = ctx.positionals[0] as string;
		const stat = fs.statSync(file, { throwIfNoEntry: false });
		if (!stat?.isFile()) throw new UsageError(`${file} is not a file`);
		const api = ctx.api();
		const fileName = path.basename(file);
		const fields: Record<string, string> = {};
		if (ctx.values.name) fields.name = ctx.values.name as string;
		let target = { method: "POST" as "POST" | "PATCH", path: RECORDS };
		if (ctx.values.replace) {
			const record = await findRecord(api, ctx.values.replace as string);
			if (record.type !== "file")
				throw new CliError(`${record.key} is a value entry, not a file`, EXIT.usage);
			target = { method: "PATCH", path: `${RECORDS}/${record.id}` };
		} else fields.key = (ctx.values.key as string | undefined) ?? keyFromName(fileName);
		const bar = progressBar(`Uploading ${fileName}`);
		const sent = await api
			.upload<VaultRecord>(target.method, target.path, fields, { path: file, name: fileName }, bar.update)
			.finally(bar.done);
		const record = sent.data;
		if (record.file?.sha256 !== sent.sha256 || record.file.size !== sent.size) {
			throw new CliError(
				`the server stored ${record.file?.size} bytes with SHA-256 ${record.file?.sha256}, but ${sent.size} bytes with ${sent.sha256} were sent`,
			);
		}
		if (ctx.json) printJson(record);
		else
			printLine(
				`Uploaded ${fileName} as ${record.key} (${record.id}): ${formatBytes(sent.size)}, sha256 ${sent.sha256}`,
			);
		return EXIT.ok;
	},
};

const download: Command = {
	name: "svc vault download",
	summary: "Downloads a file entry to disk, streamed, and checks its SHA-256 against the vault's.",
	help: `<key | id> [-o <file>] [--force]

  -o, --output <file>  where to write (default: the file's name, in this folder)
  --force              overwrite an existing file`,
	options: { output: { type: "string", short: "o" }, force: { type: "boolean" } },
	args: { min: 1, max: 1 },
	async run(ctx) {
		const api = ctx.api();
		const record = await findRecord(api, ctx.positionals[0] as string);
		if (record.type !== "file" || !record.file)
			throw new CliError(`${record.key} is a value entry: use \`svc vault get\``, EXIT.usage);
		const dest = (ctx.values.output as string | undefined) ?? path.basename(record.file.name);
		if (fs.existsSync(dest) && !ctx.values.force)
			throw new UsageError(`${dest} exists; pass --force to overwrite it`);
		const { token } = await api.post<{ token: string }>("/api/files/token");
		const bar = progressBar(`Downloading ${record.file.name}`);
		const got = await api
			.download(`/api/files/${record.id}?token=${encodeURIComponent(token)}`, dest, bar.update)
			.finally(bar.done);
		if (got.sha256 !== record.file.sha256) {
			fs.rmSync(dest, { force: true });
			throw new CliError(
				`the bytes received do not match the vault's SHA-256 (${got.sha256} ≠ ${record.file.sha256}); nothing was kept`,
			);
		}
		if (ctx.json) printJson({ ...record, savedTo: path.resolve(dest) });
		else printLine(`Saved ${dest}: ${formatBytes(got.bytes)}, sha256 ${got.sha256} (matches the vault)`);
		return EXIT.ok;
	},
};

const remove: Command = {
	name: "svc vault delete",
	summary: "Deletes an entry; shares granting it no longer return it.",
	help: "<key | id>",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const api = ctx.api();
		const record = await findRecord(api, ctx.positionals[0] as string);
		await api.delete(`${RECORDS}/${record.id}`);
		if (ctx.json) printJson({ id: record.id, deleted: true });
		else note(`Deleted ${record.key} (${record.id})`);
		return EXIT.ok;
	},
};

export const vaultCommands = [list, get, set, upload, download, remove, ...transferCommands];
