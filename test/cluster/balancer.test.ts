// Two compiled server processes on one PostgreSQL schema and Redis, their files on an S3 server
// (s3rver), behind Debian's haproxy: the journeys an operator's users take, through the balancer.
// Each node has a DATA_DIR of its own, so nothing can come from a local folder by accident.
// PostgreSQL pass only (one node per SQLite file); registered, never skipped (docs/testing.md).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { FormData } from "undici";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";
import {
	answeringNodes,
	type Balancer,
	closeClients,
	fetchFrom,
	newClientAddress,
	startBalancer,
} from "../helpers/balancer.ts";
import { ensureBuilt } from "../helpers/build.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { startS3, type TestS3 } from "../helpers/s3.ts";

if (dialect === "postgres") cluster();

const RECORDS = "/api/collections/records/records";
const LINKS = "/api/collections/links/records";
const REQUESTS = "/api/collections/requests/records";
const CONNECT_LIMIT = 5;

const sha = (b: Uint8Array) => crypto.createHash("sha256").update(b).digest("hex");

function cluster() {
	describe("two nodes behind haproxy, files on S3", () => {
		let env: TestEnv;
		let store: Store;
		let s3: TestS3;
		let receiver: Receiver;
		let nodeEnv: Record<string, string>;
		const nodes: ServerProcess[] = [];
		const dataDirs: TestEnv[] = [];
		let lb: Balancer;
		let owner: { token: string; workspaceId: string };
		const me = newClientAddress();

		const startNode = async (port = 0) => {
			const own = testEnv(); // a DATA_DIR of its own; the database is the shared one
			dataDirs.push(own);
			return startServer({ ...nodeEnv, DATA_DIR: own.config.dataDir, PORT: String(port) }, ensureBuilt());
		};

		before(async () => {
			env = testEnv();
			store = await openStore(env.config);
			s3 = await startS3();
			receiver = await startReceiver();
			const bucket = await s3.bucket();
			const files = s3.config(bucket, "nodes/");
			nodeEnv = {
				DATABASE_URL: env.config.databaseUrl,
				DATABASE_SCHEMA: env.config.databaseSchema,
				DOMAIN: "svc.example",
				REDIS_URL: "redis://127.0.0.1:6379",
				TRUST_PROXY: "true",
				BLOB_STORE: "s3",
				S3_BUCKET: bucket,
				S3_PREFIX: String(files.s3Prefix),
				S3_ENDPOINT: String(files.s3Endpoint),
				S3_FORCE_PATH_STYLE: "true",
				S3_ACCESS_KEY_ID: "S3RVER",
				S3_SECRET_ACCESS_KEY: "S3RVER",
				ALLOW_PRIVATE_CALLBACKS: "true",
				RATELIMIT_CONNECT_REQUESTS: String(CONNECT_LIMIT),
				AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
				LOG_LEVEL: "info", // the compiled server announces itself in its `listening` line
			};
			// One after the other: the first migrates, the second finds the schema ready.
			nodes.push(await startNode());
			nodes.push(await startNode());
			lb = await startBalancer(nodes.map((n, i) => ({ name: `node${i + 1}`, port: n.port })));
			const now = Date.now();
			const { accountId, workspaceId } = await createAccount(
				store.db,
				{ email: `owner-${newId()}@example.org` },
				now,
			);
			owner = { token: (await createSession(store.db, accountId, now)).token, workspaceId };
		});
		after(async () => {
			await lb?.stop();
			await Promise.all(nodes.map((n) => n.stop()));
			await closeClients();
			await receiver?.close();
			await s3?.close();
			await store?.destroy();
			await env?.dispose();
			for (const d of dataDirs) await d.dispose();
		});

		const call = (pathname: string, init: Parameters<typeof fetchFrom>[2] = {}, from = me) =>
			fetchFrom(from, `${lb.url}${pathname}`, {
				...init,
				headers: { authorization: `Bearer ${owner.token}`, ...(init.headers as Record<string, string>) },
			});
		const json = async (pathname: string, body: unknown, from = me) => {
			const res = await call(
				pathname,
				{ method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } },
				from,
			);
			const text = await res.text();
			assert.equal(res.status, 200, `${pathname}: ${res.status} ${text}`);
			return JSON.parse(text);
		};
		const diagnostics = () => `${lb.output()}\n${nodes.map((n) => n.output()).join("\n---\n")}`;

		test("the balancer spreads requests over both nodes", async () => {
			const seen = await answeringNodes(lb.url, 6);
			assert.deepEqual([...seen].sort(), ["node1", "node2"]);
		});

		test("a file uploaded through one node downloads through the other, from the shared bucket", async () => {
			const bytes = crypto.randomBytes(6 * 1024 * 1024 + 11);
			const form = new FormData();
			form.append("key", "contract");
			form.append("file", new Blob([bytes]), "contract.bin");
			const up = await call(RECORDS, { method: "POST", body: form });
			const record = (await up.json()) as { id: string; file: { sha256: string } };
			assert.equal(up.status, 200, JSON.stringify(record));
			const storedBy = up.headers.get("x-svc-node");
			assert.equal(record.file.sha256, sha(bytes));
			for (const node of nodes) {
				const { token } = (await (
					await fetchFrom(me, `${node.url}/api/files/token`, {
						method: "POST",
						headers: { authorization: `Bearer ${owner.token}` },
					})
				).json()) as { token: string };
				const res = await fetchFrom(me, `${node.url}/api/files/${record.id}?token=${token}`);
				assert.equal(res.status, 200, `node ${node.port} (stored by ${storedBy})`);
				assert.equal(sha(new Uint8Array(await res.arrayBuffer())), sha(bytes));
			}
		});

		test("a view cap holds: 30 readers at once through the balancer, exactly 5 see the values", async () => {
			const rec = await json(RECORDS, { key: "email", value: "ann@example.org" });
			const link = await json(LINKS, { records: [rec.id], maxViews: 5 });
			const results = await Promise.all(
				Array.from({ length: 30 }, () =>
					fetchFrom(newClientAddress(), `${lb.url}/api/public/links/${link.slug}`, { method: "POST" }).then(
						async (r) => ({ status: r.status, node: r.headers.get("x-svc-node"), body: await r.text() }),
					),
				),
			);
			const ok = results.filter((r) => r.status === 200);
			assert.equal(ok.length, 5, JSON.stringify(results.map((r) => r.status)));
			assert.deepEqual(new Set(results.map((r) => r.node)), new Set(["node1", "node2"]), "both nodes served");
			const row = await store.db
				.selectFrom("links")
				.select(["view_count", "status"])
				.where("id", "=", link.id)
				.executeTakeFirstOrThrow();
			assert.equal(row.view_count, 5);
		});

		test("a one-time download token is spent once, whichever node gets it", async () => {
			const form = new FormData();
			form.append("key", "scan");
			form.append("file", new Blob([Buffer.from("one copy only\n")]), "scan.txt");
			const up = await call(RECORDS, { method: "POST", body: form });
			const file = (await up.json()) as { id: string };
			const link = await json(LINKS, { records: [file.id] });
			const first = await fetchFrom(newClientAddress(), `${lb.url}/api/public/links/${link.slug}`, {
				method: "POST",
			});
			const resolved = (await first.json()) as { records: { downloadToken: string }[] };
			assert.equal(first.status, 200, JSON.stringify(resolved));
			const url = `${lb.url}/api/public/links/${link.slug}/files/${file.id}?dl=${resolved.records[0]?.downloadToken}`;
			const statuses = await Promise.all(
				Array.from({ length: 10 }, () =>
					fetchFrom(newClientAddress(), url).then(async (r) => {
						await r.arrayBuffer();
						return r.status;
					}),
				),
			);
			assert.deepEqual(statuses.sort(), [200, ...Array(9).fill(401)], "one download, nine refusals");
		});

		test("rate limits are counted across nodes (Redis): the connect limit holds for one client", async () => {
			const client = newClientAddress();
			const statuses: number[] = [];
			const servedBy = new Set<string>();
			for (let i = 0; i < CONNECT_LIMIT * 2; i++) {
				const res = await fetchFrom(client, `${lb.url}/api/connect/token`, {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify({ verifier: "x".repeat(43) }),
				});
				await res.arrayBuffer();
				statuses.push(res.status);
				servedBy.add(res.headers.get("x-svc-node") ?? "");
			}
			assert.deepEqual([...servedBy].sort(), ["node1", "node2"], "both nodes counted");
			assert.equal(statuses.filter((s) => s !== 429).length, CONNECT_LIMIT, JSON.stringify(statuses));
			assert.deepEqual(statuses.slice(CONNECT_LIMIT), Array(CONNECT_LIMIT).fill(429));
		});

		test("the outbox delivers each submission callback once, with both nodes running it", async () => {
			const request = await json(REQUESTS, {
				label: "Tenant application",
				items: [{ key: "name", label: "Full name", type: "text", required: true }],
				callbackUrl: `${receiver.url}/hook`,
			});
			const answers = 12;
			const responses: string[] = [];
			await Promise.all(
				Array.from({ length: answers }, async (_, i) => {
					const now = Date.now();
					const who = await createAccount(store.db, { email: `r${i}-${newId()}@example.org` }, now);
					const { token } = await createSession(store.db, who.accountId, now);
					const res = await fetchFrom(newClientAddress(), `${lb.url}/api/public/requests/${request.slug}`, {
						method: "POST",
						headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
						body: JSON.stringify({ values: { name: `Responder ${i}` } }),
					});
					const body = (await res.json()) as { responseId: string };
					assert.equal(res.status, 200, JSON.stringify(body));
					responses.push(body.responseId);
				}),
			);
			const mine = () =>
				receiver.received.map((r) => r.json()).filter((b) => b.requestId === request.id && !("event" in b));
			const deadline = Date.now() + 30_000;
			while (mine().length < answers && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
			// Two more passes of both loops (one a second): nothing arrives twice.
			await new Promise((r) => setTimeout(r, 2500));
			const got = mine().map((b) => b.responseId as string);
			assert.equal(got.length, answers, `each answer's callback once:\n${diagnostics()}`);
			assert.deepEqual([...got].sort(), [...responses].sort());
			const rows = await store.db
				.selectFrom("outbox")
				.select(["state", "attempts"])
				.where("request", "=", request.id)
				.execute();
			assert.equal(rows.length, answers);
			assert.ok(
				rows.every((r) => r.state === "delivered" && r.attempts === 1),
				JSON.stringify(rows),
			);
		});

		test("a node killed (-9) mid-traffic loses nothing that was acknowledged", async (t) => {
			const acknowledged: { id: string; value: string }[] = [];
			const failed: { status: number; afterKill: number }[] = [];
			let killedAt = 0;
			let sent = 0;
			const total = 240;
			let killed = false;
			const worker = async () => {
				while (sent < total) {
					const value = `v-${sent++}-${newId()}`;
					if (!killed && acknowledged.length >= 60) {
						killed = true;
						killedAt = Date.now();
						nodes[1]?.child.kill("SIGKILL");
					}
					try {
						const res = await call(RECORDS, {
							method: "POST",
							headers: { "content-type": "application/json" },
							body: JSON.stringify({ key: "counter", value }),
						});
						const body = (await res.json().catch(() => ({}))) as { id?: string };
						if (res.status === 200 && body.id) acknowledged.push({ id: body.id, value });
						else failed.push({ status: res.status, afterKill: Date.now() - killedAt });
					} catch {
						failed.push({ status: 0, afterKill: Date.now() - killedAt }); // the connection broke
					}
				}
			};
			await Promise.all(Array.from({ length: 8 }, worker));
			assert.ok(killed);
			// What a node acknowledged is in the database, with the value it acknowledged.
			const rows = await store.db
				.selectFrom("records")
				.select(["id", "value"])
				.where(
					"id",
					"in",
					acknowledged.map((a) => a.id),
				)
				.execute();
			const stored = new Map(rows.map((r) => [r.id, r.value]));
			for (const a of acknowledged) assert.equal(stored.get(a.id), a.value, `acknowledged ${a.id} is kept`);
			// Only requests caught by the kill may fail: those in flight on the killed node (502, or a
			// broken connection), within the second the balancer takes to mark it down; then the
			// survivor takes everything.
			assert.ok(
				failed.every((f) => killedAt > 0 && f.afterKill >= 0 && f.afterKill < 2000),
				`failed: ${JSON.stringify(failed)}\n${lb.output()}`,
			);
			assert.ok(acknowledged.length >= total - 3 * 8, `most are acknowledged: ${acknowledged.length}`);
			assert.equal(acknowledged.length + failed.length, total);
			t.diagnostic(
				`${acknowledged.length} acknowledged and kept, ${failed.length} failed: ${JSON.stringify(failed)}`,
			);

			// The node comes back on its address and the balancer takes it in again.
			nodes[1] = await startNode(nodes[1]?.port);
			const deadline = Date.now() + 15_000;
			let served = new Set<string>();
			while (served.size < 2 && Date.now() < deadline) {
				served = await answeringNodes(lb.url, 4);
				if (served.size < 2) await new Promise((r) => setTimeout(r, 250));
			}
			assert.deepEqual([...served].sort(), ["node1", "node2"], lb.output());
		});
	});
}
