// What a second node buys: the probe and the resolve through haproxy in front of one node and in
// front of two, in one run, beside a bare node:http server and a node reached directly. Two
// compiled nodes on one PostgreSQL schema and Redis (the several-nodes setup of
// docs/operations.md); the load generator plays many clients (its X-Forwarded-For passes through
// the balancer). Usage:
//   npm run build && npm run bench:balancer -- --pg postgres://… [--duration 10 --connections 50]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startBalancer } from "../test/helpers/balancer.ts";
import { startServer } from "../test/helpers/process.ts";
import { scenarios } from "./scenarios.ts";

const { values } = parseArgs({
	options: {
		duration: { type: "string", default: "10" },
		connections: { type: "string", default: "50" },
		pg: { type: "string" },
		redis: { type: "string", default: "redis://127.0.0.1:6379" },
	},
});
if (!values.pg) {
	console.error("bench:balancer needs --pg postgres://… (several nodes share one PostgreSQL)");
	process.exit(2);
}
const duration = Number(values.duration);
const connections = Number(values.connections);
const root = path.resolve(import.meta.dirname, "..");
if (!fs.existsSync(path.join(root, "dist/src/main.js"))) {
	console.error("run `npm run build` first");
	process.exit(2);
}

let client = 0;
function nextClient(): string {
	client = (client + 1) % 0xffffff;
	return `10.${client >> 16}.${(client >> 8) & 255}.${client & 255}`;
}

interface Row {
	scenario: string;
	target: string;
	rps: number;
	p50: number;
	p99: number;
	bad: number;
}

async function measure(scenario: string, target: string, url: string, method: string, manyClients: boolean) {
	const r = await autocannon({
		url,
		method: method as "GET" | "POST",
		connections,
		duration,
		...(manyClients
			? {
					requests: [
						{
							setupRequest: (req: { headers?: Record<string, string> }) => {
								req.headers = { ...req.headers, "x-forwarded-for": nextClient() };
								return req;
							},
						},
					],
				}
			: {}),
	} as autocannon.Options);
	const row: Row = {
		scenario,
		target,
		rps: r.requests.average,
		p50: r.latency.p50,
		p99: r.latency.p99,
		bad: r.errors + r.timeouts + r.non2xx,
	};
	process.stderr.write(`${scenario} via ${target}: ${row.rps.toFixed(0)} req/s\n`);
	return row;
}

const schema = `bench_lb_${process.pid}`;
const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-lb-")));
const env: Record<string, string> = {
	HOST: "127.0.0.1",
	LOG_LEVEL: "info",
	TRUST_PROXY: "true",
	DATABASE_URL: values.pg,
	DATABASE_SCHEMA: schema,
	REDIS_URL: values.redis,
};
const one = await startServer({ ...env, DATA_DIR: dirs[0] as string }, "dist/src/main.js");
const two = await startServer({ ...env, DATA_DIR: dirs[1] as string }, "dist/src/main.js");
const bare = await startServer({}, "bench/bare.mjs");
const lbOne = await startBalancer([{ name: "node1", port: one.port }], "pass");
const lbTwo = await startBalancer(
	[
		{ name: "node1", port: one.port },
		{ name: "node2", port: two.port },
	],
	"pass",
);

const rows: Row[] = [];
try {
	for (const name of [
		"GET /api/public/links/{slug} (probe)",
		"POST /api/public/links/{slug} (resolve, 5 records)",
	]) {
		const scenario = scenarios.find((s) => s.name === name);
		if (!scenario) throw new Error(`no scenario ${name}`);
		const req = await scenario.setup(one.url, { ...env, DATA_DIR: dirs[0] as string });
		const short = name.includes("probe") ? "probe" : "resolve";
		// Warm both nodes (and their statement caches) through the two-node balancer.
		await autocannon({ url: `${lbTwo.url}${req.path}`, method: req.method, connections, duration: 2 });
		rows.push(await measure(short, "bare node:http", bare.url, "GET", true));
		rows.push(await measure(short, "one node, direct", `${one.url}${req.path}`, req.method, true));
		rows.push(await measure(short, "haproxy → one node", `${lbOne.url}${req.path}`, req.method, true));
		rows.push(await measure(short, "haproxy → two nodes", `${lbTwo.url}${req.path}`, req.method, true));
	}
} finally {
	await Promise.all([lbOne.stop(), lbTwo.stop()]);
	await Promise.all([one.stop(), two.stop(), bare.stop()]);
	for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}

console.log(
	`\n${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"} · node ${process.version} · PostgreSQL · ${connections} connections × ${duration} s\n`,
);
console.log(
	"| scenario | through | req/s | p50 ms | p99 ms | ratio to bare | ratio to one node behind haproxy | errors + non-2xx |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
	const bareRow = rows.find((x) => x.scenario === r.scenario && x.target === "bare node:http");
	const oneRow = rows.find((x) => x.scenario === r.scenario && x.target === "haproxy → one node");
	const ratio = (x?: Row) => (x ? `${((r.rps / x.rps) * 100).toFixed(0)}%` : "");
	console.log(
		`| ${r.scenario} | ${r.target} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${ratio(bareRow)} | ${r.target.startsWith("haproxy") ? ratio(oneRow) : ""} | ${r.bad} |`,
	);
}
if (rows.some((r) => r.bad > 0)) {
	console.error("\nWARNING: some runs answered errors or non-2xx: those figures are not valid");
	process.exitCode = 1;
}
