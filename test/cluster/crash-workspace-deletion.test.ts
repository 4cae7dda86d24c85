// Crash test: a workspace with 3000 records (files among them), a section, a share read once and a
// request is deleted through the API while the compiled server is killed with SIGKILL, round after
// round. After each restart the workspace is wholly there (every row as before, every blob still
// on disk: nothing outside the database is touched before the commit) or wholly gone (no row in
// any table naming it; its blobs are orphans the sweep removes). Never half.
// Some rounds kill as soon as the deletion's write transaction is seen open (PostgreSQL:
// `backend_xid` in pg_stat_activity for the node's connections; SQLite: another connection cannot
// take the write lock); the others kill at fixed delays after the request was sent.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import { after, before, test } from "node:test";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Store } from "../../src/db/index.ts";
import { sweepBlobs } from "../../src/features/vault/files/sweeper.ts";
import { openBlobStore } from "../../src/lib/blob-store-config.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";
import {
	call,
	HOUR,
	kill9,
	LINKS,
	makePerson,
	openTestStore,
	type Person,
	REQUESTS,
	startNode,
	stopIfAlive,
	upload,
} from "../helpers/crash-node.ts";
import type { ServerProcess } from "../helpers/process.ts";

const RECORD_ROWS = 3000;
const FILES = 3;
/**
 * How each round picks its moment: "open" waits for the write transaction to be seen; "delay"
 * searches for the commit: the first waits as long as a deletion took to be answered (measured
 * once, without a kill), then a round found there doubles the wait until one is found gone, and
 * from then on the waits bisect between the last of each, so the kills close in on the commit.
 */
const ROUNDS = ["open", "open", "delay", "delay", "delay", "delay", "delay", "delay"] as const;

interface Workspace {
	id: string;
	links: string[];
	requests: string[];
	fileKeys: string[];
}

let env: TestEnv;
let store: Store;
let owner: Person;
let node: ServerProcess;
/** The node's PostgreSQL connections carry this name, so the watch sees only them. */
const appName = `crash_${crypto.randomBytes(4).toString("hex")}`;
function nodeEnv(): Record<string, string> {
	const url = env.config.databaseUrl;
	return url ? { DATABASE_URL: `${url}${url.includes("?") ? "&" : "?"}application_name=${appName}` } : {};
}

before(async () => {
	env = testEnv();
	store = await openTestStore(env);
	owner = await makePerson(store);
	node = await startNode(env, nodeEnv());
});
after(async () => {
	await stopIfAlive(node);
	await store?.destroy();
	await env?.dispose();
});

/** A non-personal workspace with 3000 records (3 of them files), a section, a share read once, a request. */
async function fill(): Promise<Workspace> {
	const { id } = await call<{ id: string }>(node, owner, "POST", "/api/collections/workspaces/records", {
		name: "Doomed",
	});
	const h = { "x-workspace": id };
	const section = await call<{ id: string }>(
		node,
		owner,
		"POST",
		"/api/collections/sections/records",
		{ key: "papers", name: "Papers", ordering: 0 },
		h,
	);
	const files: string[] = [];
	for (let i = 0; i < FILES; i++) {
		const bytes = crypto.randomBytes(64 * 1024);
		files.push((await upload(node, owner, `file${i}`, bytes, `f${i}.bin`, h, { section: section.id })).id);
	}
	// The bulk of the rows straight into the database: value records as the API writes them.
	const now = Date.now();
	const values = Array.from({ length: RECORD_ROWS - FILES }, (_, i) => ({
		id: newId(),
		workspace: id,
		key: `k${i % 40}`,
		name: "",
		kind: "value" as const,
		value: `value ${i}`,
		section: i % 10 === 0 ? section.id : null,
		hidden: 0,
		alias: null,
		identity: null,
		file_key: null,
		file_name: null,
		file_type: null,
		file_size: null,
		file_sha256: null,
		version: 1,
		created: now,
		updated: now,
	}));
	for (let i = 0; i < values.length; i += 200) {
		await store.db
			.insertInto("records")
			.values(values.slice(i, i + 200))
			.execute();
	}
	const link = await call<{ id: string; slug: string }>(
		node,
		owner,
		"POST",
		LINKS,
		{
			label: "Doomed share",
			records: [...files, ...values.slice(0, 200).map((v) => v.id)],
			sections: [section.id],
		},
		h,
	);
	const read = await fetch(`${node.url}/api/public/links/${link.slug}`, { method: "POST" });
	assert.equal(read.status, 200);
	const request = await call<{ id: string }>(
		node,
		owner,
		"POST",
		REQUESTS,
		{ label: "Doomed request", items: [{ key: "name", label: "Name", type: "text", required: true }] },
		h,
	);
	const keys = await store.db.selectFrom("records").select("file_key").where("id", "in", files).execute();
	return { id, links: [link.id], requests: [request.id], fileKeys: keys.map((k) => k.file_key as string) };
}

/** Tables with a `workspace` column, found in the database itself (src/db/schema.ts names them). */
async function workspaceTables(): Promise<string[]> {
	const tables = await store.db.introspection.getTables();
	return tables
		.filter((t) => dialect === "sqlite" || t.schema === env.config.databaseSchema)
		.filter((t) => t.columns.some((c) => c.name === "workspace"))
		.map((t) => t.name)
		.sort();
}

/** Every row that names the workspace, directly or through its shares and requests, per table. */
async function rowsNaming(tables: string[], w: Workspace): Promise<Record<string, number>> {
	const count = async (table: string, column: string, ids: string[]) => {
		const { rows } = await sql<{
			n: number | string;
		}>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(ids)})`.execute(
			store.db,
		);
		return Number(rows[0]?.n);
	};
	const out: Record<string, number> = { workspaces: await count("workspaces", "id", [w.id]) };
	for (const t of tables) out[t] = await count(t, "workspace", [w.id]);
	for (const t of ["link_records", "link_sections", "link_tokens", "grant_tokens"])
		out[t] = await count(t, "link", w.links);
	out.outbox = await count("outbox", "request", w.requests);
	return out;
}

/** Whether a write transaction of the node is open right now. */
function writeWatch(): { open(): Promise<boolean>; close(): void } {
	if (dialect === "postgres") {
		return {
			open: async () => {
				const { rows } = await sql<{ n: number | string }>`select count(*) as n from pg_stat_activity
					where application_name = ${appName} and backend_xid is not null`.execute(store.db);
				return Number(rows[0]?.n) > 0;
			},
			close() {},
		};
	}
	// SQLite has one writer: a write lock this connection cannot take is held by the node (by the
	// deletion, or for an instant by the outbox's claim: either way nothing has committed yet).
	const probe = new SQLite(path.join(env.config.dataDir, "svc.sqlite"), { timeout: 0 });
	return {
		open: async () => {
			try {
				probe.exec("BEGIN IMMEDIATE");
				probe.exec("ROLLBACK");
				return false;
			} catch (err) {
				if ((err as { code?: string }).code === "SQLITE_BUSY") return true;
				throw err;
			}
		},
		close: () => probe.close(),
	};
}

/** DELETE on the workspace; `sent` resolves once the request has left, `ended` with its status (0: none). */
function deleteWorkspace(id: string) {
	const req = http.request({
		host: "127.0.0.1",
		port: node.port,
		method: "DELETE",
		path: `/api/collections/workspaces/records/${id}`,
		headers: owner.headers,
	});
	let status = 0;
	const ended = new Promise<number>((resolve) => {
		req.on("response", (res) => {
			status = res.statusCode ?? 0;
			res.resume().on("end", () => resolve(status));
		});
		req.on("error", () => resolve(status));
	});
	const sent = new Promise<void>((resolve) => req.end(resolve));
	return { sent, ended, answered: () => status !== 0 };
}

test("kill -9 during a workspace deletion: after each restart wholly there or wholly gone", async (t) => {
	const tables = await workspaceTables();
	assert.ok(
		tables.includes("records") && tables.includes("links") && tables.includes("requests"),
		String(tables),
	);
	const blobs = openBlobStore(env.config);
	const exists = async (keys: string[]) =>
		(await Promise.all(keys.map((k) => blobs.size(k)))).filter((s) => s !== undefined).length;
	const tally = { there: 0, gone: 0, killedInTransaction: 0 };
	let w = await fill();
	const timed = deleteWorkspace(w.id);
	await timed.sent;
	const started = performance.now();
	assert.equal(await timed.ended, 204);
	const measured = performance.now() - started;
	t.diagnostic(`a deletion without a kill is answered in ${measured.toFixed(0)} ms`);
	const search: { there: number; gone?: number } = { there: 0 };
	w = await fill();
	for (const [round, when] of ROUNDS.entries()) {
		const rowsBefore = await rowsNaming(tables, w);
		assert.equal(rowsBefore.records, RECORD_ROWS);
		assert.equal(await exists(w.fileKeys), FILES);
		const del = deleteWorkspace(w.id);
		await del.sent;
		let inTransaction = false;
		const delay =
			search.gone !== undefined
				? (search.there + search.gone) / 2
				: search.there === 0
					? measured
					: 2 * search.there;
		if (when === "open") {
			const watch = writeWatch();
			try {
				const deadline = Date.now() + 10_000;
				while (!del.answered() && Date.now() < deadline) {
					inTransaction = await watch.open();
					if (inTransaction) break;
					await new Promise((r) => setImmediate(r));
				}
			} finally {
				watch.close();
			}
		} else await new Promise((r) => setTimeout(r, delay));
		await kill9(node);
		const status = await del.ended;
		node = await startNode(env, nodeEnv());

		const rowsAfter = await rowsNaming(tables, w);
		const gone = Object.values(rowsAfter).every((n) => n === 0);
		if (!gone) assert.deepEqual(rowsAfter, rowsBefore, `round ${round}: half-deleted`);
		if (status !== 0) assert.equal(status, 204);
		if (status === 204) assert.ok(gone, "an acknowledged deletion is durable");
		if (inTransaction) tally.killedInTransaction++;
		if (when === "delay") search[gone ? "gone" : "there"] = delay;
		t.diagnostic(
			`round ${round} (${when === "open" ? "transaction open" : `${delay.toFixed(0)} ms`}): ` +
				`${gone ? "gone" : "there"}` +
				`${status ? `, answered ${status}` : ""}${inTransaction ? ", killed with the transaction open" : ""}`,
		);
		if (!gone) {
			tally.there++;
			// Blobs go only after the commit: a rolled-back deletion has them all.
			assert.equal(await exists(w.fileKeys), FILES, "no blob removed before the commit");
			continue;
		}
		tally.gone++;
		// A kill between the commit and the blob removal leaves orphans: the sweep takes them.
		const left = await exists(w.fileKeys);
		const swept = await sweepBlobs(store.db, blobs, Date.now() + 2 * HOUR);
		assert.equal(swept.orphans, left);
		assert.equal(await exists(w.fileKeys), 0);
		w = await fill();
	}
	t.diagnostic(
		`${ROUNDS.length} rounds: ${tally.there} wholly there, ${tally.gone} wholly gone; ` +
			`${tally.killedInTransaction} killed with the deletion's transaction seen open`,
	);
	assert.ok(tally.killedInTransaction >= 1, "at least one kill landed inside the deletion's transaction");
});
