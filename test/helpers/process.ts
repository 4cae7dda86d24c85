// Spawns server processes for multi-node tests and waits until they listen.
import { type ChildProcess, spawn } from "node:child_process";
import { entryArgs, REPO_ROOT } from "./root.ts";

export interface ServerProcess {
	child: ChildProcess;
	port: number;
	url: string;
	/** stderr and stdout collected so far, for assertion messages. */
	output(): string;
	stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const root = REPO_ROOT;

/** Starts `script` (default: test/helpers/serve.ts) with `env` and resolves once it prints `listening <port>`. */
export function startServer(
	env: Record<string, string>,
	script = "test/helpers/serve.ts",
): Promise<ServerProcess> {
	// TypeScript sources run through tsx; compiled output (dist/…/*.js) runs on plain Node, so its
	// memory and speed are the production process's, not the loader's.
	const args = script.endsWith(".ts") ? entryArgs(script) : [script];
	const child = spawn(process.execPath, args, {
		cwd: root,
		env: { ...process.env, LOG_LEVEL: "error", PORT: "0", ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	child.stderr?.on("data", (d: Buffer) => {
		out += d.toString();
	});
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`server did not start in 60 s:\n${out}`));
		}, 60_000);
		const early = (code: number | null) => {
			clearTimeout(timer);
			reject(new Error(`server exited with ${code} before listening:\n${out}`));
		};
		child.on("close", early);
		child.stdout?.on("data", (d: Buffer) => {
			out += d.toString();
			// Our serve helper prints `listening <port>`; src/main.ts logs Fastify's `listening at http://host:port`.
			const m = /listening (?:at https?:\/\/[^\s"]+:)?(\d+)/.exec(out);
			if (!m) return;
			clearTimeout(timer);
			child.off("close", early);
			const port = Number(m[1]);
			resolve({
				child,
				port,
				url: `http://127.0.0.1:${port}`,
				output: () => out,
				stop: (signal = "SIGTERM") =>
					new Promise((done) => {
						if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode);
						child.once("close", (code) => done(code));
						child.kill(signal);
					}),
			});
		});
	});
}

/**
 * Starts several servers together; if any fails to start, stops those that did before rejecting,
 * so a failed start never leaves a process holding the test file open.
 */
export async function startServers<const E extends readonly Record<string, string>[]>(
	envs: E,
	script?: string,
): Promise<{ -readonly [K in keyof E]: ServerProcess }> {
	const settled = await Promise.allSettled(envs.map((env) => startServer(env, script)));
	const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
	const started = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
	if (failed) {
		await Promise.all(started.map((s) => s.stop("SIGKILL")));
		throw failed.reason;
	}
	return started as { -readonly [K in keyof E]: ServerProcess };
}
