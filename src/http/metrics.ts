// Prometheus metrics (operators' view of a node), off unless METRICS_PORT is set. When on, every
// request is counted and timed by method, route pattern and status (404s without a route share one
// label, so no client can grow the series); the outbox queues, the stamping pool and the database
// pool are read when scraped. Served on a listener of its own, bound to loopback by default, never
// on the public port. Each app has its own registry (tests build several in one process).
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import client from "prom-client";

export interface Metrics {
	/** Starts the listener on METRICS_HOST:METRICS_PORT; answers the port it got. */
	listen(): Promise<number>;
	close(): Promise<void>;
}

const UNMATCHED = "(unmatched)";
/** Request durations, in seconds: from a cached probe to a large upload. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function registerMetrics(app: FastifyInstance): Metrics {
	const registry = new client.Registry();
	client.collectDefaultMetrics({ register: registry, prefix: "svc_" });

	const requests = new client.Counter({
		name: "svc_http_requests_total",
		help: "Requests answered, by method, route pattern and status.",
		labelNames: ["method", "route", "status"] as const,
		registers: [registry],
	});
	const duration = new client.Histogram({
		name: "svc_http_request_duration_seconds",
		help: "Time from the request's arrival to its answer, by method and route pattern.",
		labelNames: ["method", "route"] as const,
		buckets: BUCKETS,
		registers: [registry],
	});
	app.addHook("onResponse", async (request, reply) => {
		const route = request.routeOptions.url ?? UNMATCHED;
		requests.inc({ method: request.method, route, status: reply.statusCode });
		duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
	});

	const db = app.store.db;
	new client.Gauge({
		name: "svc_outbox_rows",
		help: "Rows of the delivery queues by state: callbacks (submissions and grant events) and grant events for other servers. Failed rows are kept seven days.",
		labelNames: ["queue", "state"] as const,
		registers: [registry],
		async collect() {
			this.reset();
			for (const [queue, table] of [
				["callbacks", "outbox"],
				["peer_events", "peer_events"],
			] as const) {
				const { rows } = await sql<{ state: string; n: number | string }>`
					select state, count(*) as n from ${sql.table(table)} group by state`.execute(db);
				for (const state of ["pending", "sending", "failed"]) {
					const n = rows.find((r) => r.state === state)?.n ?? 0;
					this.set({ queue, state }, Number(n));
				}
			}
		},
	});
	new client.Gauge({
		name: "svc_answer_only_accounts",
		help: "Accounts made by answer-only sign-ups (a request that admits them, ALLOW_ANSWER_SIGNUPS): all, and those made in the last 24 hours.",
		labelNames: ["window"] as const,
		registers: [registry],
		async collect() {
			const since = app.clock.now() - 86_400_000;
			const { rows } = await sql<{ total: number | string; day: number | string | null }>`
				select count(*) as total, sum(case when signup_at >= ${since} then 1 else 0 end) as day
				from accounts where answer_only = 1`.execute(db);
			this.set({ window: "all" }, Number(rows[0]?.total ?? 0));
			this.set({ window: "24h" }, Number(rows[0]?.day ?? 0));
		},
	});
	new client.Gauge({
		name: "svc_stamping_jobs",
		help: "Watermarking jobs stamping now (running) and waiting for a worker (queued; 8 per workspace and 64 in all at most, then 503).",
		labelNames: ["state"] as const,
		registers: [registry],
		collect() {
			const { running, queued } = app.stamper.load;
			this.set({ state: "running" }, running);
			this.set({ state: "queued" }, queued);
		},
	});
	const poolUse = app.store.poolUse;
	if (poolUse) {
		new client.Gauge({
			name: "svc_db_pool_connections",
			help: "PostgreSQL connections of this node's pool: total open, idle, and queries waiting for one.",
			labelNames: ["state"] as const,
			registers: [registry],
			collect() {
				const use = poolUse();
				this.set({ state: "total" }, use.total);
				this.set({ state: "idle" }, use.idle);
				this.set({ state: "waiting" }, use.waiting);
			},
		});
	}

	const checkpoints = app.store.checkpoints;
	if (checkpoints) {
		new client.Counter({
			name: "svc_sqlite_checkpointed_frames_total",
			help: "SQLite only: WAL frames the checkpoint thread copied into the database file.",
			registers: [registry],
			collect() {
				this.reset();
				this.inc(checkpoints().frames);
			},
		});
		new client.Gauge({
			name: "svc_sqlite_checkpoint_thread",
			help: "SQLite only: 1 while the checkpoint thread runs; 0 once it failed (the server checkpoints on its event loop).",
			registers: [registry],
			collect() {
				this.set(checkpoints().running ? 1 : 0);
			},
		});
	}

	let server: http.Server | undefined;
	const metrics: Metrics = {
		async listen() {
			const { metricsPort, metricsHost } = app.config;
			if (metricsPort === null) throw new Error("METRICS_PORT is not set");
			server = http.createServer((req, res) => {
				if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
					res.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics here\n");
					return;
				}
				registry.metrics().then(
					(body) => res.writeHead(200, { "content-type": registry.contentType }).end(body),
					(err: unknown) => {
						app.log.error({ err }, "metrics could not be collected");
						res.writeHead(500, { "content-type": "text/plain" }).end("metrics could not be collected\n");
					},
				);
			});
			await new Promise<void>((resolve, reject) => {
				server?.once("error", reject);
				server?.listen(metricsPort, metricsHost, resolve);
			});
			const port = (server.address() as AddressInfo).port;
			app.log.info({ host: metricsHost, port }, "metrics served at /metrics");
			return port;
		},
		async close() {
			if (server) await new Promise((resolve) => server?.close(resolve));
		},
	};
	app.addHook("onClose", () => metrics.close());
	return metrics;
}
