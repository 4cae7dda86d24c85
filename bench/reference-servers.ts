// The hand-written reference servers of ../shared/perf (PERF_DIR): whether that folder is set up,
// and starting one of its servers as a process of its own. Nothing there is changed from here.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const perfDir = path.resolve(
	process.env.PERF_DIR ?? path.resolve(import.meta.dirname, "../../shared/perf"),
);

/** What `lib/config.mjs` there exports: where the seeded data lives and how PostgreSQL is reached. */
export interface PerfConfig {
	DATA_DIR: string;
	SQLITE_PATH: string;
	SLUGS_PATH: string;
	PG: { host: string; port: number; user: string; password: string; database: string };
}

export function loadPerfConfig(): Promise<PerfConfig> {
	return import(pathToFileURL(path.join(perfDir, "lib/config.mjs")).href) as Promise<PerfConfig>;
}

export function pgUrl({ host, port, user, password, database }: PerfConfig["PG"]): string {
	const e = encodeURIComponent;
	return `postgres://${e(user)}:${e(password)}@${host}:${port}/${e(database)}`;
}

function onPath(command: string): boolean {
	return (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
		try {
			fs.accessSync(path.join(dir, command), fs.constants.X_OK);
			return true;
		} catch {
			return false;
		}
	});
}

/**
 * The environment our server runs under beside the reference servers: its default configuration,
 * behind a trusted proxy (the wrk scripts' X-Forwarded-For), on SQLite in `dataDir` or in the
 * PostgreSQL schema `schema` of `pg`.
 */
export function oursEnv(
	db: "sqlite" | "pg",
	dataDir: string,
	pg: string,
	schema: string,
): Record<string, string> {
	return {
		DATA_DIR: dataDir,
		HOST: "127.0.0.1",
		LOG_LEVEL: "info",
		TRUST_PROXY: "true",
		...(db === "pg" ? { DATABASE_URL: pg, DATABASE_SCHEMA: schema } : {}),
	};
}

/**
 * What is missing for a run: the folder's node_modules, `wrk`, the seeded SQLite file and slugs,
 * and (when `withPg`) the seeded `links` table in its PostgreSQL database. Empty when ready.
 * Expects the folder itself to exist.
 */
export async function missingSetup(withPg: boolean): Promise<string[]> {
	const missing = ["fastify", "better-sqlite3", "pg"]
		.filter((m) => !fs.existsSync(path.join(perfDir, "node_modules", m)))
		.map((m) => `${perfDir}/node_modules/${m}`);
	if (!onPath("wrk")) missing.push("wrk (not on PATH)");
	const config = await loadPerfConfig();
	for (const file of [config.SQLITE_PATH, config.SLUGS_PATH]) {
		if (!fs.existsSync(file)) missing.push(`${file} (seeded data)`);
	}
	if (withPg) {
		const { default: pg } = await import("pg");
		const client = new pg.Client(config.PG);
		try {
			await client.connect();
			const { rows } = await client.query("select to_regclass('links') is not null as seeded");
			if (!rows[0]?.seeded) missing.push(`the links table in PostgreSQL database ${config.PG.database}`);
		} catch (err) {
			missing.push(
				`PostgreSQL ${config.PG.user}@${config.PG.host}:${config.PG.port}/${config.PG.database} (${(err as Error).message})`,
			);
		} finally {
			await client.end().catch(() => {});
		}
	}
	return missing;
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const probe = net.createServer();
		probe.once("error", reject);
		probe.listen(0, "127.0.0.1", () => {
			const { port } = probe.address() as net.AddressInfo;
			probe.close(() => resolve(port));
		});
	});
}

export interface ReferenceServer {
	name: string;
	child: ChildProcess;
	url: string;
	stop(): Promise<void>;
}

/** Starts `servers/<script>` on 127.0.0.1 and a free port; resolves once it says it listens. */
export async function startReference(
	name: string,
	script: string,
	env: Record<string, string> = {},
): Promise<ReferenceServer> {
	const port = await freePort();
	// The servers take only PORT and bind 127.0.0.1 themselves.
	const child = spawn(process.execPath, [path.join(perfDir, "servers", script)], {
		cwd: perfDir,
		env: { ...process.env, ...env, PORT: String(port) },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	const collect = (d: Buffer) => {
		if (out.length < 10_000) out += d.toString();
	};
	child.stderr?.on("data", collect);
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`${name} did not start in 30 s:\n${out}`));
		}, 30_000);
		const early = (code: number | null) => {
			clearTimeout(timer);
			reject(new Error(`${name} exited with ${code} before listening:\n${out}`));
		};
		child.on("close", early);
		child.stdout?.on("data", (d: Buffer) => {
			collect(d);
			if (!/listening on \d+/.test(out)) return;
			clearTimeout(timer);
			child.off("close", early);
			child.stdout?.removeAllListeners("data");
			child.stdout?.resume();
			resolve({
				name,
				child,
				url: `http://127.0.0.1:${port}`,
				stop: () =>
					new Promise((done) => {
						if (child.exitCode !== null || child.signalCode !== null) return done();
						child.once("close", () => done());
						child.kill("SIGTERM");
					}),
			});
		});
	});
}
