// The built `svc` command (dist/cli/svc.js, the package's bin) as a child process, the way a person
// or a script runs it: its own config folder (SVC_CONFIG_DIR), stdout and stderr kept apart, and
// the exit code. Built once when dist is missing or older than cli/ or src/ (helpers/build.ts).
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { ensureBuilt } from "./build.ts";
import { REPO_ROOT } from "./root.ts";

const root = REPO_ROOT;
export const SVC_BIN = path.join(root, "dist/cli/svc.js");

/** Compiles cli/ and src/ (tsconfig.build.json) unless dist is current; see helpers/build.ts. */
export function ensureCliBuilt(): string {
	ensureBuilt();
	return SVC_BIN;
}

export interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

export interface Svc {
	configDir: string;
	/** Runs `svc <args>` to its end. */
	run(args: string[], options?: { env?: Record<string, string>; input?: string }): Promise<Run>;
	/** Starts `svc <args>` and hands back the process (for `svc login`, which waits). */
	start(args: string[], env?: Record<string, string>): ChildProcess & { output: () => Run };
	/** `svc <args> --json`, exit 0 asserted by the caller's message, stdout parsed. */
	json<T>(args: string[]): Promise<T>;
}

export function svc(configDir: string, baseEnv: Record<string, string> = {}): Svc {
	const envOf = (extra: Record<string, string> = {}) => ({
		...process.env,
		// Nothing of the runner's own: no tsx loader, no desktop to open a browser on.
		NODE_OPTIONS: "",
		DISPLAY: "",
		WAYLAND_DISPLAY: "",
		SVC_SERVER: "",
		SVC_WORKSPACE: "",
		SVC_CONFIG_DIR: configDir,
		...baseEnv,
		...extra,
	});
	const start = (args: string[], env?: Record<string, string>) => {
		const child = spawn(process.execPath, [SVC_BIN, ...args], {
			cwd: configDir,
			env: envOf(env),
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
		});
		return Object.assign(child, { output: () => ({ code: child.exitCode, stdout, stderr }) });
	};
	const run = (args: string[], options: { env?: Record<string, string>; input?: string } = {}) => {
		const child = start(args, options.env);
		child.stdin?.end(options.input ?? "");
		return new Promise<Run>((resolve) => child.on("close", (code) => resolve({ ...child.output(), code })));
	};
	return {
		configDir,
		run,
		start,
		async json<T>(args: string[]) {
			const r = await run([...args, "--json"]);
			if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}:\n${r.stderr}${r.stdout}`);
			return JSON.parse(r.stdout) as T;
		},
	};
}
