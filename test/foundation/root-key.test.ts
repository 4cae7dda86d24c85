import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildApp } from "../../src/app.ts";
import { testEnv } from "../helpers/app.ts";
import { startServer } from "../helpers/process.ts";

const fingerprintOf = async (url: string) =>
	((await (await fetch(`${url}/api/server`)).json()) as { fingerprint: string }).fingerprint;

describe("the root key", () => {
	test("survives a restart: same fingerprint on the same database", async (t) => {
		const env = testEnv();
		t.after(() => env.dispose());
		const first = await buildApp(env.config);
		const before = (await first.inject({ url: "/api/server" })).json().fingerprint;
		await first.close();
		const second = await buildApp(env.config);
		const after = (await second.inject({ url: "/api/server" })).json().fingerprint;
		await second.close();
		assert.equal(after, before);
	});

	test("two server processes started together on one empty database share one key", async (t) => {
		const env = testEnv();
		t.after(() => env.dispose());
		const vars = {
			DATA_DIR: env.config.dataDir,
			DATABASE_URL: env.config.databaseUrl,
			DATABASE_SCHEMA: env.config.databaseSchema,
			DOMAIN: "cluster.test",
		};
		const [a, b] = await Promise.all([startServer(vars), startServer(vars)]);
		t.after(async () => {
			await a.stop();
			await b.stop();
		});
		const [fa, fb] = await Promise.all([fingerprintOf(a.url), fingerprintOf(b.url)]);
		assert.match(fa, /^[0-9a-f]{64}$/);
		assert.equal(fa, fb);
	});
});
