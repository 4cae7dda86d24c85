// Prometheus metrics on a server process: off unless METRICS_PORT is set, then on a listener of
// their own (never the public port), read back with a parser we did not write. Requests counted
// by route pattern (404s without a route under one label), durations as a histogram, the outbox
// queues and the stamping pool read at scrape time, the database pool on PostgreSQL.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import parsePrometheus from "parse-prometheus-text-format";
import { openStore, type Store } from "../../src/db/index.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";

interface Family {
	name: string;
	type: string;
	metrics: {
		value?: string;
		labels?: Record<string, string>;
		count?: string;
		buckets?: Record<string, string>;
	}[];
}

const envOf = (env: TestEnv, extra: Record<string, string> = {}) => ({
	DATABASE_URL: env.config.databaseUrl,
	DATABASE_SCHEMA: env.config.databaseSchema,
	DATA_DIR: env.config.dataDir,
	REDIS_URL: "",
	...extra,
});

describe("Prometheus metrics", () => {
	let env: TestEnv;
	let store: Store;
	let on: ServerProcess;
	let metricsUrl: string;

	before(async () => {
		env = testEnv();
		on = await startServer(envOf(env, { METRICS_PORT: "0" }));
		const port = /metrics (\d+)/.exec(on.output())?.[1];
		assert.ok(port, on.output());
		metricsUrl = `http://127.0.0.1:${port}/metrics`;
		store = await openStore(env.config);
	});
	after(async () => {
		await on?.stop();
		await store?.destroy();
		await env?.dispose();
	});

	const scrape = async () => {
		const res = await fetch(metricsUrl);
		assert.equal(res.status, 200);
		assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
		return parsePrometheus(await res.text()) as Family[];
	};
	const family = (all: Family[], name: string) => {
		const f = all.find((x) => x.name === name);
		assert.ok(f, `no ${name} in ${all.map((x) => x.name).join(", ")}`);
		return f;
	};
	const sample = (f: Family, labels: Record<string, string>) =>
		f.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

	test("off by default: no listener is started and the public port has no /metrics", async () => {
		const offEnv = testEnv();
		const off = await startServer(envOf(offEnv));
		try {
			assert.doesNotMatch(off.output(), /metrics \d+/);
			assert.equal((await fetch(`${off.url}/metrics`)).status, 404);
		} finally {
			await off.stop();
			await offEnv.dispose();
		}
		// Switched on, still never on the public port.
		assert.equal((await fetch(`${on.url}/metrics`)).status, 404);
	});

	test("requests counted and timed by route pattern; a 404 without a route under one label", async () => {
		const unmatchedBefore = Number(
			sample(family(await scrape(), "svc_http_requests_total"), { route: "(unmatched)", status: "404" })
				?.value ?? 0,
		);
		for (let i = 0; i < 3; i++) assert.equal((await fetch(`${on.url}/api/server`)).status, 200);
		assert.equal((await fetch(`${on.url}/api/public/links/nosuchslug`)).status, 404);
		for (const path of ["/no/such/a", "/no/such/b"])
			assert.equal((await fetch(`${on.url}${path}`)).status, 404);
		const all = await scrape();
		const counts = family(all, "svc_http_requests_total");
		assert.equal(counts.type, "COUNTER");
		assert.equal(sample(counts, { method: "GET", route: "/api/server", status: "200" })?.value, "3");
		// The route pattern, never the slug a client sent.
		assert.equal(sample(counts, { route: "/api/public/links/:slug", status: "404" })?.value, "1");
		assert.equal(Number(sample(counts, { route: "(unmatched)", status: "404" })?.value), unmatchedBefore + 2);
		assert.equal(
			counts.metrics.some((m) => (m.labels?.route ?? "").includes("nosuch")),
			false,
			"no series per client-chosen path",
		);
		const durations = family(all, "svc_http_request_duration_seconds");
		assert.equal(durations.type, "HISTOGRAM");
		// The parser folds a labelled histogram's series into one: its lines are read as written.
		const text = await (await fetch(metricsUrl)).text();
		const line = (suffix: string, labels: string) =>
			new RegExp(`^svc_http_request_duration_seconds_${suffix}\\{${labels}\\} (\\S+)$`, "m").exec(text)?.[1];
		assert.equal(line("count", 'method="GET",route="/api/server"'), "3");
		assert.equal(line("bucket", 'le="\\+Inf",method="GET",route="/api/server"'), "3");
		assert.ok(Number(line("sum", 'method="GET",route="/api/server"')) > 0);
		// The process's own metrics come along (a maintained client's defaults).
		family(all, "svc_process_resident_memory_bytes");
		family(all, "svc_nodejs_eventloop_lag_seconds");
	});

	test("the outbox queues by state and the stamping pool, read when scraped", async () => {
		const now = Date.now();
		const request = await store.db
			.selectFrom("requests")
			.select("id")
			.executeTakeFirst()
			.then(async (r) => r?.id ?? (await aRequest(store, now)));
		const row = (state: "pending" | "failed") => ({
			id: newId(),
			kind: "grant_event" as const,
			request,
			url: "https://hooks.example/in",
			payload: "{}",
			state,
			attempts: 0,
			// Far in the future: the loop (not started by the test helper) would not take it anyway.
			next_attempt: now + 86_400_000,
			lease: null,
			lease_until: null,
			last_status: null,
			last_error: null,
			created: now,
			updated: now,
		});
		await store.db
			.insertInto("outbox")
			.values([row("pending"), row("pending"), row("failed")])
			.execute();
		const { request: _r, kind: _k, url: _u, payload: _p, ...peer } = row("failed");
		await store.db
			.insertInto("peer_events")
			.values({
				...peer,
				peer: "peer.example",
				grant_id: newId(),
				request_slug: null,
				event: "grant.changed",
				status: "active",
				at: now,
			})
			.execute();

		const all = await scrape();
		const outbox = family(all, "svc_outbox_rows");
		assert.equal(sample(outbox, { queue: "callbacks", state: "pending" })?.value, "2");
		assert.equal(sample(outbox, { queue: "callbacks", state: "failed" })?.value, "1");
		assert.equal(sample(outbox, { queue: "peer_events", state: "failed" })?.value, "1");
		assert.equal(sample(outbox, { queue: "peer_events", state: "pending" })?.value, "0");
		const stamping = family(all, "svc_stamping_jobs");
		assert.equal(sample(stamping, { state: "running" })?.value, "0");
		assert.equal(sample(stamping, { state: "queued" })?.value, "0");
		if (dialect === "postgres") {
			const pool = family(all, "svc_db_pool_connections");
			assert.ok(Number(sample(pool, { state: "total" })?.value) >= 1);
			// The scrape's own queries may be waiting for a connection being opened: a count, not zero.
			for (const state of ["idle", "waiting"]) assert.ok(Number(sample(pool, { state })?.value) >= 0, state);
			assert.equal(
				all.some((f) => f.name.startsWith("svc_sqlite_")),
				false,
			);
		} else {
			assert.equal(
				all.some((f) => f.name === "svc_db_pool_connections"),
				false,
			);
			// The writes so far (the server's start, the rows above) went through the WAL, and the
			// server's thread has copied them.
			assert.equal(family(all, "svc_sqlite_checkpoint_thread").metrics[0]?.value, "1");
			const copied = family(all, "svc_sqlite_checkpointed_frames_total").metrics[0]?.value;
			assert.ok(Number(copied) > 0, `checkpointed frames: ${copied}`);
		}
		// Only GET /metrics on the metrics listener.
		assert.equal((await fetch(metricsUrl.replace("/metrics", "/other"))).status, 404);
		assert.equal((await fetch(metricsUrl, { method: "POST" })).status, 404);
	});
});

/** A request row to hang outbox rows on (the outbox references requests). */
async function aRequest(store: Store, now: number): Promise<string> {
	const { createAccount } = await import("../../src/features/accounts/service.ts");
	const { workspaceId } = await createAccount(store.db, { email: `metrics-${now}@example.org` }, now);
	const id = newId();
	await store.db
		.insertInto("requests")
		.values({
			id,
			workspace: workspaceId,
			account: null,
			slug: newId(),
			label: "Metrics",
			items: "[]",
			template: null,
			status: "open",
			password_hash: null,
			requires_identifier: 0,
			require_handshake: 0,
			allow_extra_fields: 0,
			identity_scope: "any",
			identity: null,
			expires_at: null,
			callback_url: "https://hooks.example/in",
			allow_answer_signup: 0,
			answer_signup_limit: 20,
			answer_signups: 0,
			created: now,
			updated: now,
		})
		.execute();
	return id;
}
