// Our server beside the hand-written reference servers of ../shared/perf (PERF_DIR), driven by the
// same load generator (wrk) with the same script (lua/xff-pool.lua: every request its own
// X-Forwarded-For), in one run, on SQLite and on PostgreSQL; each figure printed as a ratio to its
// reference, next to the issue's targets. Usage:
//   npm run bench:reference [-- --duration 10 --runs 3 --connections 50 --pg postgres://… --only probe]
// `--only` (repeatable) takes a database (sqlite, pg) or a pair (server/static, server/bare, probe,
// resolve). Without --pg, our PostgreSQL server runs in a schema of its own in the reference's database.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "../test/helpers/process.ts";
import { loadPerfConfig, missingSetup, perfDir, pgUrl, startReference } from "./reference-servers.ts";
import { shareFixture } from "./share-fixture.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

const { values } = parseArgs({
	options: {
		duration: { type: "string", default: "10" },
		runs: { type: "string", default: "3" },
		connections: { type: "string", default: "50" },
		pg: { type: "string" },
		only: { type: "string", multiple: true },
	},
});
const duration = Number(values.duration);
const runs = Number(values.runs);
const connections = Number(values.connections);

const databases = ["sqlite", "pg"] as const;
type Database = (typeof databases)[number];
const pairIds = ["server/static", "server/bare", "probe", "resolve"] as const;
const only = values.only ?? [];
const unknown = only.filter((o) => !(databases as readonly string[]).concat(pairIds).includes(o));
if (unknown.length > 0) {
	console.error(`--only ${unknown.join(", ")}: expected one of ${[...databases, ...pairIds].join(", ")}`);
	process.exit(2);
}
const pick = <T extends string>(all: readonly T[]) =>
	all.some((x) => only.includes(x)) ? all.filter((x) => only.includes(x)) : [...all];
const dbs = pick(databases);
const pairs = pick(pairIds);

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
const script = path.join(perfDir, "lua/xff-pool.lua");

// ---- what is measured ----

interface Request {
	method: "GET" | "POST";
	path: string;
}
interface Pair {
	id: (typeof pairIds)[number];
	ours: Request;
	reference: string;
	theirs: Request;
	/** The issue's targets: throughput at least this share of the reference's, p99 at most this multiple. */
	target?: { rps: number; p99?: number };
}

function pairsFor(db: Database, ourSlug: string, refSlug: string): Pair[] {
	const refDb = `fastify-db DB=${db}`;
	const all: Pair[] = [
		{
			id: "server/static",
			ours: { method: "GET", path: "/api/server" },
			reference: "fastify-static",
			// Its only route; it answers the fixed body for any slug.
			theirs: { method: "GET", path: `/api/public/links/${refSlug}` },
			target: { rps: 0.85 },
		},
		{
			id: "server/bare",
			ours: { method: "GET", path: "/api/server" },
			reference: "bare",
			theirs: { method: "GET", path: "/" },
		},
		{
			id: "probe",
			ours: { method: "GET", path: `/api/public/links/${ourSlug}` },
			reference: refDb,
			theirs: { method: "GET", path: `/api/public/links/${refSlug}` },
			target: { rps: 0.8, p99: 2 },
		},
		{
			id: "resolve",
			ours: { method: "POST", path: `/api/public/links/${ourSlug}` },
			reference: refDb,
			theirs: { method: "POST", path: `/api/public/links/${refSlug}` },
			target: { rps: 0.8, p99: 2 },
		},
	];
	return all.filter((p) => pairs.includes(p.id));
}

function wrk(url: string, req: Request, seconds = duration): Promise<WrkResult> {
	return runWrk({ url, ...req, connections, duration: seconds, script });
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

interface Measured {
	pair: Pair;
	ours: WrkResult[];
	theirs: WrkResult[];
}
interface DbResult {
	db: Database;
	rows: Measured[];
	rssIdle?: number | undefined;
	rssAfter?: number | undefined;
}

async function measureDb(db: Database, referenceUrls: Record<string, string>): Promise<DbResult> {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-ref-"));
	const pg = values.pg ?? pgUrl(perf.PG);
	const schema = `bench_ref_${process.pid}`;
	const env: Record<string, string> = {
		DATA_DIR: dataDir,
		HOST: "127.0.0.1",
		LOG_LEVEL: "info",
		TRUST_PROXY: "true",
		...(db === "pg" ? { DATABASE_URL: pg, DATABASE_SCHEMA: schema } : {}),
	};
	const ours = await startServer(env, "dist/src/main.js");
	const result: DbResult = { db, rows: [], rssIdle: rssMiB(ours.child.pid) };
	try {
		const { slug } = await shareFixture(ours.url, env);
		const refSlug = await uncappedSlug(referenceUrls[`fastify-db DB=${db}`] as string);
		const measured = pairsFor(db, slug, refSlug).map((pair): Measured => ({ pair, ours: [], theirs: [] }));
		const urlOf = (pair: Pair) => referenceUrls[pair.reference] as string;
		// Warm both sides of every pair (JIT, statement caches, pools); not counted.
		for (const { pair } of measured) {
			await wrk(ours.url, pair.ours, Math.min(2, duration));
			await wrk(urlOf(pair), pair.theirs, Math.min(2, duration));
		}
		for (let run = 1; run <= runs; run++) {
			for (const m of measured) {
				// Ours first in odd runs, the reference first in even ones: neither side always follows.
				const sides = [
					async () => m.ours.push(await wrk(ours.url, m.pair.ours)),
					async () => m.theirs.push(await wrk(urlOf(m.pair), m.pair.theirs)),
				];
				if (run % 2 === 0) sides.reverse();
				for (const side of sides) await side();
				process.stderr.write(
					`${db} run ${run} ${m.pair.id}: ours ${m.ours.at(-1)?.rps.toFixed(0)} req/s, ${m.pair.reference} ${m.theirs.at(-1)?.rps.toFixed(0)} req/s\n`,
				);
			}
		}
		result.rows = measured;
		result.rssAfter = rssMiB(ours.child.pid);
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
try {
	const failed = started.find((s) => s.status === "rejected");
	if (failed) throw failed.reason;
	const urls = Object.fromEntries(servers.map((s) => [s.name, s.url]));
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
	`\n${new Date().toISOString()} · ${cpus.length} × ${cpus[0]?.model ?? "cpu"} · node ${process.version} · wrk -t1 -c${connections} -d${duration}s --latency -s xff-pool.lua · ${runs} run(s), medians · load average ${loadBefore.toFixed(1)} before, ${(os.loadavg()[0] ?? 0).toFixed(1)} after`,
);
const invalid: string[] = [];
for (const { db, rows, rssIdle, rssAfter } of results) {
	console.log(`\n#### ${db === "sqlite" ? "SQLite" : "PostgreSQL"}\n`);
	console.log(
		"| ours | reference | ours req/s | reference req/s | ratio | target | ours p99 ms | reference p99 ms | p99 ratio | target | errors + non-2xx, ours / reference |",
	);
	console.log("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |");
	for (const { pair, ours, theirs } of rows) {
		const [rps, refRps] = [median(ours.map((r) => r.rps)), median(theirs.map((r) => r.rps))];
		const [p99, refP99] = [median(ours.map((r) => r.p99)), median(theirs.map((r) => r.p99))];
		const ratio = rps / refRps;
		const p99Ratio = p99 / refP99;
		const verdict = (ok: boolean) => (ok ? "met" : "missed");
		const t = pair.target;
		const rpsTarget = t ? `≥ ${t.rps * 100}%: ${verdict(ratio >= t.rps)}` : "";
		const p99Target = t?.p99 ? `≤ ${t.p99}×: ${verdict(p99Ratio <= t.p99)}` : "";
		console.log(
			`| ${pair.ours.method} ${pair.ours.path.replace(/links\/[^/]+$/, "links/{slug}")} | ${pair.reference} ${pair.theirs.method} ${pair.theirs.path.replace(/links\/[^/]+$/, "links/{slug}")} | ${rps.toFixed(0)} | ${refRps.toFixed(0)} | ${(ratio * 100).toFixed(0)}% | ${rpsTarget} | ${ms(p99)} | ${ms(refP99)} | ${p99Ratio.toFixed(2)}× | ${p99Target} | ${bad(ours)} / ${bad(theirs)} |`,
		);
		if (bad(ours) > 0) invalid.push(`${db} ${pair.id}: our server answered errors or non-2xx`);
		if (bad(theirs) > 0) invalid.push(`${db} ${pair.id}: ${pair.reference} answered errors or non-2xx`);
	}
	console.log(
		`\nOur server's resident memory (VmRSS): ${mib(rssIdle)} right after start, ${mib(rssAfter)} after the load.`,
	);
}
if (invalid.length > 0) {
	console.error(`\nINVALID, these figures do not count:\n${invalid.map((i) => `  - ${i}`).join("\n")}`);
	process.exitCode = 1;
}
