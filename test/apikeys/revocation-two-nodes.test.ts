import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createApiKey } from "../../src/features/apikeys/service.ts";
import { dialect } from "../helpers/app.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { useTwoNodes } from "../helpers/two-nodes.ts";
import { account } from "./helpers.ts";

// Two nodes share state only through PostgreSQL; on SQLite there is one node per database file, so
// this file has nothing to run in the SQLite pass. It runs in the PostgreSQL pass, which every full
// run of scripts/test.mjs includes (the runner fails without TEST_PG_URL), and a node that cannot
// start fails it. It is not registered as a skip: a skip fails the runner (docs/testing.md).
if (dialect === "postgres") twoNodes();

function twoNodes() {
	describe("revoking a key takes effect on the next request on every node", () => {
		const nodes = useTwoNodes({ script: "test/apikeys/probe-server.ts" });

		test("a key revoked through node B is refused by node A at once", async () => {
			const { store, a, b } = nodes;
			const owner = await account(store.db, Date.now());
			const { key, plainToken } = await createApiKey(
				store.db,
				{ ...owner, name: "two nodes", permissions: ["links:read"] },
				Date.now(),
			);
			const whoami = (node: ServerProcess) =>
				fetch(`${node.url}/t`, { headers: { "x-api-key": plainToken } });

			// Both nodes accept it (node A first, so any cache it kept would now hold the key).
			const first = await whoami(a);
			assert.equal(first.status, 200, a.output());
			assert.equal(((await first.json()) as { credentialId: string }).credentialId, key.id);
			assert.equal((await whoami(b)).status, 200);

			const revoked = await fetch(`${b.url}/t/api-keys/${key.id}`, {
				method: "DELETE",
				headers: { "x-api-key": plainToken },
			});
			assert.equal(revoked.status, 204);

			const next = await whoami(a);
			assert.equal(next.status, 401);
			assert.equal(((await next.json()) as { code: string }).code, "invalid_api_key");
			assert.equal((await whoami(b)).status, 401);
		});
	});
}
