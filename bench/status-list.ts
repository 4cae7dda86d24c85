// What a status-list zip bomb costs a verifier (issue 35.1): attesters of other domains on loopback
// (test/helpers/fake-attester.ts, in a worker thread so that serving costs another event loop than
// the one measured) serve a signed list, one an honest 16 KiB list of zeros, the other `lst` =
// 140 MiB of zeros compressed (~254 KB as fetched, under the 256 KiB cap). The verifier is an app
// in this thread (SQLite).
//  1. The list read alone (`StatusListCache.read`, a fresh cache each run: fetch, signature,
//     inflate), honest and bomb, `--runs` times each: the time the event loop was busy
//     (`eventLoopUtilization().active`: running callbacks, not waiting; waiting for a core on a
//     busy machine is not counted), the longest event-loop stall (`monitorEventLoopDelay`, 1 ms
//     resolution; that one does count waiting for a core) and the peak growth of JavaScript memory
//     (heap + external, sampled every millisecond, over the baseline after a forced GC). Medians
//     and maxima.
//  2. `POST /api/attestations/verify` end to end on a fresh verifier (so the list is fetched),
//     honest and bomb: what the whole verification costs beside what the list adds.
//  3. Ten bomb verifications at once on a fresh verifier: one fetch between them.
//  4. For comparison, the old reading: `zlib.inflateSync` of the same list on the main thread.
// Usage: npm run bench:status-list [-- --runs 10 --mib 140]
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import zlib from "node:zlib";
import type { JWK } from "jose";
import { StatusListCache } from "../src/features/attestations/service.ts";
import { makeApp } from "../test/helpers/app.ts";
import { startDns } from "../test/helpers/dns.ts";
import { buildAccount, createIdentity } from "../test/helpers/factories.ts";
import { STATUS_PATH, zeros } from "../test/helpers/fake-attester.ts";

const { values } = parseArgs({
	options: { mib: { type: "string", default: "140" }, runs: { type: "string", default: "10" } },
});
const runs = Number(values.runs);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:status-list does)");

// tsx's loader is not inherited by a worker on Node 20: the worker registers it before loading.
const attesterModule = new URL("./status-list-attester.ts", import.meta.url).href;
const worker = new Worker(
	`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(attesterModule)}); });`,
	{ eval: true },
);
let asked = 0;
const answers = new Map<number, (result: unknown) => void>();
worker.on("message", ({ id, result }: { id: number; result: unknown }) => answers.get(id)?.(result));
const ask = <T>(message: Record<string, unknown>) =>
	new Promise<T>((resolve) => {
		const id = ++asked;
		answers.set(id, (r) => resolve(r as T));
		worker.postMessage({ ...message, id });
	});

interface Attester {
	domain: string;
	base: string;
	fingerprint: string;
	keys: Map<string, JWK>;
	lstBytes: number;
	credential(idx: number, holder: { fingerprint: string; domain: string; jwk: JWK }): Promise<string>;
	fetches(): Promise<number>;
}
async function attester(domain: string, zeroBytes: number): Promise<Attester> {
	const made = await ask<{ base: string; fingerprint: string; keys: [string, JWK][] }>({
		op: "start",
		domain,
	});
	const lstBytes = await ask<number>({ op: "serveZeros", domain, bytes: zeroBytes });
	return {
		domain,
		base: made.base,
		fingerprint: made.fingerprint,
		keys: new Map(made.keys),
		lstBytes,
		credential: (idx, holder) => ask<string>({ op: "credential", domain, idx, holder }),
		fetches: () => ask<number>({ op: "fetches", domain }),
	};
}

const dns = await startDns();
const bomber = await attester("bomb.bench", Number(values.mib) * 1024 * 1024);
const honest = await attester("honest.bench", 16_384);
for (const a of [bomber, honest]) dns.txt.set(`_svc.${a.domain}`, [a.fingerprint]);
const peer = {
	dnsServers: [dns.server],
	peerOverrides: { [bomber.domain]: bomber.base, [honest.domain]: honest.base },
};

interface Cost {
	ms: number;
	/** Time the event loop was busy (not waiting for I/O): `eventLoopUtilization().active`. */
	busyMs: number;
	loopMs: number;
	jsMB: number;
}

async function measure<T>(fn: () => Promise<T> | T): Promise<{ out: T; cost: Cost }> {
	gc?.();
	await new Promise((r) => setTimeout(r, 20));
	const js = () => {
		const m = process.memoryUsage();
		return m.heapUsed + m.external;
	};
	const base = js();
	let peak = base;
	const sampler = setInterval(() => {
		peak = Math.max(peak, js());
	}, 1);
	const loop = monitorEventLoopDelay({ resolution: 1 });
	loop.enable();
	// The monitor's first tick only sets its baseline: a stall before it would go unseen.
	await new Promise((r) => setTimeout(r, 5));
	const elu0 = performance.eventLoopUtilization();
	const t0 = performance.now();
	const out = await fn();
	const busyMs = performance.eventLoopUtilization(elu0).active;
	const ms = performance.now() - t0;
	peak = Math.max(peak, js());
	// A stall is recorded when the loop's timer next runs: let it run once before looking.
	await new Promise((r) => setTimeout(r, 5));
	loop.disable();
	clearInterval(sampler);
	return { out, cost: { ms, busyMs, loopMs: loop.max / 1e6, jsMB: (peak - base) / 1024 / 1024 } };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
function row(label: string, costs: Cost[]): string {
	const f = (k: keyof Cost, d: number) =>
		`${median(costs.map((c) => c[k])).toFixed(d)} / ${Math.max(...costs.map((c) => c[k])).toFixed(d)}`;
	return `| ${label} | ${costs.length} | ${f("ms", 0)} ms | ${f("busyMs", 1)} ms | ${f("loopMs", 1)} ms | ${f("jsMB", 1)} MB |`;
}

const rows: string[] = [];
const reasons = new Set<string>();

// 1. The list read alone.
async function readAlone(a: Attester): Promise<Cost[]> {
	const costs: Cost[] = [];
	for (let i = 0; i < runs + 1; i++) {
		const { out, cost } = await measure(() =>
			new StatusListCache().read(`${a.base}${STATUS_PATH}`, a.keys, peer, Date.now()),
		);
		if ("reason" in out) reasons.add(out.reason);
		if (i > 0) costs.push(cost); // the first run warms
	}
	return costs;
}
rows.push(row("list read alone, honest 16 KiB list", await readAlone(honest)));
rows.push(row(`list read alone, bomb (${values.mib} MiB)`, await readAlone(bomber)));

// 2. Verify end to end, each on a fresh verifier.
let ip = 0;
async function verifier() {
	const t = await makeApp({ ...peer });
	const person = await buildAccount(t.app, { name: "Ada" });
	const { holder } = await createIdentity(t.app, person);
	const verify = async (presentation: string) =>
		(
			await t.app.inject({
				method: "POST",
				url: "/api/attestations/verify",
				payload: { presentation },
				remoteAddress: `10.9.${(++ip >> 8) & 255}.${ip & 255}`,
			})
		).json() as { state: string; reason: string; status: string };
	return { t, holder, verify };
}
for (const a of [honest, bomber]) {
	const costs: Cost[] = [];
	for (let i = 0; i < runs + 1; i++) {
		const v = await verifier();
		// Warm the route and the attester's keys with the other list, so only this list is fetched.
		const other = a === honest ? bomber : honest;
		await v.verify(await other.credential(7, v.holder));
		const credential = await a.credential(100, v.holder);
		const { out, cost } = await measure(() => v.verify(credential));
		reasons.add(`${out.state}, status ${out.status}: ${out.reason}`);
		if (i > 0) costs.push(cost);
		await v.t.close();
	}
	rows.push(row(`verify end to end, ${a === honest ? "honest list" : "bomb"} (fetched)`, costs));
}

// 3. Ten at once.
const ten = await verifier();
await ten.verify(await honest.credential(7, ten.holder));
const tenCredential = await bomber.credential(100, ten.holder);
const fetchesBefore = await bomber.fetches();
const burst = await measure(() => Promise.all(Array.from({ length: 10 }, () => ten.verify(tenCredential))));
const fetched = (await bomber.fetches()) - fetchesBefore;
rows.push(row(`ten bomb verifications at once (${fetched} fetch)`, [burst.cost]));
await ten.t.close();

// 4. Before: the whole list inflated on the main thread.
const lst = await zeros(Number(values.mib) * 1024 * 1024);
const old = await measure(() => zlib.inflateSync(lst).length);
rows.push(
	row(`before: \`zlib.inflateSync\` of the bomb (${(old.out / 1024 / 1024).toFixed(0)} MiB)`, [old.cost]),
);

console.log(
	`bomb: ${values.mib} MiB of zeros, ${bomber.lstBytes} bytes compressed; load average ${(
		await import("node:os")
	)
		.loadavg()
		.map((l) => l.toFixed(1))
		.join(" ")}`,
);
console.log(
	"| case | runs | wall (median / max) | event loop busy | longest event-loop stall | JS memory peak growth |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);
console.log(`verdicts and reasons seen: ${[...reasons].join("; ")}`);

await ask({ op: "close" });
await worker.terminate();
await dns.close();
