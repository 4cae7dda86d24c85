// The per-request cap on answer-only sign-ups (`answerSignupLimit`) holds across two server
// processes on one database: sign-ups begun while places were left finish at once, half on each
// node, and exactly the cap's number of accounts is made; every other finish is refused with
// 403 `answer_signup_limit_reached` and leaves nothing. Each finish takes its place in one
// conditional update of the request's counter (requests/service.ts `takeAnswerSignup`).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { request as httpRequest } from "undici";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { useTwoNodes } from "../helpers/two-nodes.ts";
import { pkce, SoftAuthenticator } from "../helpers/webauthn.ts";

const DOMAIN = "svc.example";
const ORIGIN = `https://${DOMAIN}`;
const LIMIT = 3;
const RACERS = 10;

async function post(node: ServerProcess, path: string, body: unknown, headers: Record<string, string> = {}) {
	const res = await httpRequest(`${node.url}${path}`, {
		method: "POST",
		headers: { host: DOMAIN, origin: ORIGIN, "content-type": "application/json", ...headers },
		body: JSON.stringify(body),
	});
	const text = await res.body.text();
	return { status: res.statusCode, text, json: () => JSON.parse(text) };
}

describe("answer-only sign-ups of one request racing on two nodes", () => {
	const nodes = useTwoNodes({ env: { RATELIMIT_ANSWER_SIGNUPS: "1000", ALLOW_SIGNUPS: "false" } });

	test(`${RACERS} finishes for ${LIMIT} places: exactly ${LIMIT} accounts, the rest answer_signup_limit_reached`, async () => {
		const { store, a, b } = nodes;
		const now = Date.now();
		const owner = await createAccount(store.db, { email: `owner-${newId()}@example.org` }, now);
		const { token } = await createSession(store.db, owner.accountId, now);
		const made = await post(
			a,
			"/api/collections/requests/records",
			{
				label: "Tenant application",
				items: [{ key: "full_name", label: "Full name", type: "text", required: true }],
				allowAnswerSignup: true,
				answerSignupLimit: LIMIT,
			},
			{ authorization: `Bearer ${token}` },
		);
		assert.equal(made.status, 200, made.text);
		const { id, slug } = made.json() as { id: string; slug: string };

		// Every sign-up begun while places are left (begin only reads the counter).
		const racers = [];
		for (let n = 0; n < RACERS; n++) {
			const node = n % 2 === 0 ? a : b;
			const begun = await post(node, "/api/passkeys/register/begin", {
				email: `racer${n}-${newId()}@example.org`,
				request: slug,
				challenge: pkce().challenge,
			});
			assert.equal(begun.status, 200, begun.text);
			const { session, options } = begun.json();
			const { response } = new SoftAuthenticator(ORIGIN).create(options);
			racers.push({ node: n % 2 === 0 ? b : a, session, response });
		}
		// Finished all at once, each on the other node than it began on.
		const finished = await Promise.all(
			racers.map((r) =>
				post(r.node, "/api/passkeys/register/finish", { session: r.session, credential: r.response }),
			),
		);
		const ok = finished.filter((f) => f.status === 200);
		const refused = finished.filter((f) => f.status !== 200);
		assert.equal(ok.length, LIMIT, finished.map((f) => `${f.status} ${f.text}`).join("\n"));
		for (const f of refused) {
			assert.equal(f.status, 403, f.text);
			assert.equal(f.json().code, "answer_signup_limit_reached", f.text);
		}

		const accounts = await store.db
			.selectFrom("accounts")
			.select((eb) => eb.fn.countAll<number | string>().as("n"))
			.where("signup_request", "=", id)
			.executeTakeFirstOrThrow();
		assert.equal(Number(accounts.n), LIMIT);
		const row = await store.db
			.selectFrom("requests")
			.select(["answer_signups", "answer_signup_limit"])
			.where("id", "=", id)
			.executeTakeFirstOrThrow();
		assert.deepEqual(row, { answer_signups: LIMIT, answer_signup_limit: LIMIT });
	});
});
