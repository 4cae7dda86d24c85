// Drives one URL with wrk (the load generator of the reference servers in ../shared/perf) and
// reads the figures out of its text report.
import { execFile } from "node:child_process";

export interface WrkResult {
	rps: number;
	/** The 99% line of `--latency`'s distribution, in ms. */
	p99: number;
	requests: number;
	/** "Non-2xx or 3xx responses". */
	non2xx: number;
	/** Socket errors of every kind: connect, read, write and timeout (wrk's 2 s default). */
	errors: number;
}

export interface WrkLoad {
	url: string;
	method: "GET" | "POST";
	path: string;
	connections: number;
	duration: number;
	/** The Lua script; it receives the method and the path after `--`, then `scriptArgs`. */
	script: string;
	scriptArgs?: string[];
}

export function runWrk(load: WrkLoad): Promise<WrkResult> {
	const args = [
		"-t1",
		`-c${load.connections}`,
		`-d${load.duration}s`,
		"--latency",
		"-s",
		load.script,
		load.url,
		"--",
		load.method,
		load.path,
		...(load.scriptArgs ?? []),
	];
	return new Promise((resolve, reject) => {
		execFile("wrk", args, (err, stdout, stderr) => {
			if (err) reject(new Error(`wrk ${args.join(" ")}: ${err.message}\n${stderr}`));
			else resolve(parseWrk(stdout));
		});
	});
}

const unitMs: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Reads wrk 4's report; throws when a figure every report carries is missing. */
export function parseWrk(text: string): WrkResult {
	const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(text);
	const p99 = /^\s+99%\s+([\d.]+)(us|ms|s|m|h)\s*$/m.exec(text);
	const requests = /^\s+(\d+) requests in /m.exec(text);
	if (!rps || !p99 || !requests) throw new Error(`unexpected wrk report:\n${text}`);
	const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
	const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
	return {
		rps: Number(rps[1]),
		p99: Number(p99[1]) * (unitMs[p99[2] as string] ?? Number.NaN),
		requests: Number(requests[1]),
		non2xx: non2xx ? Number(non2xx[1]) : 0,
		errors: sockets ? sockets.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
	};
}
