// Builds an app per test on a fresh database: a temporary SQLite folder, or a fresh PostgreSQL
// schema when TEST_DATABASE_URL is set (scripts/test.mjs sets it for the PostgreSQL run).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type App, type AppDeps, buildApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { nextRsaKeyPair } from "./keys.ts";

export const PG_URL = process.env.TEST_DATABASE_URL ?? "";
export const dialect = PG_URL ? "postgres" : "sqlite";

export interface TestEnv {
	config: Config;
	/** Drops the database the config points at (schema or folder). */
	dispose(): Promise<void>;
}

/** A config on a fresh, empty database. Two apps built from one env share the database. */
export function testEnv(overrides: Partial<Config> = {}): TestEnv {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-"));
	const schema = PG_URL ? `t_${crypto.randomBytes(6).toString("hex")}` : "";
	const config = loadConfig(
		{ LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" },
		{ dataDir, databaseUrl: PG_URL, databaseSchema: schema, ...overrides },
	);
	return {
		config,
		async dispose() {
			fs.rmSync(dataDir, { recursive: true, force: true });
			if (schema) {
				const client = new pg.Client({ connectionString: PG_URL });
				await client.connect();
				try {
					await client.query(`drop schema if exists "${schema}" cascade`);
				} finally {
					await client.end();
				}
			}
		},
	};
}

export interface TestApp {
	app: App;
	env: TestEnv;
	close(): Promise<void>;
}

/** Builds an app on a fresh database; `close()` stops it and drops the database. */
export async function makeApp(overrides: Partial<Config> = {}, deps: AppDeps = {}): Promise<TestApp> {
	const env = testEnv(overrides);
	const app = await buildApp(env.config, { rsaKeyPair: nextRsaKeyPair, ...deps });
	return {
		app,
		env,
		async close() {
			await app.close();
			await env.dispose();
		},
	};
}
