// Two processes on one PostgreSQL: the last two owners leaving at once leave one owner. Each leave
// locks the workspace row before counting owners, so the second sees the first's departure.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { insertMember } from "../../src/features/workspaces/store.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect } from "../helpers/app.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { useTwoNodes } from "../helpers/two-nodes.ts";

// Runs in the PostgreSQL pass only (one node per SQLite file); not registered as a skip, which would
// fail the runner (docs/testing.md).
if (dialect === "postgres") twoNodes();

function twoNodes() {
	describe("the last two owners leave at once on two nodes", () => {
		const nodes = useTwoNodes();

		test("one leaves, one is refused with member_last_owner, one owner stays", async () => {
			const { store, a, b } = nodes;
			for (let round = 0; round < 10; round++) {
				const now = Date.now();
				const first = await createAccount(store.db, { email: `first${round}-${newId()}@example.org` }, now);
				const second = await createAccount(store.db, { email: `second${round}-${newId()}@example.org` }, now);
				const ws = newId();
				await store.db
					.insertInto("workspaces")
					.values({ id: ws, name: "Shared", owner: first.accountId, personal: 0, created: now, updated: now })
					.execute();
				for (const acct of [first, second]) {
					await insertMember(store.db, {
						id: newId(),
						workspace: ws,
						account: acct.accountId,
						role: "owner",
						created: now,
						updated: now,
					});
				}
				const s1 = await createSession(store.db, first.accountId, now);
				const s2 = await createSession(store.db, second.accountId, now);
				const leave = (node: ServerProcess, token: string) =>
					fetch(`${node.url}/api/workspaces/${ws}/leave`, {
						method: "POST",
						headers: { authorization: `Bearer ${token}` },
					});
				const results = await Promise.all([leave(a, s1.token), leave(b, s2.token)]);
				const statuses = results.map((r) => r.status).sort();
				assert.deepEqual(statuses, [204, 409], `${a.output()}\n${b.output()}`);
				const refused = results.find((r) => r.status === 409);
				assert.ok(refused);
				assert.equal(((await refused.json()) as { code: string }).code, "member_last_owner");
				const owners = await store.db
					.selectFrom("members")
					.select("account")
					.where("workspace", "=", ws)
					.where("role", "=", "owner")
					.execute();
				assert.equal(owners.length, 1);
				const row = await store.db
					.selectFrom("workspaces")
					.select("owner")
					.where("id", "=", ws)
					.executeTakeFirstOrThrow();
				assert.equal(row.owner, owners[0]?.account, "the owner of record is the owner who stayed");
			}
		});
	});
}
