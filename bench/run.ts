// Starts the real server (compiled, default configuration, its own logging) and a bare node:http
// server in the same run, drives both with autocannon, and prints requests/s, p50/p99 latency and
// the ratio to the bare server. Usage:
//   npm run bench [-- --duration 10 --connections 50 --only "GET /api/server" --pg postgres://…]
// `--only` may be given several times to run those scenarios in one run.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startServer } from "../test/helpers/process.ts";
import { type BenchRequest, scenarios } from "./scenarios.ts";

const { values } = parseArgs({
	options: {
		duration: { type: "string", default: "10" },
		connections: { type: "string", default: "50" },
		only: { type: "string", multiple: true },
		pg: { type: "string" },
		// The server with Prometheus metrics on (METRICS_PORT), to measure what they cost.
		metrics: { type: "boolean", default: false },
	},
});
const duration = Number(values.duration);
const connections = Number(values.connections);

interface Result {
	name: string;
	rps: number;
	/** The server process's CPU time (user + system) per answered request, in µs; Linux only. */
	cpuPerRequest?: number | undefined;
	p50: number;
	p99: number;
	errors: number;
	non2xx: number;
}

let client = 0;
/** A distinct client address per request (10.0.0.0/8), for scenarios read by many clients. */
function nextClient(): string {
	client = (client + 1) % 0xffffff;
	return `10.${client >> 16}.${(client >> 8) & 255}.${client & 255}`;
}

function cannonOptions(url: string, req: BenchRequest) {
	return {
		url: `${url}${req.path}`,
		method: req.method,
		headers: req.headers,
		body: req.body,
		connections,
		pipelining: 1,
		...(req.manyClients
			? {
					requests: [
						{
							setupRequest: (r: { headers?: Record<string, string> }) => {
								r.headers = { ...r.headers, "x-forwarded-for": nextClient() };
								return r;
							},
						},
					],
				}
			: {}),
	};
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere.
 * Per request it is steadier than requests per second on a machine other work shares: it does not
 * count the time the server waits for a core.
 */
function cpuSeconds(pid: number | undefined): number | undefined {
	if (pid === undefined) return undefined;
	try {
		// Fields after the command name "(…)": utime and stime are the 12th and 13th, in clock ticks.
		const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return (Number(fields[11]) + Number(fields[12])) / 100;
	} catch {
		return undefined;
	}
}

async function measure(name: string, url: string, req: BenchRequest, pid?: number): Promise<Result> {
	const cpuBefore = cpuSeconds(pid);
	const r = await autocannon({ ...cannonOptions(url, req), duration } as autocannon.Options);
	const cpuAfter = cpuSeconds(pid);
	const answered = r.requests.total;
	return {
		name,
		rps: r.requests.average,
		cpuPerRequest:
			cpuBefore !== undefined && cpuAfter !== undefined && answered > 0
				? ((cpuAfter - cpuBefore) / answered) * 1e6
				: undefined,
		p50: r.latency.p50,
		p99: r.latency.p99,
		errors: r.errors + r.timeouts,
		non2xx: r.non2xx,
	};
}

const root = path.resolve(import.meta.dirname, "..");
if (!fs.existsSync(path.join(root, "dist/src/main.js"))) {
	execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-"));
const serverEnv: Record<string, string> = {
	DATA_DIR: dataDir,
	HOST: "127.0.0.1",
	LOG_LEVEL: "info",
	// The public scenarios come from many client addresses (X-Forwarded-For from loopback).
	TRUST_PROXY: "true",
	...(values.pg ? { DATABASE_URL: values.pg, DATABASE_SCHEMA: `bench_${process.pid}` } : {}),
	...(values.metrics ? { METRICS_PORT: "0" } : {}),
};
const server = await startServer(serverEnv, "dist/src/main.js");
const bare = await startServer({}, "bench/bare.mjs");

const rows: { result: Result; bare: Result; plain: Result }[] = [];
try {
	for (const s of scenarios) {
		if (values.only && !values.only.includes(s.name)) continue;
		const req = await s.setup(server.url, serverEnv);
		// Warm up both, then measure the bare server and the real one back to back.
		await autocannon({ ...cannonOptions(server.url, req), duration: 2 } as autocannon.Options);
		// The bare server gets the same client-side work (a header per request) so the ratio compares
		// servers; for many-client scenarios the plain bare figure is reported beside it.
		const b = await measure(s.name, bare.url, {
			method: "GET",
			path: "/",
			manyClients: req.manyClients ?? false,
		});
		const plain = req.manyClients ? await measure(s.name, bare.url, { method: "GET", path: "/" }) : b;
		const result = await measure(s.name, server.url, req, server.child.pid);
		rows.push({ result, bare: b, plain });
		process.stderr.write(`${s.name}: ${result.rps.toFixed(0)} req/s (bare ${b.rps.toFixed(0)})\n`);
	}
} finally {
	await server.stop();
	await bare.stop();
	fs.rmSync(dataDir, { recursive: true, force: true });
}

const db = values.pg ? "PostgreSQL" : "SQLite";
console.log(
	`\n${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"} · node ${process.version} · ${db} · ${connections} connections × ${duration} s\n`,
);
console.log(
	"| scenario | req/s | p50 ms | p99 ms | server CPU µs/req | bare req/s | ratio to bare | bare, plain client | ratio to that | errors | non-2xx |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const { result: r, bare: b, plain: p } of rows) {
	const ratio = ((r.rps / b.rps) * 100).toFixed(0);
	const plainRatio = ((r.rps / p.rps) * 100).toFixed(0);
	console.log(
		`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.cpuPerRequest?.toFixed(0) ?? "n/a"} | ${b.rps.toFixed(0)} | ${ratio}% | ${p.rps.toFixed(0)} | ${plainRatio}% | ${r.errors} | ${r.non2xx} |`,
	);
}
const bad = rows.filter(({ result: r }) => r.errors > 0 || r.non2xx > 0);
if (bad.length > 0) {
	console.error(
		`\nWARNING: ${bad.map((b) => b.result.name).join(", ")} answered errors or non-2xx: those figures are not valid`,
	);
	process.exitCode = 1;
}
