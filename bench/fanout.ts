// Fan-out benchmark: one record behind N answers (each an answer to its own request with a
// callback URL on loopback) changes once; measures the change (which queues N grant events in its
// transaction) and the delivery of all N events to a real HTTP receiver through the outbox.
// Usage: npm run bench:fanout [-- --answers 10000 --pg postgres://…]
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { newId, randomToken } from "../src/lib/crypto.ts";

const { values } = parseArgs({
	options: { answers: { type: "string", default: "10000" }, pg: { type: "string" } },
});
const N = Number(values.answers);

let received = 0;
let allIn: () => void = () => undefined;
const done = new Promise<void>((resolve) => {
	allIn = resolve;
});
const receiver = http.createServer((req, res) => {
	req.resume();
	req.on("end", () => {
		res.writeHead(200).end("ok");
		if (++received === N) allIn();
	});
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-fanout-"));
const config = loadConfig(
	{ LOG_LEVEL: "silent", ALLOW_PRIVATE_CALLBACKS: "true" },
	{
		dataDir,
		...(values.pg ? { databaseUrl: values.pg, databaseSchema: `fanout_${process.pid}` } : {}),
	},
);
const app = await buildApp(config);
try {
	const db = app.store.db;
	const now = Date.now();
	const requester = await createAccount(db, { email: "requester@bench.test" }, now);
	const responder = await createAccount(db, { email: "responder@bench.test" }, now);
	const { token } = await createSession(db, responder.accountId, now);
	const headers = { authorization: `Bearer ${token}` };
	const created = await app.inject({
		method: "POST",
		url: "/api/collections/records/records",
		headers,
		payload: { key: "address", value: "Old Street 1" },
	});
	const recordId = (created.json() as { id: string }).id;

	// Seeded directly: N requests, each answered by a link granting the one record.
	const started = Date.now();
	const items = JSON.stringify([{ key: "address", label: "Address", type: "address", required: true }]);
	for (let i = 0; i < N; i += 500) {
		const batch = Array.from({ length: Math.min(500, N - i) }, () => ({ request: newId(), link: newId() }));
		await db
			.insertInto("requests")
			.values(
				batch.map((b) => ({
					id: b.request,
					workspace: requester.workspaceId,
					account: requester.accountId,
					slug: randomToken(24),
					label: "Bench request",
					items,
					template: null,
					status: "open" as const,
					password_hash: null,
					requires_identifier: 0,
					require_handshake: 0,
					allow_extra_fields: 0,
					identity_scope: "any" as const,
					identity: null,
					expires_at: null,
					callback_url: hook,
					allow_answer_signup: 0,
					answer_signup_limit: 20,
					answer_signups: 0,
					created: now,
					updated: now,
				})),
			)
			.execute();
		await db
			.insertInto("links")
			.values(
				batch.map((b) => ({
					id: b.link,
					workspace: responder.workspaceId,
					slug: randomToken(32),
					label: "Answer: Bench request",
					status: "active" as const,
					password_hash: null,
					max_views: null,
					view_count: 0,
					expires_at: null,
					require_handshake: 0,
					stamp: null,
					purpose: "",
					ref: null,
					identity: null,
					handed_over: 0,
					sign_in_client: null,
					created_by: responder.accountId,
					created: now,
					updated: now,
				})),
			)
			.execute();
		await db
			.insertInto("link_records")
			.values(batch.map((b) => ({ link: b.link, record: recordId, position: 0 })))
			.execute();
		await db
			.insertInto("request_answers")
			.values(
				batch.map((b) => ({
					id: b.link,
					request: b.request,
					account: responder.accountId,
					workspace: responder.workspaceId,
					identity: null,
					identifier: "",
					sender_name: "",
					data: "{}",
					server: null,
					minted: "{}",
					entries: JSON.stringify({ address: recordId }),
					created: now,
					updated: now,
				})),
			)
			.execute();
	}
	const seeded = Date.now() - started;

	// The change: one PATCH, whose transaction queues N grant events.
	const t0 = performance.now();
	const res = await app.inject({
		method: "PATCH",
		url: `/api/collections/records/records/${recordId}`,
		headers,
		payload: { value: "New Street 2" },
	});
	const fanout = performance.now() - t0;
	assert.equal(res.statusCode, 200, res.body);
	const queued = await db
		.selectFrom("outbox")
		.select((eb) => eb.fn.countAll<number>().as("n"))
		.executeTakeFirstOrThrow();
	assert.equal(Number(queued.n), N);

	// Delivery: the same loop the server runs (passes back to back while they come back full).
	const t1 = performance.now();
	app.background.start(1000);
	await done;
	const delivery = performance.now() - t1;
	await app.background.stop();

	const dbName = values.pg ? "PostgreSQL" : "SQLite";
	console.log(
		`\n${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"} · node ${process.version} · ${dbName}`,
	);
	console.log(`seeded ${N} answers in ${seeded} ms\n`);
	console.log("| answers | change + fan-out (one PATCH) | delivery of all events | events/s delivered |");
	console.log("| ---: | ---: | ---: | ---: |");
	console.log(
		`| ${N} | ${fanout.toFixed(0)} ms | ${(delivery / 1000).toFixed(2)} s | ${((N / delivery) * 1000).toFixed(0)} |`,
	);
} finally {
	await app.close();
	receiver.close();
	fs.rmSync(dataDir, { recursive: true, force: true });
	if (values.pg) {
		const { default: pg } = await import("pg");
		const client = new pg.Client({ connectionString: values.pg });
		await client.connect();
		await client.query(`drop schema if exists "fanout_${process.pid}" cascade`);
		await client.end();
	}
}
