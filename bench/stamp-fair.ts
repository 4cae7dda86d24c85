// Fair stamping (the hardening issue): the latency of one workspace's stamp preview (a one-page
// PDF) alone, and beside another workspace that keeps sending hostile jobs:
//  - "crafted": the 600 KB PDF whose page tree names one page 100,000 times (refused by
//    the byte scan, 415, before a worker parses it);
//  - "slow": a 2,000-page PDF (within the limits, so it reaches a worker and runs seconds, up to
//    the 5 s preview budget): the case fairness, not the scan, has to handle.
// The app runs in this process with its default stamping settings, listening on loopback; requests
// go over HTTP with fetch, each with its own X-Forwarded-For (the `heavy` limit is per client).
// Usage: npm run bench:stamp-fair [-- --samples 20 --hostile 4]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { hostilePdf, makePdf, manyPagesPdf } from "../test/stamping/fixtures.ts";

const { values } = parseArgs({
	options: {
		samples: { type: "string", default: "20" },
		hostile: { type: "string", default: "4" },
	},
});
const samples = Number(values.samples);
const hostileConcurrency = Number(values.hostile);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-fair-"));
const app = await buildApp(loadConfig({ LOG_LEVEL: "warn", TRUST_PROXY: "true" }, { dataDir }));
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

let client = 0;
const nextAddress = () => {
	client++;
	return `198.18.${(client >> 8) & 255}.${client & 255}`;
};

async function session(email: string): Promise<string> {
	const account = await createAccount(app.store.db, { email }, Date.now());
	return (await createSession(app.store.db, account.accountId, Date.now())).token;
}

async function upload(token: string, bytes: Buffer, name: string): Promise<string> {
	const form = new FormData();
	form.append("key", "bench");
	form.append("file", new Blob([new Uint8Array(bytes)]), name);
	const res = await fetch(`${base}/api/collections/records/records`, {
		method: "POST",
		headers: { authorization: `Bearer ${token}`, "x-forwarded-for": nextAddress() },
		body: form,
	});
	if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
	return ((await res.json()) as { id: string }).id;
}

async function preview(token: string, record: string, text: string): Promise<{ ms: number; status: number }> {
	const t0 = performance.now();
	const res = await fetch(`${base}/api/stamp-preview`, {
		method: "POST",
		headers: {
			authorization: `Bearer ${token}`,
			"content-type": "application/json",
			"x-forwarded-for": nextAddress(),
		},
		body: JSON.stringify({ record, text }),
	});
	await res.arrayBuffer();
	return { ms: performance.now() - t0, status: res.status };
}

interface Row {
	beside: string;
	p50: number;
	p90: number;
	max: number;
	bad: number;
	hostile: string;
}
const rows: Row[] = [];
const quantile = (xs: number[], q: number) => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};

try {
	const other = await session("other@bench.test");
	const attacker = await session("attacker@bench.test");
	const small = await upload(other, await makePdf([{}]), "lease.pdf");
	const crafted = await upload(attacker, hostilePdf(100_000), "crafted.pdf");
	const slow = await upload(attacker, manyPagesPdf(2000), "slow.pdf");

	// The other workspace's previews one after another; each has its own text, so none is a
	// cache hit (a repeated one would cost nothing).
	const measure = async (beside: string, hostileRecord?: string) => {
		let stop = false;
		const answers = new Map<number, number>();
		const loops = hostileRecord
			? Array.from({ length: hostileConcurrency }, async (_, i) => {
					for (let n = 0; !stop; n++) {
						const r = await preview(attacker, hostileRecord, `attack ${i} ${n}`);
						answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
					}
				})
			: [];
		// Let the hostile jobs take the workers first.
		if (hostileRecord) await new Promise((r) => setTimeout(r, 300));
		const times: number[] = [];
		let bad = 0;
		for (let i = 0; i < samples; i++) {
			const r = await preview(other, small, `${beside} ${i} ${Date.now()}`);
			times.push(r.ms);
			if (r.status !== 200) bad++;
		}
		stop = true;
		await Promise.all(loops);
		const row = {
			beside,
			p50: quantile(times, 0.5),
			p90: quantile(times, 0.9),
			max: Math.max(...times),
			bad,
			hostile: [...answers].map(([s, n]) => `${n} × ${s}`).join(", "),
		};
		rows.push(row);
		process.stderr.write(`${beside}: p50 ${row.p50.toFixed(0)} ms, max ${row.max.toFixed(0)} ms\n`);
	};

	await measure("warm-up");
	rows.pop();
	await measure("nothing");
	await measure(`crafted 600 KB page tree × ${hostileConcurrency}`, crafted);
	await measure(`2,000-page PDF × ${hostileConcurrency}`, slow);
} finally {
	await app.close();
	fs.rmSync(dataDir, { recursive: true, force: true });
}

const cpus = os.cpus();
console.log(
	`\n${new Date().toISOString()} · ${cpus.length} × ${cpus[0]?.model ?? "cpu"} · node ${process.version} · SQLite · ${samples} previews per row · load average ${os
		.loadavg()
		.map((l) => l.toFixed(1))
		.join(" ")}\n`,
);
console.log("| other workspace's preview beside | p50 ms | p90 ms | max ms | non-200 | hostile answers |");
console.log("| --- | ---: | ---: | ---: | ---: | --- |");
for (const r of rows) {
	console.log(
		`| ${r.beside} | ${r.p50.toFixed(0)} | ${r.p90.toFixed(0)} | ${r.max.toFixed(0)} | ${r.bad} | ${r.hostile} |`,
	);
}
if (rows.some((r) => r.bad > 0)) process.exitCode = 1;
