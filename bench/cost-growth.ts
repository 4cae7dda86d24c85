// How the cost of a share read grows (issue 37): probe and resolve throughput and p99 against the
// number of shares, the records per share and the concurrent connections, on SQLite and on
// PostgreSQL, each point beside the reference server (`fastify-db.mjs`, ../shared/perf) driven the
// same way in the same run; and the list of 100k records with a `~` filter, with and without its
// total. Writes a markdown table and an SVG chart (drawn here, from the figures) next to it.
//   npm run build && node --import tsx bench/cost-growth.ts [--only sqlite|pg] [--duration 4]
//     [--shares 1000,10000,100000,1000000] [--records 1,5,50,500] [--records-shares 200]
//     [--connections 10,50,200,1000] [--list 100000] [--pg postgres://…] [--out bench/cost-growth]
// The spread load (lua/xff-spread.lua): a share per request, round robin over the point's shares;
// the reference over as many of its seeded slugs (it has 100,000, of 5 items each, so its side of
// the records axis is its 5-item figure; a step past 100,000 gets a reference with as many links,
// copies of its own, `largeReference`). The script's pool holds 60,000
// requests, so a point past 60,000 shares reads 60,000 of them on both sides: the slug files of
// the shares axis are shuffled (`shuffled`, the same order every run), so those are spread over the
// whole table and not its first-made rows. Shares are added, not replaced: the point at 10,000 reads
// over the first 10,000 shares of a table that holds them all, and so on. The records axis and the
// connections axis are measured at `--records-shares` shares and at 10,000 shares (the first
// `--shares` point of at least 10,000) respectively. Figures are never asserted; a point with any
// error or non-2xx answer is marked.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { startServer } from "../test/helpers/process.ts";
import {
	loadPerfConfig,
	missingSetup,
	oursEnv,
	perfDir,
	pgUrl,
	startReference,
} from "./reference-servers.ts";
import { seedRecords } from "./seed-records.ts";
import { seedShares } from "./seed-shares.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

const { values } = parseArgs({
	options: {
		only: { type: "string", multiple: true },
		duration: { type: "string", default: "4" },
		shares: { type: "string", default: "1000,10000,100000,1000000" },
		records: { type: "string", default: "1,5,50,500" },
		"records-shares": { type: "string", default: "200" },
		connections: { type: "string", default: "10,50,200,1000" },
		list: { type: "string", default: "100000" },
		pg: { type: "string" },
		out: { type: "string", default: "bench/cost-growth" },
	},
});
const numbers = (s: string) =>
	s
		.split(",")
		.map(Number)
		.filter((n) => n > 0);
const duration = Number(values.duration);
const shareSteps = numbers(values.shares).sort((a, b) => a - b);
const recordSteps = numbers(values.records);
const recordsShares = Number(values["records-shares"]);
const connectionSteps = numbers(values.connections);
const listRecords = Number(values.list);
const dbs = (["sqlite", "pg"] as const).filter((d) => !values.only?.length || values.only.includes(d));
const dbName = { sqlite: "SQLite", pg: "PostgreSQL" } as const;
const BASE_CONNECTIONS = 50;
const CONNECTIONS_AT = shareSteps.find((n) => n >= 10_000) ?? shareSteps.at(-1) ?? 0;

const missing = await missingSetup(dbs.includes("pg"));
if (missing.length > 0) {
	console.error(`The reference servers in ${perfDir} are not set up (cd ../shared/perf && ./setup.sh):`);
	for (const m of missing) console.error(`  - ${m}`);
	process.exit(2);
}
if (!fs.existsSync(path.resolve(import.meta.dirname, "../dist/src/main.js"))) {
	console.error("run `npm run build` first: the compiled server is measured");
	process.exit(2);
}
const perf = await loadPerfConfig();
const spreadScript = path.join(perfDir, "lua/xff-spread.lua");
const authScript = path.resolve(import.meta.dirname, "wrk-auth.lua");
const theirSlugs = fs.readFileSync(perf.SLUGS_PATH, "utf8").split("\n").filter(Boolean);

type Load = "probe" | "resolve";
type Axis = "shares" | "records" | "connections";
interface Point {
	db: (typeof dbs)[number];
	axis: Axis;
	x: number;
	load: Load;
	ours: WrkResult;
	reference?: WrkResult;
}
interface ListPoint {
	db: (typeof dbs)[number];
	total: boolean;
	result: WrkResult;
	items: number;
}
const points: Point[] = [];
const lists: ListPoint[] = [];
const seeding: string[] = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cost-growth-"));

function slugFile(name: string, slugs: string[]): string {
	const file = path.join(tmp, name);
	fs.writeFileSync(file, `${slugs.join("\n")}\n`);
	return file;
}

/** `slugs` in an order fixed by a seeded generator (mulberry32): the same sample every run. */
function shuffled(slugs: readonly string[]): string[] {
	const out = [...slugs];
	let seed = 37;
	const random = () => {
		seed = (seed + 0x6d2b79f5) | 0;
		let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[out[i], out[j]] = [out[j] as string, out[i] as string];
	}
	return out;
}

const method = (load: Load) => (load === "probe" ? "GET" : "POST");
function spread(url: string, load: Load, file: string, connections = BASE_CONNECTIONS): Promise<WrkResult> {
	return runWrk({
		url,
		method: method(load),
		path: "/api/public/links/",
		connections,
		duration,
		script: spreadScript,
		scriptArgs: [file],
	});
}

async function measureDb(db: (typeof dbs)[number], referenceUrl: string) {
	const dataDir = fs.mkdtempSync(path.join(tmp, "data-"));
	const pg = values.pg ?? pgUrl(perf.PG);
	const schema = `bench_growth_${process.pid}`;
	const env = oursEnv(db, dataDir, pg, schema);
	const ours = await startServer(env, "dist/src/main.js");
	const store = await openStore(loadConfig(env));
	// The seeding connection's page cache (the server's own is unchanged): with random ids most
	// index pages leave SQLite's default 2 MB between two inserts (109,000 shares: 52 s → 41 s).
	if (db === "sqlite") await sql`pragma cache_size = -262144`.execute(store.db);
	const log = (line: string) => process.stderr.write(`${db}: ${line}\n`);
	/** One point of each load, ours then the reference's (when given a slug file of theirs). */
	const pair = async (
		axis: Axis,
		x: number,
		file: string,
		refFile?: string,
		connections?: number,
		refUrl = referenceUrl,
	) => {
		for (const load of ["probe", "resolve"] as const) {
			await spread(ours.url, load, file, connections); // warm: JIT, caches, this point's pages
			const mine = await spread(ours.url, load, file, connections);
			if (refFile && refUrl !== referenceUrl) await spread(refUrl, load, refFile, connections); // warm theirs too
			const theirs = refFile ? await spread(refUrl, load, refFile, connections) : undefined;
			points.push({ db, axis, x, load, ours: mine, ...(theirs ? { reference: theirs } : {}) });
			log(
				`${axis} ${x} ${load}: ${mine.rps.toFixed(0)} req/s p99 ${mine.p99} ms` +
					(theirs ? `, reference ${theirs.rps.toFixed(0)} req/s p99 ${theirs.p99} ms` : ""),
			);
		}
	};
	try {
		// Records per share, at `recordsShares` shares each.
		for (const perShare of recordSteps) {
			const seeded = await seedShares(store.db, recordsShares, perShare);
			seeding.push(`${db}: ${recordsShares} shares of ${perShare} records in ${seeded.ms} ms`);
			const file = slugFile(`${db}-records-${perShare}.txt`, seeded.slugs);
			const refFile =
				perShare === 5 ? slugFile("ref-records.txt", theirSlugs.slice(0, recordsShares)) : undefined;
			await pair("records", perShare, file, refFile);
		}
		// Shares, added step by step; connections at CONNECTIONS_AT.
		const slugs: string[] = [];
		for (const step of shareSteps) {
			const seeded = await seedShares(store.db, step - slugs.length, 5);
			for (const slug of seeded.slugs) slugs.push(slug); // not push(...): a million arguments overflow the stack
			seeding.push(
				`${db}: ${seeded.slugs.length} shares of 5 records (to ${slugs.length}) in ${seeded.ms} ms`,
			);
			const file = slugFile(`${db}-shares-${step}.txt`, shuffled(slugs));
			if (step > theirSlugs.length) {
				// Past the reference's seeded links: a reference of its own with as many (largeReference).
				const large = await largeReference(db, step);
				const server = await startReference(
					`fastify-db DB=${db} (${step} links)`,
					"fastify-db.mjs",
					large.env,
				);
				try {
					const refFile = slugFile(`ref-shares-${step}.txt`, shuffled(large.slugs.slice(0, step)));
					await pair("shares", step, file, refFile, undefined, server.url);
				} finally {
					await server.stop();
				}
				continue;
			}
			const refFile = slugFile(`ref-shares-${step}.txt`, shuffled(theirSlugs.slice(0, step)));
			await pair("shares", step, file, refFile);
			if (step === CONNECTIONS_AT) {
				for (const c of connectionSteps) await pair("connections", c, file, refFile, c);
			}
		}
		// The list of `listRecords` records: a `~` filter, with the total counted and without.
		if (listRecords > 0) {
			const now = Date.now();
			const { accountId, workspaceId } = await createAccount(
				store.db,
				{ email: `list-${now}@bench.test` },
				now,
			);
			const { token } = await createSession(store.db, accountId, now);
			const ms = await seedRecords(store.db, workspaceId, listRecords, now);
			if (db === "pg") await sql`vacuum analyze records`.execute(store.db);
			seeding.push(`${db}: ${listRecords} records for the list in ${ms} ms`);
			const filter = encodeURIComponent(`name ~ "123"`);
			for (const total of [true, false]) {
				const listPath = `/api/collections/records/records?filter=${filter}&perPage=20${total ? "" : "&skipTotal=1"}`;
				const probe = await fetch(`${ours.url}${listPath}`, {
					headers: { authorization: `Bearer ${token}` },
				});
				const body = (await probe.json()) as { items?: unknown[]; totalItems?: number };
				if (!probe.ok) throw new Error(`${listPath}: ${probe.status} ${JSON.stringify(body)}`);
				const load = {
					url: ours.url,
					method: "GET" as const,
					path: listPath,
					connections: 10,
					duration,
					script: authScript,
					scriptArgs: [token],
				};
				await runWrk(load);
				const result = await runWrk(load);
				lists.push({ db, total, result, items: body.items?.length ?? 0 });
				log(
					`list ${total ? "with total" : "skipTotal"}: ${result.rps.toFixed(0)} req/s p99 ${result.p99} ms`,
				);
			}
		}
	} finally {
		await store.destroy();
		await ours.stop();
		if (db === "pg") {
			const { default: pgClient } = await import("pg");
			const client = new pgClient.Client({ connectionString: pg });
			await client.connect();
			await client.query(`drop schema if exists "${schema}" cascade`);
			await client.end();
		}
	}
}

/**
 * The reference for a step past the links it was seeded with (100,000): its own data, copied. Its
 * seed.mjs cannot make a million links here (it holds every row in memory and ran out of a 12 GB
 * heap), so the 100,000 seeded links and their items are copied, as SQL of the same shape, until
 * there are `links`: each copy the same rows with new ids and a new slug, still 12 characters, its
 * first two "-" and the copy's digit (no seeded slug has a "-"). SQLite: a copy of its file
 * (`VACUUM INTO`) in a data directory of its own (PERF_DATA_DIR); PostgreSQL: a schema of its own
 * in its database (PGOPTIONS' search_path), `LIKE` its tables with their indexes. Made once and
 * kept for the next run. Answers its slugs and the environment its server reads.
 */
async function largeReference(db: (typeof dbs)[number], links: number) {
	const seeded = theirSlugs.length;
	const copies = Math.ceil(links / seeded) - 1;
	if (copies > 9) throw new Error(`at most ${seeded * 10} links: a copy's slug carries one digit`);
	const dataDir = path.join(os.tmpdir(), `perf-anchors-${links}`);
	const schema = `links_${links}`;
	const env = { DB: db, QB: "raw", PERF_DATA_DIR: dataDir, PGOPTIONS: `-c search_path=${schema}` };
	const marker = path.join(dataDir, `seeded-${db}`);
	const linkColumns =
		"status, title, description, owner_id, content_type, size_bytes, max_views, view_count, requires_password, created_at, expires_at, updated_at";
	const itemColumns = "position, kind, name, mime, size_bytes, sha256, storage_key, created_at";
	/** The statements that add copy `k` (ids moved past every original one). */
	const copy = (k: number, prefix = "") => [
		`insert into ${prefix}links (id, slug, ${linkColumns}) select id + ${k * 10_000_000}, '-${k}' || substr(slug, 3), ${linkColumns} from ${db === "pg" ? "public." : ""}links where id <= ${seeded}`,
		`insert into ${prefix}link_items (id, link_id, ${itemColumns}) select id + ${k * 50_000_000}, link_id + ${k * 10_000_000}, ${itemColumns} from ${db === "pg" ? "public." : ""}link_items where link_id <= ${seeded}`,
	];
	if (!fs.existsSync(marker)) {
		const began = performance.now();
		fs.mkdirSync(dataDir, { recursive: true });
		if (db === "sqlite") {
			const { default: Database } = await import("better-sqlite3");
			const target = path.join(dataDir, "links.db");
			for (const f of [target, `${target}-wal`, `${target}-shm`]) fs.rmSync(f, { force: true });
			const source = new Database(perf.SQLITE_PATH, { readonly: true });
			source.prepare("vacuum into ?").run(target);
			source.close();
			const large = new Database(target);
			large.pragma("journal_mode = WAL");
			large.transaction(() => {
				for (let k = 1; k <= copies; k++) for (const statement of copy(k)) large.exec(statement);
			})();
			large.exec("analyze");
			large.pragma("wal_checkpoint(TRUNCATE)");
			large.close();
		} else {
			const { default: pgClient } = await import("pg");
			const client = new pgClient.Client({ connectionString: pgUrl(perf.PG) });
			await client.connect();
			try {
				await client.query(`create schema if not exists "${schema}"`);
				const s = `"${schema}".`;
				await client.query(`drop table if exists ${s}link_items; drop table if exists ${s}links`);
				await client.query(`create table ${s}links (like public.links including all)`);
				await client.query(`create table ${s}link_items (like public.link_items including all)`);
				await client.query(`insert into ${s}links select * from public.links where id <= ${seeded}`);
				await client.query(
					`insert into ${s}link_items select * from public.link_items where link_id <= ${seeded}`,
				);
				for (let k = 1; k <= copies; k++) for (const statement of copy(k, s)) await client.query(statement);
				await client.query(`vacuum analyze ${s}links`);
				await client.query(`vacuum analyze ${s}link_items`);
			} finally {
				await client.end();
			}
		}
		const slugs = [...theirSlugs];
		for (let k = 1; k <= copies; k++) for (const slug of theirSlugs) slugs.push(`-${k}${slug.slice(2)}`);
		fs.writeFileSync(path.join(dataDir, "slugs.txt"), `${slugs.join("\n")}\n`);
		fs.writeFileSync(marker, `${slugs.length}\n`);
		seeding.push(
			`${db}: the reference's ${seeded} links and their items copied to ${slugs.length} in ${Math.round(performance.now() - began)} ms`,
		);
	}
	const slugs = fs.readFileSync(path.join(dataDir, "slugs.txt"), "utf8").split("\n").filter(Boolean);
	return { env, slugs };
}

const loadBefore = os.loadavg()[0] ?? 0;
const began = Date.now();
for (const db of dbs) {
	const reference = await startReference(`fastify-db DB=${db}`, "fastify-db.mjs", { DB: db, QB: "raw" });
	try {
		await measureDb(db, reference.url);
	} finally {
		await reference.stop();
	}
	// Written after each database, so a run stopped during the next one keeps what it measured.
	writeReport();
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(fs.readFileSync(`${values.out}.md`, "utf8"));
console.log(`written: ${values.out}.md, ${values.out}.svg`);

// ---- the table ----

/** The markdown table and the chart of what was measured so far. */
function writeReport(): void {
	const bad = (r: WrkResult) => r.errors + r.non2xx;
	const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
	const lines: string[] = [];
	const cpu = os.cpus()[0]?.model.trim() ?? "cpu";
	lines.push(
		`${new Date().toISOString()} · ${os.cpus().length} × ${cpu} · node ${process.version} · wrk -t1 -d${duration}s --latency, ` +
			`lua/xff-spread.lua, ${BASE_CONNECTIONS} connections unless the axis says · load average ${loadBefore.toFixed(1)} before, ` +
			`${(os.loadavg()[0] ?? 0).toFixed(1)} after · ${((Date.now() - began) / 60_000).toFixed(1)} min`,
		"",
		"| database | axis | value | load | ours req/s | reference req/s | ratio | ours p99 ms | reference p99 ms | p99 ratio | errors + non-2xx, ours / reference |",
		"| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
	);
	for (const p of points) {
		const r = p.reference;
		lines.push(
			`| ${dbName[p.db]} | ${p.axis} | ${p.x.toLocaleString("en")} | ${p.load} | ${p.ours.rps.toFixed(0)} | ${r ? r.rps.toFixed(0) : ""} | ` +
				`${r ? `${((p.ours.rps / r.rps) * 100).toFixed(0)}%` : ""} | ${ms(p.ours.p99)} | ${r ? ms(r.p99) : ""} | ` +
				`${r ? `${(p.ours.p99 / r.p99).toFixed(2)}×` : ""} | ${bad(p.ours)}${r ? ` / ${bad(r)}` : ""} |`,
		);
	}
	if (lists.length > 0) {
		lines.push(
			"",
			`The list (\`GET /api/collections/records/records?filter=name ~ "123"&perPage=20\`, signed in, 10 connections) of ${listRecords.toLocaleString("en")} records; no reference server lists:`,
			"",
			"| database | total | req/s | p99 ms | items on the page | errors + non-2xx |",
			"| --- | --- | ---: | ---: | ---: | ---: |",
		);
		for (const l of lists) {
			lines.push(
				`| ${dbName[l.db]} | ${l.total ? "counted" : "skipped (`skipTotal=1`)"} | ${l.result.rps.toFixed(0)} | ${ms(l.result.p99)} | ${l.items} | ${bad(l.result)} |`,
			);
		}
	}
	lines.push("", "Seeding:", "", ...seeding.map((s) => `- ${s}`), "");
	fs.writeFileSync(`${values.out}.md`, `${lines.join("\n")}\n`);
	fs.writeFileSync(`${values.out}.svg`, chart(points));
}

// ---- the chart: one panel per axis and measure, a line per database and load ----

function chart(all: Point[]): string {
	const axes: Axis[] = ["shares", "records", "connections"];
	const rows = [
		{ key: "rps", load: "probe", label: "probe, requests/s" },
		{ key: "rps", load: "resolve", label: "resolve, requests/s" },
		{ key: "p99", load: "probe", label: "probe, p99 ms" },
		{ key: "p99", load: "resolve", label: "resolve, p99 ms" },
	] as const;
	const colours: Record<string, string> = { sqlite: "#1f77b4", pg: "#d62728" };
	const colour = (db: string) => colours[db] ?? "#444";
	const W = 320;
	const H = 190;
	const pad = { l: 58, r: 14, t: 26, b: 34 };
	const out: string[] = [];
	const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
	rows.forEach((measure, row) => {
		axes.forEach((axis, col) => {
			const ox = col * W;
			const oy = row * H + 30;
			const pts = all.filter((p) => p.axis === axis && p.load === measure.load);
			const xs = [...new Set(pts.map((p) => p.x))].sort((a, b) => a - b);
			const value = (r: WrkResult) => (measure.key === "rps" ? r.rps : r.p99);
			const maxY = Math.max(
				1,
				...pts.flatMap((p) => [value(p.ours), ...(p.reference ? [value(p.reference)] : [])]),
			);
			const px = (x: number) =>
				ox + pad.l + (xs.length <= 1 ? 0.5 : xs.indexOf(x) / (xs.length - 1)) * (W - pad.l - pad.r);
			const py = (y: number) => oy + H - pad.b - (y / maxY) * (H - pad.t - pad.b);
			out.push(
				`<text x="${ox + pad.l}" y="${oy + 16}" font-size="12" font-weight="bold">${esc(`${measure.label} by ${axis}`)}</text>`,
				`<line x1="${ox + pad.l}" y1="${py(0)}" x2="${ox + W - pad.r}" y2="${py(0)}" stroke="#888"/>`,
				`<line x1="${ox + pad.l}" y1="${py(0)}" x2="${ox + pad.l}" y2="${py(maxY)}" stroke="#888"/>`,
			);
			for (const t of [0, 0.5, 1]) {
				const label = maxY * t < 10 ? (maxY * t).toFixed(1) : Math.round(maxY * t).toLocaleString("en");
				out.push(
					`<text x="${ox + pad.l - 4}" y="${py(maxY * t) + 4}" font-size="10" text-anchor="end">${label}</text>`,
				);
			}
			for (const x of xs) {
				out.push(
					`<text x="${px(x)}" y="${py(0) + 14}" font-size="10" text-anchor="middle">${x.toLocaleString("en")}</text>`,
				);
			}
			for (const db of dbs) {
				const mine = pts.filter((p) => p.db === db);
				const line = (get: (p: Point) => WrkResult | undefined, dashed: boolean) => {
					const coords = mine.flatMap((p) => {
						const r = get(p);
						return r ? [[px(p.x).toFixed(1), py(value(r)).toFixed(1)]] : [];
					});
					if (coords.length === 0) return;
					out.push(
						`<polyline fill="none" stroke="${colour(db)}" stroke-width="${dashed ? 1 : 2}"${dashed ? ' stroke-dasharray="4 3"' : ""} points="${coords.map((c) => c.join(",")).join(" ")}"/>`,
					);
					for (const [cx, cy] of coords) {
						out.push(`<circle cx="${cx}" cy="${cy}" r="${dashed ? 2 : 3}" fill="${colour(db)}"/>`);
					}
				};
				line((p) => p.ours, false);
				line((p) => p.reference, true);
			}
		});
	});
	const legend = dbs.map(
		(db, i) =>
			`<rect x="${10 + i * 130}" y="8" width="12" height="12" fill="${colour(db)}"/><text x="${26 + i * 130}" y="18" font-size="12">${dbName[db]}</text>`,
	);
	legend.push(
		`<text x="${10 + dbs.length * 130}" y="18" font-size="12">solid: ours · dashed: the reference (fastify-db.mjs) in the same run · x: the axis's values, evenly spaced</text>`,
	);
	const width = axes.length * W;
	const height = rows.length * H + 40;
	return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">
<title>How the cost of a share read grows: probe and resolve throughput and p99 by shares, records per share and connections, ours beside the reference</title>
<rect width="100%" height="100%" fill="white"/>
${[...legend, ...out].join("\n")}
</svg>
`;
}
