// What a status-list zip bomb costs a verifier (issue 35.1), in-process: an attester of another
// domain on loopback (test/helpers/fake-attester.ts) serves a signed list whose `lst` is 140 MiB of
// zeros compressed (~254 KB as fetched, under the 256 KiB cap), and `POST /api/attestations/verify`
// is asked about one of its credentials. Measured: the longest event-loop stall
// (`monitorEventLoopDelay`, 1 ms resolution) and the growth of JavaScript memory (heap + external,
// sampled every millisecond, peak over the baseline after a forced GC) and of the resident set.
// Then the same for ten verifications at once on a fresh verifier (one fetch between them), and,
// for comparison, the old reading: `zlib.inflateSync` of the same list on the main thread.
// Usage: npm run bench:status-list [-- --mib 140]
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import zlib from "node:zlib";
import type { JWK } from "jose";
import { makeApp, type TestApp } from "../test/helpers/app.ts";
import { deviceKey } from "../test/helpers/device-key.ts";
import { startDns } from "../test/helpers/dns.ts";
import { buildAccount } from "../test/helpers/factories.ts";
import { startFakeAttester, zeros } from "../test/helpers/fake-attester.ts";

const { values } = parseArgs({ options: { mib: { type: "string", default: "140" } } });
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:status-list does)");

const dns = await startDns();
const bomber = await startFakeAttester("bomb.bench");
const honest = await startFakeAttester("honest.bench");
for (const a of [bomber, honest]) dns.txt.set(`_svc.${a.domain}`, [a.fingerprint]);
const bomb = await zeros(Number(values.mib) * 1024 * 1024);
await bomber.serveList(bomb);
await honest.serveList(zlib.deflateSync(Buffer.alloc(16_384)));

let ip = 0;
async function verifier() {
	const t = await makeApp({
		dnsServers: [dns.server],
		peerOverrides: { [bomber.domain]: bomber.base, [honest.domain]: honest.base },
	});
	const person = await buildAccount(t.app, { name: "Ada" });
	const key = await deviceKey();
	const made = await t.app.inject({
		method: "POST",
		url: "/api/collections/identities/records",
		headers: person.headers,
		payload: { name: "Ada", publicKey: key.publicJwk },
	});
	const holder = {
		fingerprint: made.json().fingerprint,
		domain: t.app.config.domain,
		jwk: key.publicJwk as JWK,
	};
	const verify = async (presentation: string) =>
		(
			await t.app.inject({
				method: "POST",
				url: "/api/attestations/verify",
				payload: { presentation },
				remoteAddress: `10.9.${(++ip >> 8) & 255}.${ip & 255}`,
			})
		).json() as { state: string; reason: string };
	// Warm: every module and route on the path, with an honest list.
	await verify(await honest.credential(7, holder));
	return { t, holder, verify };
}

async function measure<T>(fn: () => Promise<T> | T) {
	gc?.();
	await new Promise((r) => setTimeout(r, 50));
	const js = () => {
		const m = process.memoryUsage();
		return m.heapUsed + m.external;
	};
	const base = js();
	const rss0 = process.memoryUsage().rss;
	let peak = base;
	const sampler = setInterval(() => {
		peak = Math.max(peak, js());
	}, 1);
	const loop = monitorEventLoopDelay({ resolution: 1 });
	loop.enable();
	const t0 = performance.now();
	const out = await fn();
	const ms = performance.now() - t0;
	peak = Math.max(peak, js());
	// A stall is recorded when the loop's timer next runs: let it run once before looking.
	await new Promise((r) => setTimeout(r, 5));
	loop.disable();
	clearInterval(sampler);
	const MB = 1024 * 1024;
	return {
		out,
		row: `${ms.toFixed(0)} ms | ${(loop.max / 1e6).toFixed(1)} ms | ${((peak - base) / MB).toFixed(1)} MB | ${((process.memoryUsage().rss - rss0) / MB).toFixed(1)} MB`,
	};
}

const rows: string[] = [];
const one = await verifier();
const credential = await bomber.credential(100, one.holder);
const single = await measure(() => one.verify(credential));
rows.push(`| one verify (\`${single.out.state}\`: ${single.out.reason}) | ${single.row} |`);
const cached = await measure(() => one.verify(credential));
rows.push(`| the same again (the refusal kept for the list's \`ttl\`) | ${cached.row} |`);

const ten = await verifier();
const tenCredential = await bomber.credential(100, ten.holder);
const before = bomber.listFetches;
const burst = await measure(() => Promise.all(Array.from({ length: 10 }, () => ten.verify(tenCredential))));
rows.push(`| ten at once, fresh verifier (${bomber.listFetches - before} fetch) | ${burst.row} |`);

const lst = Buffer.from(bomb.toString("base64url"), "base64url");
const old = await measure(() => zlib.inflateSync(lst).length);
rows.push(
	`| before: \`zlib.inflateSync\` of the list (${(old.out / 1024 / 1024).toFixed(0)} MiB) | ${old.row} |`,
);

console.log(`bomb: ${Number(values.mib)} MiB of zeros, ${bomb.length} bytes compressed`);
console.log("| case | wall | longest event-loop stall | JS memory peak growth | RSS growth |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);

for (const v of [one.t, ten.t] as TestApp[]) await v.close();
await bomber.close();
await honest.close();
await dns.close();
