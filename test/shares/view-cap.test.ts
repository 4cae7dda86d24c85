// The view cap under contention, against real server processes: 200 concurrent resolves of a share
// with maxViews=10, spread over two processes on one database, give exactly 10 successes. On
// SQLite too: two processes on one database file (WAL) open the window between a reader's status
// check and its view update, which one process never opens (its SQLite calls run without yielding
// to the next request), so the conditional view update is guarded on both dialects. A share with a
// password widens the window in each process too: scrypt runs on the thread pool between the
// status gate and the view.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildApp } from "../../src/app.ts";
import { PG_URL, type TestEnv, testEnv } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";
import { type ServerProcess, startServers } from "../helpers/process.ts";
import { createLink, createValue, LINKS } from "./helpers.ts";

const READERS = 200;
/** Fewer for the password share: each reader costs an scrypt (about 32 MiB, tens of ms). */
const GATED_READERS = 80;
const CAP = 10;
const PASSWORD = "correct horse";

describe(`view cap with ${READERS} concurrent readers on two processes on ${PG_URL ? "PostgreSQL" : "one SQLite file"}`, () => {
	let env: TestEnv;
	let nodes: ServerProcess[] = [];
	let plain: { slug: string; id: string };
	let gated: { slug: string; id: string };
	let headers: Record<string, string>;

	before(async () => {
		env = testEnv();
		const setup = await buildApp(env.config);
		try {
			const owner = await buildAccount(setup);
			headers = owner.headers;
			const rec = await createValue(setup, owner, { key: "k", value: "the value" });
			plain = await createLink(setup, owner, { records: [rec.id], maxViews: CAP });
			gated = await createLink(setup, owner, { records: [rec.id], maxViews: CAP, password: PASSWORD });
		} finally {
			await setup.close();
		}
		const nodeEnv = {
			DATABASE_URL: env.config.databaseUrl,
			DATABASE_SCHEMA: env.config.databaseSchema,
			DATA_DIR: env.config.dataDir,
			DOMAIN: "svc.example",
			REDIS_URL: "",
			// Each reader comes from its own address (X-Forwarded-For), as separate clients would.
			TRUST_PROXY: "true",
		};
		nodes = await startServers([nodeEnv, nodeEnv]);
	});
	after(async () => {
		await Promise.all(nodes.map((n) => n.stop()));
		await env?.dispose();
	});

	/** `readers` concurrent resolves, spread over both processes, each from its own address. */
	async function race(share: { slug: string; id: string }, readers: number, body?: object) {
		const results = await Promise.all(
			Array.from({ length: readers }, async (_, i) => {
				const node = nodes[i % nodes.length] as ServerProcess;
				const res = await fetch(`${node.url}/api/public/links/${share.slug}`, {
					method: "POST",
					headers: {
						"x-forwarded-for": `198.19.${i >> 8}.${i & 255}`,
						...(body ? { "content-type": "application/json" } : {}),
					},
					...(body ? { body: JSON.stringify(body) } : {}),
				});
				const json = (await res.json()) as { viewCount?: number; code?: string };
				return { status: res.status, body: json };
			}),
		);
		const ok = results.filter((r) => r.status === 200);
		const refused = results.filter((r) => r.status !== 200);
		assert.equal(ok.length, CAP, JSON.stringify(results.filter((r) => r.status !== 404).slice(0, 5)));
		assert.deepEqual(
			ok.map((r) => r.body.viewCount).sort((x, y) => (x ?? 0) - (y ?? 0)),
			Array.from({ length: CAP }, (_, i) => i + 1),
		);
		assert.ok(refused.every((r) => r.status === 404 && r.body.code === "link_expired"));

		const node = nodes[0] as ServerProcess;
		const view = await fetch(`${node.url}${LINKS}/${share.id}`, { headers });
		const link = (await view.json()) as { viewCount: number; status: string };
		assert.equal(link.viewCount, CAP);
		assert.equal(link.status, "expired");

		// The read log holds one entry per view taken, written with the view: no more, no fewer.
		const filter = encodeURIComponent(`link='${share.id}'`);
		const log = await fetch(`${node.url}/api/collections/linkReads/records?filter=${filter}&perPage=500`, {
			headers,
		});
		const reads = ((await log.json()) as { items: { view: number; kind: string }[] }).items;
		assert.deepEqual(
			reads.map((r) => r.view).sort((x, y) => x - y),
			Array.from({ length: CAP }, (_, i) => i + 1),
		);
		assert.ok(reads.every((r) => r.kind === "api"));
	}

	test(`exactly ${CAP} of ${READERS} succeed; the others are refused link_expired; viewCount ends at ${CAP}`, () =>
		race(plain, READERS));

	test(`with a password, exactly ${CAP} of ${GATED_READERS} succeed as well`, () =>
		race(gated, GATED_READERS, { password: PASSWORD }));
});
