// Outgoing e-mail (issue 41) through a real SMTP server started here (smtp-server with STARTTLS and
// AUTH, helpers/smtp.ts), every message read back with mailparser: an invitation, a request's link,
// a notice (only to a verified address, only for a kind whose mail switch is on), a verify link
// spent once; English and German; the sender line; header injection and bad addresses refused with
// nothing queued; the per-account and per-recipient caps at cap and cap+1 (a refusal counts
// nothing); a 5xx refusal failing the mail with a `mail_failed` notice to its sender, a 4xx one
// retried on the schedule and delivered.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { linkIn, type Received, type SmtpServer, startSmtp } from "../helpers/smtp.ts";
import { assertCode, createLink, createValue, nextIp, patchLink } from "../shares/helpers.ts";

const INVITATIONS = "/api/collections/invitations/records";
const REQUESTS = "/api/collections/requests/records";
const SETTINGS = "/api/notifications/settings";

let t: TestApp;
let smtp: SmtpServer;
let origin: string;
const clock = new ManualClock(Date.parse("2030-05-01T08:00:00Z"));

before(async () => {
	smtp = await startSmtp();
	t = await makeApp(
		{
			smtpUrl: smtp.url,
			mailFrom: "svc@localhost",
			smtpTlsCa: smtp.caFile,
			mailLimitAccount: 8,
			mailLimitRecipient: 3,
		},
		{ clock, smtpTimeouts: { connection: 3000, socket: 5000 } },
	);
	origin = t.app.mail?.origin ?? "";
});
after(async () => {
	await t.close();
	await smtp.close();
});

/** One outbox pass; answers the messages that arrived during it. */
async function drain(): Promise<Received[]> {
	const from = smtp.received.length;
	await t.app.background.drainOnce(clock.now());
	return smtp.received.slice(from);
}

function mailRows() {
	return t.app.store.db.selectFrom("mail_outbox").selectAll().execute();
}

async function makeRequest(who: TestAccount, label: string, extra: Record<string, unknown> = {}) {
	const res = await t.app.inject({
		method: "POST",
		url: REQUESTS,
		headers: who.headers,
		payload: { label, items: [{ key: "name", label: "Name", type: "text", required: true }], ...extra },
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as { id: string; slug: string };
}

function sendLink(who: TestAccount, id: string, body: Record<string, unknown>, headers = {}) {
	return t.app.inject({
		method: "POST",
		url: `/api/requests/${id}/send-link`,
		headers: { ...who.headers, ...headers },
		payload: body,
	});
}

function assertSenderLine(got: Received) {
	const from = got.mail.from?.value[0];
	assert.equal(from?.address, "svc@localhost");
	assert.equal(from?.name, "localhost", "the server's domain is the display name, never a user's");
	assert.ok(got.secure, "sent after STARTTLS");
	assert.equal(got.user, "svc", "signed in with the SMTP_URL's credentials");
}

describe("an invitation by mail", () => {
	test("goes to the invitation's address with the link answered once, in English", async () => {
		const owner = await buildAccount(t.app, { name: "Olivia" });
		const res = await t.app.inject({
			method: "POST",
			url: INVITATIONS,
			headers: owner.headers,
			payload: { email: "Newcomer@Example.org", role: "member", sendEmail: true },
		});
		assert.equal(res.statusCode, 200, res.body);
		const url = String(res.headers["x-invitation-url"]);
		const mailId = String(res.headers["x-mail-id"]);
		assert.ok(url.includes("/app/invite#"));

		const [got, ...more] = await drain();
		assert.ok(got);
		assert.equal(more.length, 0);
		assertSenderLine(got);
		assert.deepEqual(got.to, ["newcomer@example.org"]);
		assert.match(got.mail.subject ?? "", /^Olivia invites you to ".+" on localhost$/);
		assert.equal(linkIn(got, origin), url);
		assert.ok(String(got.mail.html).includes(`href="${url}"`), "the HTML part carries the link too");
		assert.match(got.mail.text ?? "", /as member\./);
		assert.equal(got.mail.headers.get("auto-submitted"), undefined, "a person's invitation, not automatic");
		const row = (await mailRows()).find((r) => r.id === mailId);
		assert.equal(row?.state, "delivered");
		assert.equal(row?.secret, null, "the link is not kept once delivered");
		assert.equal(got.mail.messageId, row?.message_id);
	});

	test("is written in the invitee's language when their account chose one (German)", async () => {
		const owner = await buildAccount(t.app, { name: "Olivia" });
		const invitee = await buildAccount(t.app, { name: "Dieter" });
		const lang = await t.app.inject({
			method: "PATCH",
			url: SETTINGS,
			headers: invitee.headers,
			payload: { language: "de" },
		});
		assert.equal(lang.json().language, "de");
		const res = await t.app.inject({
			method: "POST",
			url: INVITATIONS,
			headers: owner.headers,
			payload: { email: invitee.email, role: "viewer", sendEmail: true },
		});
		assert.equal(res.statusCode, 200, res.body);
		const [got] = await drain();
		assert.ok(got);
		assert.match(got.mail.subject ?? "", /^Olivia lädt Sie zu „.+“ auf localhost ein$/);
		assert.match(got.mail.text ?? "", /als Betrachter\./);
		assert.equal(linkIn(got, origin), res.headers["x-invitation-url"]);
	});

	test("a refused address makes no invitation and queues nothing", async () => {
		const owner = await buildAccount(t.app, { name: "Olivia" });
		const before = (await mailRows()).length;
		const res = await t.app.inject({
			method: "POST",
			url: INVITATIONS,
			headers: owner.headers,
			payload: { email: `${"x".repeat(65)}@example.org`, role: "viewer", sendEmail: true },
		});
		assert.equal(res.statusCode, 400, res.body);
		assert.equal((await mailRows()).length, before);
	});
});

describe("a request's link by mail", () => {
	test("carries the answer link, never the password, in the sender's language (German)", async () => {
		const owner = await buildAccount(t.app, { name: "Olivia" });
		const req = await makeRequest(owner, "Tenant application", { password: "hunter2-secret" });
		const res = await sendLink(
			owner,
			req.id,
			{ to: "responder@example.org", name: "Ruth" },
			{ "accept-language": "de-DE,de;q=0.9" },
		);
		assert.equal(res.statusCode, 202, res.body);
		assert.equal(res.json().language, "de");
		const [got] = await drain();
		assert.ok(got);
		assertSenderLine(got);
		assert.equal(got.mail.subject, "Olivia bittet Sie um Angaben: „Tenant application“");
		assert.equal(linkIn(got, origin), `${origin}/app/answer/${req.slug}`);
		assert.ok(!got.raw.includes("hunter2-secret"), "the request's password is never mailed");
	});

	test("in English when asked so; another workspace's request is 404", async () => {
		const owner = await buildAccount(t.app, { name: "Olivia" });
		const stranger = await buildAccount(t.app, { name: "Sam" });
		const req = await makeRequest(owner, "Deposit");
		assertCode(await sendLink(stranger, req.id, { to: "r2@example.org" }), 404, "not_found");
		const res = await sendLink(owner, req.id, { to: "r2@example.org", language: "en" });
		assert.equal(res.statusCode, 202, res.body);
		const [got] = await drain();
		assert.equal(got?.mail.subject, 'Olivia asks you for information: "Deposit"');
	});

	test("header injection and bad addresses are 400 mail_address_invalid naming the field; nothing queued", async () => {
		const owner = await buildAccount(t.app, { name: "Olivia" });
		const req = await makeRequest(owner, "Injection");
		const before = (await mailRows()).length;
		const cases: [Record<string, unknown>, string][] = [
			[{ to: "a@example.org\r\nBcc: victim@example.org" }, "to"],
			[{ to: "a@example.org\nBcc: victim@example.org" }, "to"],
			[{ to: "not-an-address" }, "to"],
			[{ to: `${"l".repeat(65)}@example.org` }, "to"],
			[{ to: `a@${"d".repeat(63)}.${"e".repeat(63)}.${"f".repeat(63)}.${"g".repeat(63)}.org` }, "to"],
			[{ to: "a@example.org", name: "Ruth\r\nBcc: victim@example.org" }, "name"],
			[{ to: "a@example.org", name: "R".repeat(101) }, "name"],
		];
		for (const [body, field] of cases) {
			const res = await sendLink(owner, req.id, body);
			assertCode(res, 400, "mail_address_invalid");
			assert.equal(res.json().field, field, JSON.stringify(body));
		}
		assert.equal((await mailRows()).length, before);
	});
});

describe("verified addresses and notice mails", () => {
	let owner: TestAccount;
	before(async () => {
		owner = await buildAccount(t.app, { name: "Vera" });
	});

	const me = async () =>
		(await t.app.inject({ method: "GET", url: "/api/auth/me", headers: owner.headers })).json().record;
	const confirm = (token: string) =>
		t.app.inject({
			method: "POST",
			url: "/api/auth/email/confirm",
			payload: { token },
			remoteAddress: nextIp(),
		});

	test("the verify link is mailed, confirms the address once, and is refused after", async () => {
		const res = await t.app.inject({
			method: "POST",
			url: "/api/auth/email/verify",
			headers: owner.headers,
			payload: {},
		});
		assert.equal(res.statusCode, 202, res.body);
		const [got] = await drain();
		assert.ok(got);
		assert.deepEqual(got.to, [owner.email]);
		assert.equal(got.mail.subject, "Confirm your e-mail address for localhost");
		assert.equal(got.mail.headers.get("auto-submitted"), "auto-generated");
		const link = linkIn(got, origin);
		assert.ok(link.startsWith(`${origin}/app/verify#`));
		assert.equal((await me()).emailVerified, false);

		const ok = await confirm(link.split("#")[1] ?? "");
		assert.equal(ok.statusCode, 200, ok.body);
		assert.equal(ok.json().email, owner.email);
		assert.equal((await me()).emailVerified, true);
		assertCode(await confirm(link.split("#")[1] ?? ""), 400, "mail_verification_invalid");
		assertCode(await confirm("made-up-token"), 400, "mail_verification_invalid");
	});

	test("a verify link is good 24 hours: at 24 h it is refused", async () => {
		const other = await buildAccount(t.app, { name: "Late" });
		await t.app.inject({
			method: "POST",
			url: "/api/auth/email/verify",
			headers: other.headers,
			payload: {},
		});
		const [got] = await drain();
		assert.ok(got);
		clock.advance(24 * 60 * 60 * 1000);
		assertCode(await confirm(linkIn(got, origin).split("#")[1] ?? ""), 400, "mail_verification_invalid");
	});

	test("a notice is mailed only for a kind whose mail switch is on, naming no vault value", async () => {
		const settings = await t.app.inject({
			method: "PATCH",
			url: SETTINGS,
			headers: owner.headers,
			payload: { mail: { link_revoked: true } },
		});
		assert.equal(settings.statusCode, 200, settings.body);
		assert.equal(settings.json().mail.link_revoked, true);
		assert.equal(settings.json().mail.link_expired, false, "mail is off by default");
		assert.equal(settings.json().inApp.link_revoked, true);
		assert.equal(settings.json().mailOn, true);

		const rec = await createValue(t.app, owner, { key: "iban", value: "DE-secret-iban-value" });
		const link = await createLink(t.app, owner, { records: [rec.id], label: "Bank papers" });
		assert.equal((await patchLink(t.app, owner, link.id, { status: "revoked" })).statusCode, 200);
		const [got, ...more] = await drain();
		assert.ok(got);
		assert.equal(more.length, 0);
		assert.deepEqual(got.to, [owner.email]);
		assert.match(got.mail.subject ?? "", /^A share was revoked: /);
		assert.match(got.mail.text ?? "", /Bank papers/);
		assert.equal(got.mail.headers.get("auto-submitted"), "auto-generated");
		assert.ok(!got.raw.includes("DE-secret-iban-value"), "never a value from the vault");
		assert.equal(linkIn(got, origin), `${origin}/app/notifications`);

		// A kind whose mail is off (paused share expiry is another kind): nothing mailed.
		const quiet = await createLink(t.app, owner, { records: [rec.id], label: "Quiet", maxViews: 1 });
		await t.app.inject({ method: "POST", url: `/api/public/links/${quiet.slug}`, remoteAddress: nextIp() });
		assert.equal((await drain()).length, 0);
	});

	test("German notices for an account that chose German; none to an unverified address", async () => {
		await t.app.inject({
			method: "PATCH",
			url: SETTINGS,
			headers: owner.headers,
			payload: { language: "de" },
		});
		const rec = await createValue(t.app, owner, { key: "k2", value: "v" });
		const link = await createLink(t.app, owner, { records: [rec.id], label: "Mietvertrag" });
		await patchLink(t.app, owner, link.id, { status: "revoked" });
		const [got] = await drain();
		assert.match(got?.mail.subject ?? "", /^Eine Freigabe wurde widerrufen: /);

		const unverified = await buildAccount(t.app, { name: "Una" });
		await t.app.inject({
			method: "PATCH",
			url: SETTINGS,
			headers: unverified.headers,
			payload: { mail: { link_revoked: true } },
		});
		const r2 = await createValue(t.app, unverified, { key: "k3", value: "v" });
		const l2 = await createLink(t.app, unverified, { records: [r2.id], label: "Nope" });
		await patchLink(t.app, unverified, l2.id, { status: "revoked" });
		assert.equal((await drain()).length, 0, "notices go only to an address proven to be the account's");
	});
});

describe("rate limits", () => {
	test("per recipient: 3 a day from the whole server, the 4th is 429 and counts nothing", async () => {
		const a = await buildAccount(t.app, { name: "Ann" });
		const b = await buildAccount(t.app, { name: "Ben" });
		const req = await makeRequest(a, "Flood");
		const reqB = await makeRequest(b, "Flood too");
		const to = "inbox@example.org";
		assert.equal((await sendLink(a, req.id, { to })).statusCode, 202);
		assert.equal((await sendLink(b, reqB.id, { to: "INBOX@example.org" })).statusCode, 202);
		assert.equal((await sendLink(a, req.id, { to })).statusCode, 202);
		const over = await sendLink(b, reqB.id, { to });
		assertCode(over, 429, "mail_rate_limited");
		assert.equal(over.json().limit, "recipient");
		assert.ok(Number(over.headers["retry-after"]) > 0);
		// The account cap (8) is untouched by the refusal: a has 2 counted, so 6 more go out.
		for (let i = 0; i < 6; i++) {
			const res = await sendLink(a, req.id, { to: `other${i}@example.org` });
			assert.equal(res.statusCode, 202, `mail ${i + 3}: ${res.body}`);
		}
		const capped = await sendLink(a, req.id, { to: "fresh@example.org" });
		assertCode(capped, 429, "mail_rate_limited");
		assert.equal(capped.json().limit, "account");
		await drain();

		// The next UTC day counts afresh.
		clock.advance(24 * 60 * 60 * 1000);
		assert.equal((await sendLink(a, req.id, { to: "fresh@example.org" })).statusCode, 202);
		assert.equal((await sendLink(b, reqB.id, { to })).statusCode, 202);
		await drain();
	});

	test("a refusal by the recipient cap that the caller lets pass gives the account's one back", async () => {
		// A notice mail refused by the recipient cap is logged and skipped in the worker's
		// transaction, which commits: only the give-back keeps the refusal from counting.
		const filler = await buildAccount(t.app, { name: "Fay" });
		const sender = await buildAccount(t.app, { name: "Sam" });
		const reqF = await makeRequest(filler, "Fill");
		const req = await makeRequest(sender, "Refused");
		const verify = await t.app.inject({
			method: "POST",
			url: "/api/auth/email/verify",
			headers: sender.headers,
			payload: {},
		});
		assert.equal(verify.statusCode, 202, verify.body);
		const [got] = await drain();
		assert.ok(got);
		const confirmed = await t.app.inject({
			method: "POST",
			url: "/api/auth/email/confirm",
			payload: { token: linkIn(got, origin).split("#")[1] ?? "" },
			remoteAddress: nextIp(),
		});
		assert.equal(confirmed.statusCode, 200, confirmed.body);
		const settings = await t.app.inject({
			method: "PATCH",
			url: SETTINGS,
			headers: sender.headers,
			payload: { mail: { link_revoked: true } },
		});
		assert.equal(settings.statusCode, 200, settings.body);
		// The sender's own address has had 1 (the verify link); 2 more fill its cap of 3.
		for (let i = 0; i < 2; i++) {
			assert.equal((await sendLink(filler, reqF.id, { to: sender.email })).statusCode, 202);
		}
		await drain();
		const rec = await createValue(t.app, sender, { key: "given-back", value: "v" });
		const link = await createLink(t.app, sender, { records: [rec.id], label: "Refused notice" });
		assert.equal((await patchLink(t.app, sender, link.id, { status: "revoked" })).statusCode, 200);
		assert.equal((await drain()).length, 0, "the notice mail is refused by the recipient cap");
		// The account has 1 counted (the verify link): 7 more of its 8 go out, the next is refused.
		for (let i = 0; i < 7; i++) {
			const res = await sendLink(sender, req.id, { to: `given-back${i}@example.org` });
			assert.equal(res.statusCode, 202, `mail ${i + 2} of 8: ${res.body}`);
		}
		const capped = await sendLink(sender, req.id, { to: "ninth@example.org" });
		assertCode(capped, 429, "mail_rate_limited");
		assert.equal(capped.json().limit, "account");
		await drain();
	});
});

describe("refusals by the SMTP server", () => {
	test("a 5xx reply fails the mail at once and tells its sender with mail_failed", async () => {
		const owner = await buildAccount(t.app, { name: "Bo" });
		const req = await makeRequest(owner, "Bounce");
		smtp.refuse = (address) =>
			address === "gone@example.org" ? { code: 550, message: "5.1.1 no such mailbox" } : undefined;
		const res = await sendLink(owner, req.id, { to: "gone@example.org" });
		const id = res.json().id as string;
		assert.equal((await drain()).length, 0);
		const row = (await mailRows()).find((r) => r.id === id);
		assert.equal(row?.state, "failed");
		assert.equal(row?.last_status, 550);
		assert.equal(row?.secret, null);
		const notes = await t.app.inject({
			method: "GET",
			url: "/api/collections/notifications/records?perPage=50",
			headers: owner.headers,
		});
		const failed = (notes.json().items as { kind: string; data: Record<string, unknown> }[]).filter(
			(n) => n.kind === "mail_failed",
		);
		assert.equal(failed.length, 1);
		assert.equal(failed[0]?.data.recipient, "gone@example.org");
		assert.equal(failed[0]?.data.status, 550);
		// Nothing more: a failed mail is not retried.
		clock.advance(60 * 60 * 1000);
		await drain();
		assert.equal((await mailRows()).find((r) => r.id === id)?.attempts, 1);
	});

	test("a 4xx reply is retried 30 s later and then delivered", async () => {
		const owner = await buildAccount(t.app, { name: "Greta" });
		const req = await makeRequest(owner, "Greylisted");
		smtp.refuse = (address) =>
			address === "later@example.org" ? { code: 451, message: "4.7.1 greylisted, try later" } : undefined;
		const id = (await sendLink(owner, req.id, { to: "later@example.org" })).json().id as string;
		assert.equal((await drain()).length, 0);
		const row = (await mailRows()).find((r) => r.id === id);
		assert.equal(row?.state, "pending");
		assert.equal(row?.next_attempt, clock.now() + 30_000);
		assert.equal(row?.last_status, 451);
		smtp.refuse = () => undefined;
		clock.advance(29_999);
		assert.equal((await drain()).length, 0, "not before its time");
		clock.advance(1);
		const [got] = await drain();
		assert.deepEqual(got?.to, ["later@example.org"]);
		assert.equal((await mailRows()).find((r) => r.id === id)?.state, "delivered");
	});
});
