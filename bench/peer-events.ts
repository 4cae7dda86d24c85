// Grant events between servers: N grants on the responder's server (resp.bench) handed to the
// requester's (req.bench), each a remote answer there, all granting one record. The record changes
// once; that change queues N events for req.bench in its transaction, and the responder's outbox
// loop sends them as signed batches (500 a batch). Measured: the change, the time until the
// requester has applied the last event, and until its callback receiver has the last grant event.
// Two compiled server processes (`npm run build` first) reach each other through PEER_OVERRIDES,
// with their `_svc` TXT records served by a DNS server in this process.
// Usage: npm run bench:peer-events [-- --events 1000 --pg postgres://…]
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { openStore, type Store } from "../src/db/index.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { newId, randomToken, sha256Hex } from "../src/lib/crypto.ts";
import { startDns } from "../test/helpers/dns.ts";
import { type ServerProcess, startServer } from "../test/helpers/process.ts";
import { deadPort } from "../test/helpers/receiver.ts";

const { values } = parseArgs({
	options: { events: { type: "string", default: "1000" }, pg: { type: "string" } },
});
const N = Number(values.events);
const REQ = "req.bench";
const RESP = "resp.bench";
const root = path.resolve(import.meta.dirname, "..");
if (!fs.existsSync(path.join(root, "dist/src/main.js"))) {
	console.error("dist/src/main.js is missing: run `npm run build` first");
	process.exit(2);
}

// The requester's callback receiver: counts grant events.
let callbacks = 0;
let lastCallback = 0;
const receiver = http.createServer((req, res) => {
	let body = "";
	req.on("data", (c: Buffer) => {
		body += c.toString();
	});
	req.on("end", () => {
		res.writeHead(200).end("ok");
		if (body.includes('"grant.changed"')) {
			callbacks++;
			lastCallback = performance.now();
		}
	});
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dns = await startDns();
const ports: Record<string, number> = { [REQ]: await deadPort(), [RESP]: await deadPort() };
const overrides = Object.entries(ports)
	.map(([d, p]) => `${d}=http://127.0.0.1:${p}`)
	.join(",");
const dirs: string[] = [];
const procs: ServerProcess[] = [];
const stores: Store[] = [];

async function start(domain: string) {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-peer-events-${domain}-`));
	dirs.push(dataDir);
	const env: Record<string, string> = {
		DOMAIN: domain,
		PORT: String(ports[domain]),
		HOST: "127.0.0.1",
		DATA_DIR: dataDir,
		// info: the "listening at" line is how the helper learns the port.
		LOG_LEVEL: "info",
		REDIS_URL: "",
		DNS_SERVERS: dns.server,
		PEER_OVERRIDES: overrides,
		ALLOW_PRIVATE_CALLBACKS: "true",
		...(values.pg
			? { DATABASE_URL: values.pg, DATABASE_SCHEMA: `peer_events_${domain.split(".")[0]}_${process.pid}` }
			: {}),
	};
	const proc = await startServer(env, "dist/src/main.js");
	procs.push(proc);
	const store = await openStore(loadConfig(env));
	stores.push(store);
	const claim = (await (await fetch(`${proc.url}/api/server`)).json()) as { fingerprint: string };
	dns.txt.set(`_svc.${domain}`, [claim.fingerprint]);
	const now = Date.now();
	const account = await createAccount(store.db, { email: `owner@${domain}` }, now);
	const { token } = await createSession(store.db, account.accountId, now);
	const api = async (method: string, url: string, body: unknown) => {
		const res = await fetch(`${proc.url}${url}`, {
			method,
			headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
			body: JSON.stringify(body),
		});
		if (!res.ok) throw new Error(`${domain} ${url}: ${res.status} ${await res.text()}`);
		return (await res.json()) as { id: string; slug: string };
	};
	return { proc, store, api };
}

try {
	const [req, resp] = [await start(REQ), await start(RESP)];
	const request = await req.api("POST", "/api/collections/requests/records", {
		label: "Bench request",
		items: [{ key: "name", label: "Name", type: "text", required: true }],
		callbackUrl: hook,
	});
	const record = await resp.api("POST", "/api/collections/records/records", { key: "name", value: "Ann" });
	// N grants of that record on the responder's side, each a remote answer on the requester's.
	const now = Date.now();
	const grants = [];
	for (let i = 0; i < N; i++) {
		const link = await resp.api("POST", "/api/collections/links/records", {
			label: `Answer ${i}`,
			records: [record.id],
		});
		grants.push({ id: link.id, token: randomToken(32) });
	}
	for (let i = 0; i < N; i += 500) {
		const chunk = grants.slice(i, i + 500);
		await resp.store.db
			.insertInto("grant_tokens")
			.values(
				chunk.map((g) => ({
					link: g.id,
					token_hash: sha256Hex(g.token),
					keys: JSON.stringify({ name: record.id }),
					peer: REQ,
					request_slug: request.slug,
					created: now,
					updated: now,
				})),
			)
			.execute();
		await req.store.db
			.insertInto("request_answers")
			.values(
				chunk.map((g) => ({
					id: newId(),
					request: request.id,
					account: null,
					workspace: null,
					identity: null,
					identifier: "",
					sender_name: "",
					data: "{}",
					server: RESP,
					minted: "{}",
					entries: "{}",
					grant_id: g.id,
					grant_token: g.token,
					grant_keys: '["name"]',
					remote_status: "active",
					remote_at: now,
					created: now,
					updated: now,
				})),
			)
			.execute();
	}
	// Let the last setup millisecond pass: events must be newer than the answers' recorded time.
	await new Promise((r) => setTimeout(r, 5));

	const rss = () =>
		fs.readFileSync(`/proc/${resp.proc.child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1];
	const t0 = performance.now();
	const since = Date.now();
	await resp.api("PATCH", `/api/collections/records/records/${record.id}`, { value: "Ann B." });
	const changed = performance.now();
	let applied = 0;
	while (applied < N) {
		await new Promise((r) => setTimeout(r, 10));
		const row = await req.store.db
			.selectFrom("request_answers")
			.select((eb) => eb.fn.countAll<number>().as("n"))
			.where("server", "=", RESP)
			.where("remote_at", ">", since - 1)
			.executeTakeFirstOrThrow();
		applied = Number(row.n);
		if (performance.now() - t0 > 120_000) throw new Error(`only ${applied} of ${N} applied after 120 s`);
	}
	const appliedAt = performance.now();
	while (callbacks < N && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 10));
	const sent = await resp.store.db
		.selectFrom("peer_events")
		.select(["state", (eb) => eb.fn.countAll<number>().as("n")])
		.groupBy("state")
		.execute();
	const ms = (x: number) => `${x.toFixed(0)} ms`;
	console.log(`${N} grants of one record handed to one server; the record changes once`);
	console.log(
		`database: ${values.pg ? "PostgreSQL" : "SQLite"}; node ${process.version}; ${os.cpus().length} cores`,
	);
	console.log(`the change (queues ${N} events in its transaction): ${ms(changed - t0)}`);
	console.log(`to the last event applied on the requester's server: ${ms(appliedAt - t0)}`);
	console.log(`  events per second, change to last applied: ${((N / (appliedAt - t0)) * 1000).toFixed(0)}`);
	console.log(
		`to the last grant.changed at the requester's callback: ${ms(lastCallback - t0)} (${callbacks} received)`,
	);
	console.log(
		`responder's events: ${sent.map((s) => `${s.state} ${s.n}`).join(", ")}; responder RSS ${rss()} kB`,
	);
} finally {
	for (const p of procs) await p.stop();
	for (const s of stores) await s.destroy();
	for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
	await dns.close();
	receiver.close();
}
