// The device's own folder: sessions, a sign-in waiting for its answer, and identity keys. Everything
// in it is readable by the user only (folder 0700, files 0600), written to a temporary file and
// renamed so a crash never leaves half a key. Where it is: SVC_CONFIG_DIR, else
// $XDG_CONFIG_HOME/svc, else ~/.config/svc.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
	if (env.SVC_CONFIG_DIR) return path.resolve(env.SVC_CONFIG_DIR);
	const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(os.homedir(), ".config");
	return path.join(path.resolve(base), "svc");
}

function ensureDir(dir: string): void {
	fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
	// A folder made earlier with a looser mode (or by another tool) is tightened.
	if ((fs.statSync(dir).mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

export function readJson<T>(file: string): T | undefined {
	let text: string;
	try {
		text = fs.readFileSync(file, "utf8");
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw err;
	}
	try {
		return JSON.parse(text) as T;
	} catch {
		throw new Error(`${file} is not valid JSON; remove it and sign in again`);
	}
}

/** Writes `value` as JSON with mode 0600 (temporary file, then rename). */
export function writeJson(file: string, value: unknown): void {
	ensureDir(path.dirname(file));
	const tmp = `${file}.${crypto.randomBytes(6).toString("hex")}.tmp`;
	fs.writeFileSync(tmp, `${JSON.stringify(value, null, "\t")}\n`, { mode: 0o600, flag: "wx" });
	try {
		fs.renameSync(tmp, file);
	} catch (err) {
		fs.rmSync(tmp, { force: true });
		throw err;
	}
}

export function removeFile(file: string): boolean {
	try {
		fs.unlinkSync(file);
		return true;
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
		throw err;
	}
}
