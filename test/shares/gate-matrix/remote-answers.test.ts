// The gate-by-reader matrix for an answer kept on another server (expected.ts, reader
// `remoteAnswer`): the requester's server lists the answer with GET /api/requests/{id}/links,
// reading its values from the responder's server by bulk read. Two server processes
// (test/helpers/two-servers.ts); per gate one request on req.test, answered from resp.test, whose
// share of the answer the responder then puts in the gate's state.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { buildRequest, call, REQ, type Side, useTwoServers } from "../../helpers/two-servers.ts";
import { answerFor, cellName, readersOf, SHARE_GATES, type ShareGate, wrongPasswordFor } from "./expected.ts";
import { EMAIL, type GrantItem, grantAnswer, STAMP } from "./observe.ts";

const LINKS = "/api/collections/links/records";

async function ok(side: Side, method: string, path: string, body?: unknown) {
	const res = await call(side, method, path, body);
	assert.equal(res.status, 200, res.body);
	return res.json();
}

describe("gate × reader: an answer kept on another server", () => {
	// Every listing reads the grant again, so each cell sees the responder's share as it is now.
	const two = useTwoServers({ GRANT_MAX_AGE: "0" });
	/** Per gate: the request on req.test its answer came to, and the grant on resp.test. */
	const requests = new Map<ShareGate, { request: string; grant: string }>();
	const patch = (id: string, body: Record<string, unknown>) => ok(two.resp, "PATCH", `${LINKS}/${id}`, body);

	/** How each gate is put on the answer's share (`grantId` on resp.test), by the responder. */
	const APPLY: Partial<Record<ShareGate, (grantId: string) => Promise<unknown>>> = {
		paused: (id) => patch(id, { status: "paused" }),
		revoked: (id) => patch(id, { status: "revoked" }),
		// A server process keeps the wall clock's time: the expiry is set through the API, then moved
		// into the past in resp.test's database, as the time passing would (no sleeping in tests).
		expired: async (id) => {
			await patch(id, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
			await two.resp.store.db
				.updateTable("links")
				.set({ expires_at: Date.now() - 1_000 })
				.where("id", "=", id)
				.execute();
		},
		capReached: async (id) => {
			// The responder opens the share once; a cap at the views taken ends it.
			const { slug } = await ok(two.resp, "GET", `${LINKS}/${id}`);
			const read = await call(two.resp, "POST", `/api/public/links/${slug}`, {}, false);
			assert.equal(read.status, 200, read.body);
			return patch(id, { maxViews: 1 });
		},
		password: (id) => patch(id, { password: "open sesame" }),
		handshake: (id) => patch(id, { requireHandshake: true }),
		watermark: (id) => patch(id, { stamp: STAMP }),
		// The entries the answer shares are hidden afterwards in the responder's vault.
		hidden: async (id) => {
			const grant = await two.resp.store.db
				.selectFrom("grant_tokens")
				.select("keys")
				.where("link", "=", id)
				.executeTakeFirstOrThrow();
			for (const record of Object.values(JSON.parse(grant.keys) as Record<string, string>)) {
				await ok(two.resp, "PATCH", `/api/collections/records/records/${record}`, { hidden: true });
			}
		},
		// An answer's share is made by the server for the requester, never for a tool.
		handOver: async () => {},
	};

	/** The item resp.test last answered for `grant` at /api/grants/resolve. */
	function lastBulkRead(grant: string): (GrantItem & { notModified?: boolean }) | undefined {
		for (const x of [...two.reqToResp].reverse()) {
			if (x.path !== "/api/grants/resolve" || x.status !== 200) continue;
			const asked = JSON.parse(x.body).grants as { id: string }[];
			const at = asked.findIndex((a) => a.id === grant);
			if (at >= 0) return (JSON.parse(x.answer).items as (GrantItem & { notModified?: boolean })[])[at];
		}
		return undefined;
	}

	before(async () => {
		for (const gate of SHARE_GATES) {
			const apply = APPLY[gate];
			if (!apply) continue;
			const r = await buildRequest(two.req, { label: `Gate ${gate}` });
			const answer = await ok(two.resp, "POST", "/api/requests/remote", {
				server: REQ,
				slug: r.slug,
				values: { name: "Ann Example", email: EMAIL },
			});
			await apply(answer.grantId as string);
			requests.set(gate, { request: r.id, grant: answer.grantId as string });
		}
	});

	for (const reader of readersOf("remote-answers.test.ts")) {
		for (const gate of SHARE_GATES) {
			test(cellName(gate, reader), async () => {
				const answer = requests.get(gate);
				assert.ok(
					answer,
					`no answer in the state of gate ${gate}: add it to APPLY in remote-answers.test.ts`,
				);
				const listed = await ok(two.req, "GET", `/api/requests/${answer.request}/links`);
				const item = (listed.items as (GrantItem & { remote?: boolean })[])[0];
				assert.equal(item?.remote, true, JSON.stringify(listed));
				// What resp.test answered that listing's bulk read, as the relay saw it on the wire: the
				// requester hiding values the responder should not have sent is no answer for the gate.
				const seen = grantAnswer(item);
				const wire = lastBulkRead(answer.grant);
				// `notModified` sends no values and says the kept ones stand: nothing more to compare.
				const sent = wire?.notModified ? seen : grantAnswer(wire);
				assert.equal(sent === seen ? seen : `${seen} (resp.test sent: ${sent})`, answerFor(gate, reader));
				// This file presents no password; a wrong-password answer in the table needs a way to present one.
				if (gate === "password")
					assert.equal(
						wrongPasswordFor(reader),
						null,
						`${reader}: no way to present a password in this file`,
					);
			});
		}
	}
});
