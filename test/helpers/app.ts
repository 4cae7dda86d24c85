// Builds an app per test on a fresh database: a temporary SQLite folder, or a fresh PostgreSQL
// schema when TEST_DATABASE_URL is set (scripts/test.mjs sets it for the PostgreSQL run).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type App, type AppDeps, buildApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { openStore } from "../../src/db/index.ts";
import { checkAnswers, describeMismatches, type Mismatch, processMismatches } from "./contract.ts";
import { nextRsaKeyPair } from "./keys.ts";

export const PG_URL = process.env.TEST_DATABASE_URL ?? "";
export const dialect = PG_URL ? "postgres" : "sqlite";

export interface TestEnv {
	config: Config;
	/** Drops the database the config points at (schema or folder). */
	dispose(): Promise<void>;
}

/**
 * SQLite: an empty database with every migration applied, made once per test process (so the
 * migrations still run in every one) and copied into each env's folder: an app's start then finds
 * its schema ready instead of migrating again, about a quarter of a core-second an app.
 */
const sqliteTemplate = PG_URL ? "" : await migratedSqlite();

async function migratedSqlite(): Promise<string> {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-template-"));
	process.on("exit", () => fs.rmSync(dataDir, { recursive: true, force: true }));
	const store = await openStore({
		databaseUrl: "",
		databaseSchema: "",
		dataDir,
		sqliteSynchronous: "NORMAL",
	});
	await store.destroy();
	const file = path.join(dataDir, "svc.sqlite");
	// Closed cleanly, SQLite has folded the write-ahead log into the file and removed it.
	if (fs.existsSync(`${file}-wal`)) throw new Error(`${file}-wal is left after closing the template`);
	return file;
}

/** A config on a fresh, empty database. Two apps built from one env share the database. */
export function testEnv(overrides: Partial<Config> = {}): TestEnv {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-"));
	const schema = PG_URL ? `t_${crypto.randomBytes(6).toString("hex")}` : "";
	if (sqliteTemplate && overrides.dataDir === undefined && !overrides.databaseUrl) {
		fs.copyFileSync(sqliteTemplate, path.join(dataDir, "svc.sqlite"));
	}
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

/**
 * A test file fails when an answer of an app it built differed from the OpenAPI document
 * (helpers/contract.ts). A file run in a process of its own: as the process exits, the mismatches
 * are written to stderr (which the runner shows for a failed file) and the exit code is 1. At exit,
 * not in a hook: a failing `after` hook would skip the file's own cleanup. Only in a test file's
 * process: a server a test spawns imports this module too. Files run together
 * (scripts/test-batch.mjs) are each failed by a last `after` hook of the batch's, with the same
 * words. CONTRACT_REPORT=<file> also gathers every file's mismatches in one place, a JSON line each
 * with the file.
 */
export function reportMismatches(found: Mismatch[], file: string): string {
	const report = process.env.CONTRACT_REPORT;
	const name = path.isAbsolute(file) ? path.relative(process.cwd(), file) : file;
	if (report)
		fs.appendFileSync(report, found.map((m) => `${JSON.stringify({ ...m, file: name })}\n`).join(""));
	return `answers that differ from the OpenAPI document:\n${describeMismatches(found)}`;
}
function failOnMismatches(file: string): void {
	process.on("exit", () => {
		const found = processMismatches.splice(0);
		if (found.length === 0) return;
		process.stderr.write(`# ${reportMismatches(found, file)}\n`);
		process.exitCode = 1;
	});
}
if (/\.(test|fixture)\.[jt]s$/.test(process.argv[1] ?? "")) failOnMismatches(process.argv[1] as string);

export interface TestApp {
	app: App;
	env: TestEnv;
	/** The answers so far that differ from the app's OpenAPI document (helpers/contract.ts). */
	mismatches: Mismatch[];
	/** Stops the app and drops its database. */
	close(): Promise<void>;
}

/**
 * Builds an app on a fresh database, every answer of which is checked against its OpenAPI
 * document (a difference fails the file at its end); `close()` stops it and drops the database.
 */
export async function makeApp(overrides: Partial<Config> = {}, deps: AppDeps = {}): Promise<TestApp> {
	const env = testEnv(overrides);
	let mismatches: Mismatch[] = [];
	const app = await buildApp(env.config, {
		rsaKeyPair: nextRsaKeyPair,
		...deps,
		extend: async (a) => {
			// Routes a test adds are its scaffolding, not the API, and go unchecked unless they ask
			// for the check (`config: { contract: true }`, as test/foundation/contract.test.ts does).
			const scaffolding = new Set<string>();
			a.addHook("onRoute", (route) => {
				if ((route.config as { contract?: boolean } | undefined)?.contract !== true)
					scaffolding.add(route.url);
			});
			// After the test's own extensions: hooks they add run before the check sees the answer.
			await deps.extend?.(a);
			mismatches = checkAnswers(a, scaffolding);
		},
	});
	return {
		app,
		env,
		get mismatches() {
			return mismatches;
		},
		async close() {
			await app.close();
			await env.dispose();
		},
	};
}
