import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { makeApp, testEnv } from "../helpers/app.ts";
import { startServer } from "../helpers/process.ts";

describe("clean shutdown", () => {
	test("close stops accepting but finishes a request in flight", async (t) => {
		let release: () => void = () => {};
		const gate = new Promise<void>((r) => {
			release = r;
		});
		let entered: () => void = () => {};
		const inHandler = new Promise<void>((r) => {
			entered = r;
		});
		const h = await makeApp(
			{},
			{
				extend: async (app) => {
					app.get("/t/slow", async () => {
						entered();
						await gate;
						return { done: true };
					});
				},
			},
		);
		t.after(() => h.env.dispose());
		await h.app.listen({ port: 0, host: "127.0.0.1" });
		const { port } = h.app.server.address() as { port: number };
		const inflight = fetch(`http://127.0.0.1:${port}/t/slow`);
		await inHandler;
		const closing = h.app.close();
		// Once the listening socket is closed (a step of close(), before in-flight requests end).
		while (h.app.server.listening) await new Promise((r) => setImmediate(r));
		// No new connections while closing: the connection itself is refused (not an HTTP error).
		await assert.rejects(
			fetch(`http://127.0.0.1:${port}/healthz`),
			(err: unknown) =>
				err instanceof TypeError && (err.cause as { code?: string } | undefined)?.code === "ECONNREFUSED",
		);
		release();
		const res = await inflight;
		assert.equal(res.status, 200);
		assert.deepEqual(await res.json(), { done: true });
		await closing;
	});

	test("SIGTERM makes the process exit 0", async (t) => {
		const env = testEnv();
		t.after(() => env.dispose());
		const server = await startServer(
			{
				DATA_DIR: env.config.dataDir,
				DATABASE_URL: env.config.databaseUrl,
				DATABASE_SCHEMA: env.config.databaseSchema,
				LOG_LEVEL: "info",
				HOST: "127.0.0.1",
			},
			"src/main.ts",
		);
		assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
		const code = await server.stop("SIGTERM");
		assert.equal(code, 0, server.output());
	});
});
