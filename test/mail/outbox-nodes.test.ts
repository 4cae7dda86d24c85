// The mail outbox is durable and shared (issue 41): a mail queued while the SMTP server is down is
// retried, survives the server process's restart, and is delivered once the SMTP server is back;
// two server processes on one database, each running its outbox loop, deliver every mail exactly
// once (the claim of db/outbox.ts; SKIP LOCKED on PostgreSQL, one writer on SQLite).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type App, buildApp } from "../../src/app.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect, type TestEnv, testEnv } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";
import { linkIn, type SmtpServer, startSmtp } from "../helpers/smtp.ts";
import { useTwoNodes } from "../helpers/two-nodes.ts";

let smtp: SmtpServer;
before(async () => {
	smtp = await startSmtp();
});
after(() => smtp.close());

describe("a restart with the SMTP server down", () => {
	let env: TestEnv;
	const clock = new ManualClock(Date.parse("2030-05-01T08:00:00Z"));
	const apps: App[] = [];
	before(() => {
		env = testEnv({ smtpUrl: smtp.url, mailFrom: "svc@localhost", smtpTlsCa: smtp.caFile });
	});
	after(async () => {
		for (const app of apps) await app.close();
		await env.dispose();
	});

	test(`the mail waits in the ${dialect} outbox and is delivered once the SMTP server is back`, async () => {
		const timeouts = { connection: 2000, socket: 3000 };
		const first = await buildApp(env.config, { clock, smtpTimeouts: timeouts });
		apps.push(first);
		const owner = await buildAccount(first, { name: "Rita" });
		const made = await first.inject({
			method: "POST",
			url: "/api/collections/requests/records",
			headers: owner.headers,
			payload: { label: "Survives", items: [{ key: "a", label: "A", type: "text", required: true }] },
		});
		const req = made.json() as { id: string; slug: string };
		await smtp.stop();
		const sent = await first.inject({
			method: "POST",
			url: `/api/requests/${req.id}/send-link`,
			headers: owner.headers,
			payload: { to: "patient@example.org" },
		});
		assert.equal(sent.statusCode, 202, sent.body);
		const id = sent.json().id as string;
		const pass = await first.background.drainOnce(clock.now());
		assert.equal(pass.retrying, 1);
		const row = await first.store.db
			.selectFrom("mail_outbox")
			.selectAll()
			.where("id", "=", id)
			.executeTakeFirst();
		assert.equal(row?.state, "pending");
		assert.equal(row?.attempts, 1);
		assert.ok(row?.secret, "the link is kept (sealed) until the mail is finished");
		assert.ok(!row?.secret?.includes(req.slug), "sealed, not in the clear");
		await first.close();
		apps.pop();

		await smtp.start();
		const second = await buildApp(env.config, { clock, smtpTimeouts: timeouts });
		apps.push(second);
		clock.advance(30_000);
		const again = await second.background.drainOnce(clock.now());
		assert.equal(again.delivered, 1);
		const [got] = await smtp.waitFor(1);
		assert.ok(got);
		assert.deepEqual(got.to, ["patient@example.org"]);
		assert.equal(linkIn(got, "http://localhost:8080"), `http://localhost:8080/app/answer/${req.slug}`);
	});
});

describe("two server processes on one database", () => {
	const env: Record<string, string> = {};
	before(() => {
		Object.assign(env, {
			SMTP_URL: smtp.url,
			MAIL_FROM: "svc@svc.example",
			SMTP_TLS_CA: smtp.caFile,
			SVC_TEST_OUTBOX: "1",
		});
	});
	const nodes = useTwoNodes({ env });

	test("each mail is delivered exactly once", async () => {
		const { store, a, b } = nodes;
		const from = smtp.received.length;
		const now = Date.now();
		const { accountId } = await createAccount(store.db, { email: `two-${newId()}@example.org` }, now);
		const { token } = await createSession(store.db, accountId, now);
		const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
		const made = await fetch(`${a.url}/api/collections/requests/records`, {
			method: "POST",
			headers,
			body: JSON.stringify({
				label: "Both",
				items: [{ key: "a", label: "A", type: "text", required: true }],
			}),
		});
		assert.equal(made.status, 200, await made.clone().text());
		const req = (await made.json()) as { id: string };
		const total = 24;
		for (let i = 0; i < total; i++) {
			const node = i % 2 === 0 ? a : b;
			const res = await fetch(`${node.url}/api/requests/${req.id}/send-link`, {
				method: "POST",
				headers,
				body: JSON.stringify({ to: `r${i}@example.org` }),
			});
			assert.equal(res.status, 202, await res.text());
		}
		// Every row finished: none can be claimed again, so what arrived is all that ever will.
		for (let tries = 0; ; tries++) {
			const open = await store.db
				.selectFrom("mail_outbox")
				.select("id")
				.where("state", "!=", "delivered")
				.execute();
			if (open.length === 0) break;
			assert.ok(tries < 300, `${open.length} mails still open\n${a.output()}\n${b.output()}`);
			await new Promise((r) => setTimeout(r, 100));
		}
		const got = smtp.received.slice(from);
		assert.equal(got.length, total);
		assert.equal(new Set(got.map((m) => m.mail.messageId)).size, total, "no mail sent twice");
		assert.deepEqual(
			got.flatMap((m) => m.to).sort(),
			Array.from({ length: total }, (_, i) => `r${i}@example.org`).sort(),
		);
	});
});
