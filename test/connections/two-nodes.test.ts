// One-time answers hold with two server processes on one PostgreSQL: a connection code presented
// to both nodes at once is redeemed once, and a poll answer asked of both at once is handed out once.
// Two nodes share state only through PostgreSQL; on SQLite there is one node per database file,
// so this file registers its tests only in the PostgreSQL pass (as test/apikeys/revocation-two-nodes
// does), which every full run includes. It is not a skip: a skip fails the runner.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect } from "../helpers/app.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { useTwoNodes } from "../helpers/two-nodes.ts";
import { pkce } from "./helpers.ts";

const TOOL = "http://127.0.0.1:9";
const REDIRECT = `${TOOL}/back`;
const ROUNDS = 10;

if (dialect === "postgres") twoNodes();

function twoNodes() {
	describe("connection answers on two nodes", () => {
		const nodes = useTwoNodes({ env: { DOMAIN: "localhost", RATELIMIT_CONNECT_REQUESTS: "10000" } });
		let session: string;
		before(async () => {
			const now = Date.now();
			const { accountId } = await createAccount(nodes.store.db, { email: `p-${newId()}@example.org` }, now);
			session = (await createSession(nodes.store.db, accountId, now)).token;
		});

		async function authorize(challenge: string, poll: boolean): Promise<string> {
			const res = await fetch(`${nodes.a.url}/api/connections/authorize`, {
				method: "POST",
				headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
				body: JSON.stringify({ clientId: TOOL, clientName: "Racer", redirectUri: REDIRECT, challenge, poll }),
			});
			assert.equal(res.status, 200, await res.clone().text());
			return ((await res.json()) as { code: string }).code;
		}

		const redeem = (node: ServerProcess, body: object) =>
			fetch(`${node.url}/api/connect/token`, {
				method: "POST",
				headers: { "content-type": "application/json", origin: TOOL },
				body: JSON.stringify(body),
			}).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

		test(`a code redeemed on both nodes at once succeeds once (${ROUNDS} rounds)`, async () => {
			const { a, b } = nodes;
			for (let i = 0; i < ROUNDS; i++) {
				const pair = pkce();
				const code = await authorize(pair.challenge, false);
				const body = { code, verifier: pair.verifier, redirectUri: REDIRECT };
				const results = await Promise.all([
					redeem(a, body),
					redeem(b, body),
					redeem(a, body),
					redeem(b, body),
				]);
				const statuses = results.map((r) => r.status).sort();
				assert.deepEqual(statuses, [200, 400, 400, 400], JSON.stringify(results));
				for (const r of results.filter((r) => r.status === 400))
					assert.equal(r.body.code, "connection_grant_invalid");
			}
		});

		test(`a poll answer asked of both nodes at once is handed out once (${ROUNDS} rounds)`, async () => {
			const { store, a, b } = nodes;
			for (let i = 0; i < ROUNDS; i++) {
				const pair = pkce();
				await authorize(pair.challenge, true);
				const body = { verifier: pair.verifier };
				const results = await Promise.all([
					redeem(a, body),
					redeem(b, body),
					redeem(a, body),
					redeem(b, body),
				]);
				const statuses = results.map((r) => r.status).sort();
				assert.deepEqual(statuses, [200, 202, 202, 202], JSON.stringify(results));
				const tokens = await store.db.selectFrom("connection_tokens").select("token_hash").execute();
				assert.equal(tokens.length, ROUNDS + i + 1, "one token minted per answer");
			}
		});
	});
}
