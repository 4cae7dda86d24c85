// `svc admin backup` and `svc admin restore`, run as the built command against a running server
// process: a backup taken while the server serves, then changes made after it (a file deleted, a
// file added, an identity revoked, another issued), then a restore into an empty DATA_DIR and a
// server started on it. What comes back is the backup's state: the same root key, the files of
// the backup with their bytes, and identity standing as docs/operations.md says (a revocation
// after the backup undone, an identity issued after it `unknown`). On PostgreSQL the command
// points at pg_dump and writes nothing.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { createIdentity, revokeIdentity } from "../../src/features/identity/service.ts";
import { loadRootKey } from "../../src/features/server/root-key.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { ensureCliBuilt, type Svc, svc } from "../helpers/svc-cli.ts";

const DOMAIN = "backup.test";

const serverEnv = (env: TestEnv, dataDir = env.config.dataDir) => ({
	DATABASE_URL: env.config.databaseUrl,
	DATABASE_SCHEMA: env.config.databaseSchema,
	DATA_DIR: dataDir,
	DOMAIN,
	REDIS_URL: "",
});

if (dialect === "sqlite") {
	describe("svc admin backup and restore (SQLite)", () => {
		let env: TestEnv;
		let work: string;
		let cli: Svc;
		let server: ServerProcess;
		let store: Store;
		let headers: Record<string, string>;
		let owner: { accountId: string; workspaceId: string };

		before(async () => {
			ensureCliBuilt();
			env = testEnv();
			work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-backup-"));
			cli = svc(work);
			server = await startServer(serverEnv(env));
			store = await openStore(env.config);
			const now = Date.now();
			owner = await createAccount(store.db, { email: "owner@backup.test" }, now);
			headers = { authorization: `Bearer ${(await createSession(store.db, owner.accountId, now)).token}` };
		});
		after(async () => {
			await server?.stop();
			await store?.destroy();
			await env?.dispose();
			fs.rmSync(work, { recursive: true, force: true });
		});

		const upload = async (base: string, name: string, bytes: Buffer) => {
			const f = new FormData();
			f.append("key", name.replace(/\W/g, "_"));
			f.append("file", new Blob([new Uint8Array(bytes)], { type: "application/octet-stream" }), name);
			const res = await fetch(`${base}/api/collections/records/records`, {
				method: "POST",
				headers,
				body: f,
			});
			assert.equal(res.status, 200, await res.clone().text());
			return ((await res.json()) as { id: string }).id;
		};
		const download = async (base: string, recordId: string) => {
			const { token } = (await (
				await fetch(`${base}/api/files/token`, { method: "POST", headers })
			).json()) as {
				token: string;
			};
			const res = await fetch(`${base}/api/files/${recordId}?token=${encodeURIComponent(token)}`);
			return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
		};
		const standing = async (base: string, fingerprint: string) => {
			const res = await fetch(`${base}/api/identities/${fingerprint}/status`);
			const { payload } = (await res.json()) as { payload: string };
			return (JSON.parse(Buffer.from(payload, "base64url").toString()) as { status: string }).status;
		};
		const identity = async (name: string) => {
			const root = await loadRootKey(store.db, DOMAIN, systemClock);
			return createIdentity(
				store.db,
				root,
				{ domain: DOMAIN },
				{ ...owner, name, publicKey: (await deviceKey()).publicJwk },
				Date.now(),
			);
		};

		test("a backup taken while serving restores to that moment, root key, files and standing", async () => {
			const kept = crypto.randomBytes(300_000);
			const keptId = await upload(server.url, "kept.bin", kept);
			const gone = crypto.randomBytes(1000);
			const goneId = await upload(server.url, "deleted-after.bin", gone);
			const before = await identity("before the backup");
			const fingerprint = (
				(await (await fetch(`${server.url}/api/server`)).json()) as { fingerprint: string }
			).fingerprint;

			const dir = path.join(work, "backup-1");
			const backup = await cli.run(["admin", "backup", "--to", dir], { env: serverEnv(env) });
			assert.equal(backup.code, 0, backup.stderr);
			const manifest = JSON.parse(backup.stdout) as Record<string, unknown>;
			assert.deepEqual(
				{ ...manifest, created: "" },
				{ format: 1, created: "", domain: DOMAIN, database: "sqlite", records: 2, files: 2, bytes: 301_000 },
			);
			assert.match(backup.stderr, /Backed up 2 records and 2 files/);

			// After the backup: one file deleted, another added, the identity revoked, another issued.
			const del = await fetch(`${server.url}/api/collections/records/records/${goneId}`, {
				method: "DELETE",
				headers,
			});
			assert.equal(del.status, 204);
			const laterId = await upload(server.url, "added-after.bin", crypto.randomBytes(500));
			await revokeIdentity(store.db, owner.workspaceId, before.id, Date.now());
			const after = await identity("after the backup");
			assert.equal(await standing(server.url, before.fingerprint), "revoked");
			await server.stop();

			// Restore into an empty DATA_DIR and serve from it.
			const restoredDir = path.join(work, "restored");
			const restore = await cli.run(["admin", "restore", "--from", dir], {
				env: serverEnv(env, restoredDir),
			});
			assert.equal(restore.code, 0, restore.stderr);
			assert.match(restore.stderr, /repeat any identity revocation made after/);
			server = await startServer(serverEnv(env, restoredDir));
			const served = (await (await fetch(`${server.url}/api/server`)).json()) as { fingerprint: string };
			assert.equal(served.fingerprint, fingerprint, "the same root key: the DNS pin still holds");
			const keptBack = await download(server.url, keptId);
			assert.equal(keptBack.status, 200);
			assert.equal(keptBack.bytes.equals(kept), true);
			const goneBack = await download(server.url, goneId);
			assert.equal(goneBack.status, 200, "deleted after the backup: back with its bytes");
			assert.equal(goneBack.bytes.equals(gone), true);
			assert.equal((await download(server.url, laterId)).status, 404, "added after the backup: not in it");
			assert.equal(
				await standing(server.url, before.fingerprint),
				"active",
				"a revocation after the backup is undone",
			);
			assert.equal(await standing(server.url, after.fingerprint), "unknown", "issued after the backup");

			// Restoring again over what is there is refused, and changes nothing.
			const again = await cli.run(["admin", "restore", "--from", dir], { env: serverEnv(env, restoredDir) });
			assert.equal(again.code, 2);
			assert.match(again.stderr, /already holds a database/);
		});

		test("refusals: a folder that is not empty, no --to, a folder that is not a backup", async () => {
			const full = path.join(work, "full");
			fs.mkdirSync(full);
			fs.writeFileSync(path.join(full, "x"), "x");
			const notEmpty = await cli.run(["admin", "backup", "--to", full], { env: serverEnv(env) });
			assert.equal(notEmpty.code, 2);
			assert.match(notEmpty.stderr, /is not empty/);
			assert.equal((await cli.run(["admin", "backup"], { env: serverEnv(env) })).code, 2);
			const notBackup = await cli.run(["admin", "restore", "--from", full], {
				env: serverEnv(env, path.join(work, "elsewhere")),
			});
			assert.equal(notBackup.code, 2);
			assert.match(notBackup.stderr, /not a finished backup/);
			assert.equal(fs.existsSync(path.join(work, "elsewhere", "svc.sqlite")), false);
		});
	});
} else {
	describe("svc admin backup on PostgreSQL", () => {
		let env: TestEnv;
		let work: string;
		before(() => {
			ensureCliBuilt();
			env = testEnv();
			work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-backup-"));
		});
		after(async () => {
			await env?.dispose();
			fs.rmSync(work, { recursive: true, force: true });
		});

		test("points at pg_dump and writes nothing", async () => {
			const dir = path.join(work, "b");
			const r = await svc(work).run(["admin", "backup", "--to", dir], { env: serverEnv(env) });
			assert.equal(r.code, 2);
			assert.match(r.stderr, /pg_dump/);
			assert.equal(fs.existsSync(dir), false);
			const restore = await svc(work).run(["admin", "restore", "--from", dir], { env: serverEnv(env) });
			assert.equal(restore.code, 2);
			assert.match(restore.stderr, /pg_restore/);
		});
	});
}
