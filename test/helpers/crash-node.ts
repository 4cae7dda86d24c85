// A node that can be killed: the compiled server as its own process on a test database, an owner
// made directly in that database, and small HTTP helpers for the crash tests (test/cluster/crash*).
// "Restart" is a new process on the same env (same DATA_DIR, same PostgreSQL schema).
import assert from "node:assert/strict";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import type { TestEnv } from "./app.ts";
import { ensureBuilt } from "./build.ts";
import { type ServerProcess, startServer } from "./process.ts";

export const MB = 1024 * 1024;
export const HOUR = 60 * 60_000;
export const RECORDS = "/api/collections/records/records";
export const LINKS = "/api/collections/links/records";
export const REQUESTS = "/api/collections/requests/records";

export interface Person {
	accountId: string;
	workspaceId: string;
	headers: Record<string, string>;
}

/** An account with its personal workspace and a session, written straight into the database. */
export async function makePerson(store: Store): Promise<Person> {
	const now = Date.now();
	const { accountId, workspaceId } = await createAccount(
		store.db,
		{ email: `crash-${newId()}@example.org` },
		now,
	);
	const { token } = await createSession(store.db, accountId, now);
	return { accountId, workspaceId, headers: { authorization: `Bearer ${token}` } };
}

/** The test's own connection to the database (migrated here first, so nodes find it ready). */
export const openTestStore = (env: TestEnv) => openStore(env.config);

/** The compiled server (plain Node, as in production) on `env`'s database and DATA_DIR. */
export function startNode(env: TestEnv, extra: Record<string, string> = {}): Promise<ServerProcess> {
	return startServer(
		{
			DATA_DIR: env.config.dataDir,
			DATABASE_URL: env.config.databaseUrl,
			DATABASE_SCHEMA: env.config.databaseSchema,
			DOMAIN: "localhost",
			REDIS_URL: "",
			ALLOW_PRIVATE_CALLBACKS: "true",
			// The compiled server announces itself in its `listening` log line.
			LOG_LEVEL: "info",
			NODE_OPTIONS: "",
			...extra,
		},
		ensureBuilt(),
	);
}

/** kill -9, and waits until the process is gone. */
export async function kill9(node: ServerProcess): Promise<void> {
	await node.stop("SIGKILL");
	assert.equal(node.child.signalCode, "SIGKILL", node.output());
}

/** Stops a node still running (SIGTERM); one already killed is left as it is. */
export async function stopIfAlive(node: ServerProcess | undefined): Promise<void> {
	// `stop()` waits for a 'close' that a process killed by a signal has already emitted.
	if (node && node.child.exitCode === null && node.child.signalCode === null) await node.stop();
}

/** A JSON call to a node that must answer 200; answers the body. */
export async function call<T = Record<string, unknown>>(
	node: ServerProcess,
	who: Person,
	method: string,
	pathname: string,
	body?: unknown,
	headers: Record<string, string> = {},
): Promise<T> {
	const res = await fetch(`${node.url}${pathname}`, {
		method,
		headers: {
			...who.headers,
			...headers,
			...(body === undefined ? {} : { "content-type": "application/json" }),
		},
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
	const text = await res.text();
	assert.equal(res.status, 200, `${method} ${pathname}: ${res.status} ${text}`);
	return JSON.parse(text) as T;
}

/** A file record uploaded through the node. */
export async function upload(
	node: ServerProcess,
	who: Person,
	key: string,
	bytes: Uint8Array,
	name: string,
	headers: Record<string, string> = {},
	fields: Record<string, string> = {},
): Promise<{ id: string; file: { size: number; sha256: string } }> {
	const form = new FormData();
	form.append("key", key);
	for (const [k, v] of Object.entries(fields)) form.append(k, v);
	form.append("file", new Blob([new Uint8Array(bytes)]), name);
	const res = await fetch(`${node.url}${RECORDS}`, {
		method: "POST",
		headers: { ...who.headers, ...headers },
		body: form,
	});
	const text = await res.text();
	assert.equal(res.status, 200, text);
	return JSON.parse(text);
}

/** Polls `check` every few milliseconds until it is true. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 15_000) {
	const deadline = Date.now() + ms;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 5));
	}
}
