// Two server processes on one PostgreSQL schema, for the rules that must hold across nodes (view
// caps, one-time answers, revocation, the last owner). Call inside a `describe`: the nodes start in
// its `before` and stop in its `after`; `store` reaches the same database for setup and checks.
// On SQLite the two processes share one database file (WAL), as test/shares/view-cap.test.ts and
// test/foundation/one-time-two-nodes.test.ts run them; a file whose rule needs what only PostgreSQL
// shares registers its tests with `if (dialect === "postgres")`, never as a skip (docs/testing.md).
import { after, before } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { type TestEnv, testEnv } from "./app.ts";
import { type ServerProcess, startServer } from "./process.ts";

export interface TwoNodes {
	env: TestEnv;
	store: Store;
	a: ServerProcess;
	b: ServerProcess;
}

export function useTwoNodes(opts: { env?: Record<string, string>; script?: string } = {}): TwoNodes {
	const nodes = {} as TwoNodes;
	before(async () => {
		nodes.env = testEnv();
		nodes.store = await openStore(nodes.env.config);
		const nodeEnv = {
			DATABASE_URL: nodes.env.config.databaseUrl,
			DATABASE_SCHEMA: nodes.env.config.databaseSchema,
			DATA_DIR: nodes.env.config.dataDir,
			DOMAIN: "svc.example",
			REDIS_URL: "",
			...opts.env,
		};
		// One after the other: the first migrates, the second finds the schema ready.
		nodes.a = await startServer(nodeEnv, opts.script);
		nodes.b = await startServer(nodeEnv, opts.script);
	});
	after(async () => {
		await Promise.all([nodes.a?.stop(), nodes.b?.stop()]);
		await nodes.store?.destroy();
		await nodes.env?.dispose();
	});
	return nodes;
}
