// Our server beside the hand-written reference servers of ../shared/perf (PERF_DIR), driven by the
// same load generator (wrk) with the same script on both sides, in one run, on SQLite and on
// PostgreSQL; each figure printed as a ratio to its reference, next to the issue's targets. Two
// loads: `hot`, every request on one share (lua/xff-pool.lua: every request its own
// X-Forwarded-For), and `spread`, a share per request, round robin over `--shares` shares
// (lua/xff-spread.lua: ours seeded by bench/seed-shares.ts, the reference's first `--shares` seeded
// slugs). Usage:
//   npm run bench:reference [-- --duration 10 --runs 3 --connections 50 --pg postgres://… --only probe]
//   npm run bench:reference -- --only spread --shares 10000 --memory 60
// `--only` (repeatable) takes a database (sqlite, pg), a pair (server/static, server/bare, probe,
// resolve) or a load (hot, spread). `--memory S`: after the pairs, S seconds of spread resolves,
// and our resident memory before and after. Without --pg, our PostgreSQL server runs in a schema
// of its own in the reference's database.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import { startServer } from "../test/helpers/process.ts";
import {
	loadPerfConfig,
	missingSetup,
	oursEnv,
	perfDir,
	pgUrl,
	startReference,
} from "./reference-servers.ts";
import { seedShares } from "./seed-shares.ts";
import { shareFixture } from "./share-fixture.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

const { values } = parseArgs({
	options: {
		duration: { type: "string", default: "10" },
		runs: { type: "string", default: "3" },
		connections: { type: "string", default: "50" },
		pg: { type: "string" },
		only: { type: "string", multiple: true },
		shares: { type: "string", default: "10000" },
		memory: { type: "string" },
	},
});
const duration = Number(values.duration);
const runs = Number(values.runs);
const connections = Number(values.connections);
const shareCount = Number(values.shares);
const memorySeconds = values.memory === undefined ? 0 : Number(values.memory);

const databases = ["sqlite", "pg"] as const;
type Database = (typeof databases)[number];
const pairIds = ["server/static", "server/bare", "probe", "resolve"] as const;
const loads = ["hot", "spread"] as const;
type Load = (typeof loads)[number];
const only = values.only ?? [];
const known: readonly string[] = [...databases, ...pairIds, ...loads];
const unknown = only.filter((o) => !known.includes(o));
if (unknown.length > 0) {
	console.error(`--only ${unknown.join(", ")}: expected one of ${known.join(", ")}`);
	process.exit(2);
}
const pick = <T extends string>(all: readonly T[]) =>
	all.some((x) => only.includes(x)) ? all.filter((x) => only.includes(x)) : [...all];
const dbs = pick(databases);
const pairs = pick(pairIds);
const chosenLoads = pick(loads);

// ---- preparation: the reference folder must be set up; it needs root, so it is not done here ----

if (!fs.existsSync(path.join(perfDir, "servers/fastify-db.mjs"))) {
	console.error(`No reference servers in ${perfDir}: set PERF_DIR to the folder of ../shared/perf`);
	process.exit(2);
}
const missing = await missingSetup(dbs.includes("pg"));
if (missing.length > 0) {
	console.error(
		`The reference servers in ${perfDir} are not set up:\n${missing.map((m) => `  - ${m}`).join("\n")}`,
	);
	console.error(
		`Run, as root (apt-get for wrk and PostgreSQL, the PostgreSQL role perf):\n  cd ${path.relative(process.cwd(), perfDir) || "."} && ./setup.sh`,
	);
	process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
if (!fs.existsSync(path.join(root, "dist/src/main.js"))) {
	console.error("run `npm run build` first: the compiled server is measured");
	process.exit(2);
}
const perf = await loadPerfConfig();
const hotScript = path.join(perfDir, "lua/xff-pool.lua");
const spreadScript = path.join(perfDir, "lua/xff-spread.lua");

// ---- what is measured ----

interface Request {
	method: "GET" | "POST";
	/** The path; under the spread load, the prefix each slug of `slugs` is appended to. */
	path: string;
	/** The spread load: a file of slugs, one a line, a slug per request round robin. */
	slugs?: string;
}
interface Pair {
	id: (typeof pairIds)[number];
	load: Load;
	ours: Request;
	reference: string;
	theirs: Request;
	/** The issue's targets: throughput at least this share of the reference's, p99 at most this multiple. */
	target?: { rps: number; p99?: number };
}

/** What both sides read: one share (hot), or a file of slugs for each side (spread). */
type Shares =
	| { load: "hot"; ours: string; theirs: string }
	| { load: "spread"; ours: string; theirs: string };

function pairsFor(db: Database, shares: Shares): Pair[] {
	const refDb = `fastify-db DB=${db}`;
	const load = shares.load;
	const link = (slugOrFile: string): Omit<Request, "method"> =>
		load === "hot"
			? { path: `/api/public/links/${slugOrFile}` }
			: { path: "/api/public/links/", slugs: slugOrFile };
	// The spread load is the share paths' only: the server pairs answer the same body for any slug.
	const all: Pair[] = [
		{
			id: "server/static",
			load,
			ours: { method: "GET", path: "/api/server" },
			reference: "fastify-static",
			// Its only route; it answers the fixed body for any slug.
			theirs: { method: "GET", path: "/api/public/links/x" },
			target: { rps: 0.85 },
		},
		{
			id: "server/bare",
			load,
			ours: { method: "GET", path: "/api/server" },
			reference: "bare",
			theirs: { method: "GET", path: "/" },
		},
		{
			id: "probe",
			load,
			ours: { method: "GET", ...link(shares.ours) },
			reference: refDb,
			theirs: { method: "GET", ...link(shares.theirs) },
			// Issue 37: spread over many shares, at least 90% and a p99 at most 1.5× the reference's.
			target: load === "hot" ? { rps: 1, p99: 2 } : { rps: 0.9, p99: 1.5 },
		},
		{
			id: "resolve",
			load,
			ours: { method: "POST", ...link(shares.ours) },
			reference: refDb,
			theirs: { method: "POST", ...link(shares.theirs) },
			target: load === "hot" ? { rps: 1, p99: 2 } : { rps: 1, p99: 1.5 },
		},
	];
	return all.filter((p) => pairs.includes(p.id) && (load === "hot" || !p.id.startsWith("server/")));
}

function wrk(url: string, req: Request, seconds = duration): Promise<WrkResult> {
	const { method, path: reqPath, slugs } = req;
	const script = slugs ? spreadScript : hotScript;
	return runWrk({
		url,
		method,
		path: reqPath,
		connections,
		duration: seconds,
		script,
		...(slugs ? { scriptArgs: [slugs] } : {}),
	});
}

/** User + system CPU time of a process in ms, from /proc (Linux; clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
	try {
		const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
		return (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		return Number.NaN;
	}
}

/** A wrk run of `pid`'s server, with that process's CPU time per request in µs. */
async function measure(
	pid: number | undefined,
	url: string,
	req: Request,
): Promise<WrkResult & { cpuUs: number }> {
	const before = cpuMs(pid);
	const result = await wrk(url, req);
	return { ...result, cpuUs: ((cpuMs(pid) - before) * 1000) / Math.max(1, result.requests) };
}

/** Resident memory of a process in MiB, from /proc (Linux). */
function rssMiB(pid: number | undefined): number | undefined {
	try {
		const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
		return kb ? Number(kb[1]) / 1024 : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The first slug of the seeded list whose link has no view cap (seed.mjs caps every other one at
 * 10⁹ views), asked of the reference itself, so its resolve never answers 410.
 */
async function uncappedSlug(referenceUrl: string): Promise<string> {
	const slugs = fs.readFileSync(perf.SLUGS_PATH, "utf8").split("\n").slice(0, 20);
	for (const slug of slugs) {
		const res = await fetch(`${referenceUrl}/api/public/links/${slug}`);
		if (res.ok && ((await res.json()) as { maxViews: number | null }).maxViews === null) return slug;
	}
	throw new Error(
		`no uncapped link among the first slugs of ${perf.SLUGS_PATH}: reseed with SEED=1 ./setup.sh`,
	);
}

type Run = WrkResult & { cpuUs: number };
interface Measured {
	pair: Pair;
	ours: Run[];
	theirs: Run[];
}
interface DbResult {
	db: Database;
	rows: Measured[];
	rssIdle?: number | undefined;
	rssAfter?: number | undefined;
	/** `--memory`: RSS before and after that many seconds of spread resolves, and their figures. */
	memory?: { seconds: number; before?: number | undefined; after?: number | undefined; run: WrkResult };
	seeded?: { count: number; ms: number };
}

async function measureDb(db: Database, referenceUrls: Record<string, string>): Promise<DbResult> {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-ref-"));
	const pg = values.pg ?? pgUrl(perf.PG);
	const schema = `bench_ref_${process.pid}`;
	const env = oursEnv(db, dataDir, pg, schema);
	const ours = await startServer(env, "dist/src/main.js");
	const result: DbResult = { db, rows: [], rssIdle: rssMiB(ours.child.pid) };
	try {
		const sharesOf: Shares[] = [];
		if (chosenLoads.includes("hot")) {
			const { slug } = await shareFixture(ours.url, env);
			const refSlug = await uncappedSlug(referenceUrls[`fastify-db DB=${db}`] as string);
			sharesOf.push({ load: "hot", ours: slug, theirs: refSlug });
		}
		const spreadWanted =
			chosenLoads.includes("spread") && pairs.some((p) => p === "probe" || p === "resolve");
		if (spreadWanted || memorySeconds > 0) {
			const store = await openStore(loadConfig(env));
			try {
				const seeded = await seedShares(store.db, shareCount, 5);
				result.seeded = { count: seeded.slugs.length, ms: seeded.ms };
				fs.writeFileSync(path.join(dataDir, "spread-ours.txt"), `${seeded.slugs.join("\n")}\n`);
			} finally {
				await store.destroy();
			}
			// The reference's seeded slugs: half have no cap, half a cap of 10⁹ views no run reaches.
			const theirs = fs.readFileSync(perf.SLUGS_PATH, "utf8").split("\n").slice(0, shareCount);
			fs.writeFileSync(path.join(dataDir, "spread-theirs.txt"), `${theirs.join("\n")}\n`);
			process.stderr.write(`${db}: ${shareCount} shares seeded in ${result.seeded.ms} ms\n`);
			if (spreadWanted) {
				sharesOf.push({
					load: "spread",
					ours: path.join(dataDir, "spread-ours.txt"),
					theirs: path.join(dataDir, "spread-theirs.txt"),
				});
			}
		}
		const measured = sharesOf.flatMap((shares) =>
			pairsFor(db, shares).map((pair): Measured => ({ pair, ours: [], theirs: [] })),
		);
		const urlOf = (pair: Pair) => referenceUrls[pair.reference] as string;
		const refPid = (pair: Pair) => referencePids[pair.reference];
		// Warm both sides of every pair (JIT, statement caches, pools); not counted.
		for (const { pair } of measured) {
			await wrk(ours.url, pair.ours, Math.min(2, duration));
			await wrk(urlOf(pair), pair.theirs, Math.min(2, duration));
		}
		for (let run = 1; run <= runs; run++) {
			for (const m of measured) {
				// Ours first in odd runs, the reference first in even ones: neither side always follows.
				const sides = [
					async () => m.ours.push(await measure(ours.child.pid, ours.url, m.pair.ours)),
					async () => m.theirs.push(await measure(refPid(m.pair), urlOf(m.pair), m.pair.theirs)),
				];
				if (run % 2 === 0) sides.reverse();
				for (const side of sides) await side();
				const [o, t] = [m.ours.at(-1), m.theirs.at(-1)];
				process.stderr.write(
					`${db} run ${run} ${m.pair.load} ${m.pair.id}: ours ${o?.rps.toFixed(0)} req/s p99 ${o?.p99} ms, ${m.pair.reference} ${t?.rps.toFixed(0)} req/s p99 ${t?.p99} ms (${(((o?.rps ?? 0) / (t?.rps ?? 1)) * 100).toFixed(0)}%)\n`,
				);
			}
		}
		result.rows = measured;
		result.rssAfter = rssMiB(ours.child.pid);
		if (memorySeconds > 0) {
			// Resident memory under spread resolves: settle, read, load, read.
			await new Promise((r) => setTimeout(r, 2000));
			const before = rssMiB(ours.child.pid);
			const run = await wrk(
				ours.url,
				{
					method: "POST",
					path: "/api/public/links/",
					slugs: path.join(dataDir, "spread-ours.txt"),
				},
				memorySeconds,
			);
			result.memory = { seconds: memorySeconds, before, after: rssMiB(ours.child.pid), run };
		}
	} finally {
		await ours.stop();
		fs.rmSync(dataDir, { recursive: true, force: true });
		if (db === "pg") await dropSchema(pg, schema);
	}
	return result;
}

async function dropSchema(url: string, schema: string) {
	const { default: pg } = await import("pg");
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	try {
		await client.query(`drop schema if exists "${schema}" cascade`);
	} finally {
		await client.end();
	}
}

// ---- the run ----

const loadBefore = os.loadavg()[0] ?? 0;
const references = [
	startReference("bare", "bare.mjs"),
	startReference("fastify-static", "fastify-static.mjs"),
	...dbs.map((db) => startReference(`fastify-db DB=${db}`, "fastify-db.mjs", { DB: db, QB: "raw" })),
];
const started = await Promise.allSettled(references);
const servers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
const results: DbResult[] = [];
const referencePids: Record<string, number | undefined> = {};
try {
	const failed = started.find((s) => s.status === "rejected");
	if (failed) throw failed.reason;
	const urls = Object.fromEntries(servers.map((s) => [s.name, s.url]));
	for (const s of servers) referencePids[s.name] = s.child.pid;
	for (const db of dbs) results.push(await measureDb(db, urls));
} finally {
	await Promise.all(servers.map((s) => s.stop()));
}

// ---- the report ----

const median = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
const bad = (rs: WrkResult[]) => rs.reduce((n, r) => n + r.errors + r.non2xx, 0);
const mib = (x: number | undefined) => (x === undefined ? "n/a" : `${x.toFixed(0)} MiB`);

const cpus = os.cpus();
console.log(
	`\n${new Date().toISOString()} · ${cpus.length} × ${cpus[0]?.model ?? "cpu"} · node ${process.version} · wrk -t1 -c${connections} -d${duration}s --latency -s xff-pool.lua (hot) / xff-spread.lua over ${shareCount} shares (spread) · ${runs} run(s), medians · load average ${loadBefore.toFixed(1)} before, ${(os.loadavg()[0] ?? 0).toFixed(1)} after`,
);
const invalid: string[] = [];
for (const { db, rows, rssIdle, rssAfter, memory, seeded } of results) {
	console.log(`\n#### ${db === "sqlite" ? "SQLite" : "PostgreSQL"}\n`);
	console.log(
		"| load | ours | reference | ours req/s | reference req/s | ratio | target | ours p99 ms | reference p99 ms | p99 ratio | target | CPU µs/req, ours / reference | errors + non-2xx, ours / reference |",
	);
	console.log("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |");
	for (const { pair, ours, theirs } of rows) {
		const [rps, refRps] = [median(ours.map((r) => r.rps)), median(theirs.map((r) => r.rps))];
		const [p99, refP99] = [median(ours.map((r) => r.p99)), median(theirs.map((r) => r.p99))];
		const ratio = rps / refRps;
		const p99Ratio = p99 / refP99;
		const verdict = (ok: boolean) => (ok ? "met" : "missed");
		const t = pair.target;
		const rpsTarget = t ? `≥ ${t.rps * 100}%: ${verdict(ratio >= t.rps)}` : "";
		const p99Target = t?.p99 ? `≤ ${t.p99}×: ${verdict(p99Ratio <= t.p99)}` : "";
		const cpu = `${median(ours.map((r) => r.cpuUs)).toFixed(0)} / ${median(theirs.map((r) => r.cpuUs)).toFixed(0)}`;
		const shown = (r: Request) => `${r.method} ${r.path.replace(/links\/[^/]*$/, "links/{slug}")}`;
		console.log(
			`| ${pair.load} | ${shown(pair.ours)} | ${pair.reference} ${shown(pair.theirs)} | ${rps.toFixed(0)} | ${refRps.toFixed(0)} | ${(ratio * 100).toFixed(0)}% | ${rpsTarget} | ${ms(p99)} | ${ms(refP99)} | ${p99Ratio.toFixed(2)}× | ${p99Target} | ${cpu} | ${bad(ours)} / ${bad(theirs)} |`,
		);
		if (bad(ours) > 0) invalid.push(`${db} ${pair.id}: our server answered errors or non-2xx`);
		if (bad(theirs) > 0) invalid.push(`${db} ${pair.id}: ${pair.reference} answered errors or non-2xx`);
	}
	if (seeded)
		console.log(`\n${seeded.count} shares of 5 records seeded for the spread load in ${seeded.ms} ms.`);
	console.log(
		`\nOur server's resident memory (VmRSS): ${mib(rssIdle)} right after start, ${mib(rssAfter)} after the load.`,
	);
	if (memory) {
		const growth = rssIdle && memory.after ? memory.after / rssIdle : Number.NaN;
		console.log(
			`Memory: ${mib(rssIdle)} idle (right after start), ${mib(memory.before)} before ${memory.seconds} s of spread resolves (${memory.run.rps.toFixed(0)} req/s, p99 ${ms(memory.run.p99)} ms), ${mib(memory.after)} after: ${growth.toFixed(2)}× idle (target ≤ 1.5×: ${growth <= 1.5 ? "met" : "missed"}).`,
		);
		if (memory.run.errors + memory.run.non2xx > 0) invalid.push(`${db} memory load: errors or non-2xx`);
	}
}
if (invalid.length > 0) {
	console.error(`\nINVALID, these figures do not count:\n${invalid.map((i) => `  - ${i}`).join("\n")}`);
	process.exitCode = 1;
}
