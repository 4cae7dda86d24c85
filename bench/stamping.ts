// Stamping under load, against the real server (compiled, default configuration, its own logging):
//  1. stamped previews per second (`POST /api/stamp-preview`) of a 10-page PDF and of a 4000×3000
//     JPEG, uploaded through the API first;
//  2. the latency of cheap "probe" requests alone, then beside a running stamping load: the event
//     loop must stay free while stamping runs in the worker pool;
//  3. in-process, for the record: the longest event-loop stall while a large PDF is stamped on the
//     main thread versus in the pool (why the pool exists).
// Usage: npm run bench:stamping [-- --duration 20 --connections 4 --pg postgres://…]
//
// The server runs with TRUST_PROXY=true and each request names its own X-Forwarded-For address:
// the `heavy` limit (20 a minute per address) would otherwise cap the run at 20 requests.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import sharp from "sharp";
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { createStamper } from "../src/lib/stamp/index.ts";
import { stampBytes } from "../src/lib/stamp/stamp.ts";
import { startServer } from "../test/helpers/process.ts";
import { makePdf } from "../test/stamping/fixtures.ts";
import type { BenchRequest } from "./scenarios.ts";

const { values } = parseArgs({
	options: {
		duration: { type: "string", default: "20" },
		connections: { type: "string", default: "4" },
		"probe-connections": { type: "string", default: "10" },
		pg: { type: "string" },
	},
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const probeConnections = Number(values["probe-connections"]);

/**
 * Requests measured alone and beside the stamping load; `X-Forwarded-For` is set per request, so
 * the share probe's per-client limit (`probe`) sees many readers.
 */
interface Probe {
	name: string;
	setup(base: string, session: string): Promise<BenchRequest>;
}
const probes: Probe[] = [
	{ name: "GET /api/server", setup: async () => ({ method: "GET", path: "/api/server" }) },
	{
		name: "GET /api/public/links/{slug} (share probe)",
		async setup(base, session) {
			const res = await fetch(`${base}/api/collections/links/records`, {
				method: "POST",
				headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
				body: JSON.stringify({ label: "Probe me" }),
			});
			if (!res.ok) throw new Error(`share: ${res.status} ${await res.text()}`);
			const { slug } = (await res.json()) as { slug: string };
			return { method: "GET", path: `/api/public/links/${slug}` };
		},
	},
];

// ---- fixtures, uploaded through the API ----

/** A 4000×3000 photo-like JPEG: smooth gradients with fine grain (about 2 MB at quality 90). */
async function photoJpeg(): Promise<Buffer> {
	const width = 4000;
	const height = 3000;
	const raw = Buffer.alloc(width * height * 3);
	for (let y = 0; y < height; y++) {
		for (let x = 0; x < width; x++) {
			const i = (y * width + x) * 3;
			const grain = (((x * 7919) ^ (y * 104729)) & 15) - 8;
			raw[i] = (x / width) * 200 + 30 + grain;
			raw[i + 1] = (y / height) * 180 + 40 + grain;
			raw[i + 2] = ((x + y) / (width + height)) * 160 + 60 + grain;
		}
	}
	return sharp(raw, { raw: { width, height, channels: 3 } })
		.jpeg({ quality: 90 })
		.toBuffer();
}

async function upload(base: string, session: string, bytes: Buffer, name: string): Promise<string> {
	const form = new FormData();
	form.append("key", "bench");
	form.append("file", new Blob([new Uint8Array(bytes)]), name);
	const res = await fetch(`${base}/api/collections/records/records`, {
		method: "POST",
		headers: { authorization: `Bearer ${session}`, "x-forwarded-for": "198.18.0.1" },
		body: form,
	});
	if (!res.ok) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
	return ((await res.json()) as { id: string }).id;
}

// ---- measuring ----

let address = 0;
/** A new client address per request (198.18.0.0/15, the benchmarking range). */
function nextAddress(): string {
	address++;
	return `198.18.${(address >> 8) & 255}.${address & 255}`;
}

interface Result {
	name: string;
	rps: number;
	p50: number;
	p99: number;
	max: number;
	requests: number;
	bad: number;
}

function drive(
	name: string,
	base: string,
	req: BenchRequest,
	conns: number,
	seconds: number,
): Promise<Result> {
	return autocannon({
		url: base,
		connections: conns,
		duration: seconds,
		requests: [
			{
				method: req.method,
				path: req.path,
				headers: req.headers ?? {},
				...(req.body ? { body: req.body } : {}),
				setupRequest: (r) => ({ ...r, headers: { ...r.headers, "x-forwarded-for": nextAddress() } }),
			},
		],
	}).then((r) => ({
		name,
		rps: r.requests.average,
		p50: r.latency.p50,
		p99: r.latency.p99,
		max: r.latency.max,
		requests: r.requests.total,
		bad: r.errors + r.timeouts + r.non2xx,
	}));
}

/** The longest gap between 5 ms ticks of the event loop while `work` runs. */
async function longestStall(work: () => Promise<unknown>): Promise<{ ms: number; stall: number }> {
	let last = performance.now();
	let stall = 0;
	const tick = setInterval(() => {
		const now = performance.now();
		stall = Math.max(stall, now - last);
		last = now;
	}, 5);
	const t0 = performance.now();
	await work();
	clearInterval(tick);
	return { ms: performance.now() - t0, stall };
}

// ---- run ----

const root = path.resolve(import.meta.dirname, "..");
if (!fs.existsSync(path.join(root, "dist/src/features/stamping/routes.js"))) {
	execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-stamp-"));
const serverEnv: Record<string, string> = {
	DATA_DIR: dataDir,
	HOST: "127.0.0.1",
	LOG_LEVEL: "info",
	TRUST_PROXY: "true",
	...(values.pg ? { DATABASE_URL: values.pg, DATABASE_SCHEMA: `bench_stamp_${process.pid}` } : {}),
};
const server = await startServer(serverEnv, "dist/src/main.js");

const stampRows: Result[] = [];
const probeRows: { alone: Result; beside: Result; load: Result }[] = [];
let inProcess: { where: string; ms: number; stall: number }[] = [];
const pdf10 = await makePdf(Array.from({ length: 10 }, () => ({})));
const jpeg = await photoJpeg();
try {
	const store = await openStore(loadConfig(serverEnv));
	let session: string;
	try {
		const account = await createAccount(store.db, { email: "stamp-bench@bench.test" }, Date.now());
		session = (await createSession(store.db, account.accountId, Date.now())).token;
	} finally {
		await store.destroy();
	}
	const auth = { authorization: `Bearer ${session}`, "content-type": "application/json" };
	const stampRequest = (record: string): BenchRequest => ({
		method: "POST",
		path: "/api/stamp-preview",
		headers: auth,
		body: JSON.stringify({ record, text: "Sent to Dana Novak for the flat at 5 Main St, 2026-11-22" }),
	});
	const targets: [string, BenchRequest][] = [
		[
			`stamp-preview: 10-page PDF (${Math.round(pdf10.length / 1024)} KiB)`,
			stampRequest(await upload(server.url, session, pdf10, "ten-pages.pdf")),
		],
		[
			`stamp-preview: 4000×3000 JPEG (${(jpeg.length / 1024 / 1024).toFixed(1)} MiB)`,
			stampRequest(await upload(server.url, session, jpeg, "photo.jpg")),
		],
	];

	for (const [name, req] of targets) {
		await drive(name, server.url, req, connections, 3); // warm-up: workers started, code hot
		const r = await drive(name, server.url, req, connections, duration);
		stampRows.push(r);
		process.stderr.write(`${name}: ${r.rps.toFixed(1)}/s\n`);
	}

	for (const probe of probes) {
		const req = await probe.setup(server.url, session);
		await drive(probe.name, server.url, req, probeConnections, 2);
		const alone = await drive(probe.name, server.url, req, probeConnections, duration);
		for (const [name, stamp] of targets) {
			const [beside, load] = await Promise.all([
				drive(`${probe.name} beside ${name}`, server.url, req, probeConnections, duration),
				drive(name, server.url, stamp, connections, duration),
			]);
			probeRows.push({ alone, beside, load });
			process.stderr.write(`${beside.name}: p99 ${beside.p99} ms (alone ${alone.p99} ms)\n`);
		}
	}

	// In-process: a 100-page PDF stamped on the main thread, then through the pool.
	const pdf100 = await makePdf(Array.from({ length: 100 }, (_, i) => ({ rotate: (i % 4) * 90 })));
	const stamper = createStamper();
	try {
		await stamper.stampFile({ bytes: pdf100, type: "application/pdf", line: "warm-up" });
		await stampBytes(pdf100, "application/pdf", "warm-up");
		const line = "Sent to Dana Novak #preview";
		inProcess = [
			{ where: "main thread", ...(await longestStall(() => stampBytes(pdf100, "application/pdf", line))) },
			{
				where: "worker pool",
				...(await longestStall(() => stamper.stampFile({ bytes: pdf100, type: "application/pdf", line }))),
			},
		];
	} finally {
		await stamper.close();
	}
} finally {
	await server.stop();
	fs.rmSync(dataDir, { recursive: true, force: true });
}

const cpus = os.cpus();
const db = values.pg ? "PostgreSQL" : "SQLite";
console.log(
	`\n${new Date().toISOString()} · ${cpus.length} × ${cpus[0]?.model ?? "cpu"} · node ${process.version} · ${db} · ${duration} s per run\n`,
);
console.log(`Stamped previews, ${connections} connections:\n`);
console.log("| file | previews/s | p50 ms | p99 ms | requests | errors or non-2xx |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const r of stampRows) {
	console.log(`| ${r.name} | ${r.rps.toFixed(1)} | ${r.p50} | ${r.p99} | ${r.requests} | ${r.bad} |`);
}
console.log(`\nProbe latency (${probeConnections} connections) alone and beside a stamping load:\n`);
console.log(
	"| probe | beside | probe req/s | p50 ms | p99 ms | max ms | previews/s meanwhile | errors or non-2xx |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
const seen = new Set<string>();
for (const { alone, beside, load } of probeRows) {
	if (!seen.has(alone.name)) {
		seen.add(alone.name);
		console.log(
			`| ${alone.name} | nothing | ${alone.rps.toFixed(0)} | ${alone.p50} | ${alone.p99} | ${alone.max} | | ${alone.bad} |`,
		);
	}
	console.log(
		`| ${alone.name} | ${load.name} | ${beside.rps.toFixed(0)} | ${beside.p50} | ${beside.p99} | ${beside.max} | ${load.rps.toFixed(1)} | ${beside.bad + load.bad} |`,
	);
}
console.log("\nIn-process, a 100-page PDF: longest event-loop stall (5 ms ticks):\n");
console.log("| stamped on | ms | longest stall ms |");
console.log("| --- | ---: | ---: |");
for (const r of inProcess) console.log(`| ${r.where} | ${r.ms.toFixed(0)} | ${r.stall.toFixed(0)} |`);

const bad = [...stampRows, ...probeRows.flatMap((r) => [r.alone, r.beside, r.load])].filter((r) => r.bad > 0);
if (bad.length > 0) {
	console.error(`\nWARNING: ${[...new Set(bad.map((r) => r.name))].join(", ")} answered errors or non-2xx`);
	process.exitCode = 1;
}
