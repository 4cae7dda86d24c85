// The notices that tell an owner what happened (issue 40 item 8), each raised by driving the real
// API as its client would: a request answered (and answered again), a share whose views ran out or
// whose time did (once, however many readers find it), a member who joined through an invitation,
// an identity revoked, a credential revoked (to its issuer and to the person holding it here). Each
// names the thing it is about by id, never a vault value. The per-kind settings: every kind on by
// default, turned off and on through PATCH (then nothing of that kind is raised), bad input refused
// with 400 and nothing changed.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { addMember, buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { assertCode, createLink, createValue, nextIp, patchLink, resolveLink } from "../shares/helpers.ts";

const NOTES = "/api/collections/notifications/records";
const SETTINGS = "/api/notifications/settings";
const KINDS = [
	"request_answered",
	"answer_revoked",
	"callback_failed",
	"link_expired",
	"link_revoked",
	"member_joined",
	"identity_revoked",
	"credential_revoked",
];

interface Note {
	id: string;
	workspace: string | null;
	kind: string;
	title: string;
	body: string;
	data: Record<string, unknown>;
	read: boolean;
}

let t: TestApp;
const clock = new ManualClock(Date.parse("2030-05-01T08:00:00Z"));
let owner: TestAccount;
let stranger: TestAccount;

before(async () => {
	t = await makeApp({ allowAttestations: true }, { clock });
	owner = await buildAccount(t.app, { name: "Olivia" });
	stranger = await buildAccount(t.app, { name: "Sam" });
});
after(() => t.close());

async function notes(who: TestAccount, kind: string, workspace = who.workspaceId): Promise<Note[]> {
	const res = await t.app.inject({
		method: "GET",
		url: `${NOTES}?perPage=200&sort=-created`,
		headers: { ...who.headers, "x-workspace": workspace },
	});
	assert.equal(res.statusCode, 200, res.body);
	return (res.json().items as Note[]).filter((n) => n.kind === kind);
}

function setKinds(who: TestAccount | { headers: Record<string, string> }, inApp: Record<string, unknown>) {
	return t.app.inject({ method: "PATCH", url: SETTINGS, headers: who.headers, payload: { inApp } });
}

async function share(body: Record<string, unknown>, who = owner) {
	const rec = await createValue(t.app, who, {
		key: `k${nextIp().replaceAll(".", "")}`,
		value: "secret-value",
	});
	return createLink(t.app, who, { records: [rec.id], label: "Lease papers", ...body });
}

describe("settings", () => {
	test("every kind is on until turned off; a PATCH names only what it changes", async () => {
		const me = await buildAccount(t.app, { name: "Set" });
		const first = await t.app.inject({ method: "GET", url: SETTINGS, headers: me.headers });
		assert.equal(first.statusCode, 200, first.body);
		assert.deepEqual(Object.keys(first.json().inApp), KINDS);
		assert.ok(Object.values(first.json().inApp).every((v) => v === true));

		const off = await setKinds(me, { link_expired: false, member_joined: false });
		assert.equal(off.statusCode, 200, off.body);
		assert.equal(off.json().inApp.link_expired, false);
		assert.equal(off.json().inApp.member_joined, false);
		assert.equal(off.json().inApp.request_answered, true);
		const on = await setKinds(me, { member_joined: true });
		assert.equal(on.json().inApp.member_joined, true);
		assert.equal(on.json().inApp.link_expired, false, "a kind not named stays as it was");
		// Another account's settings are its own.
		const theirs = await t.app.inject({ method: "GET", url: SETTINGS, headers: stranger.headers });
		assert.equal(theirs.json().inApp.link_expired, true);
	});

	test("an unknown kind, a value that is not a boolean, `__proto__`, or no inApp: 400, nothing changed", async () => {
		const me = await buildAccount(t.app, { name: "Bad" });
		for (const [body, code] of [
			[{ inApp: { link_expired: false, passkey_added: false } }, "validation_failed"],
			[{ inApp: { link_expired: "no" } }, "validation_failed"],
			// The JSON reader refuses the key before any schema sees it.
			['{"inApp":{"__proto__":false}}', "invalid_json"],
			[{}, "validation_failed"],
			[{ inApp: [] }, "validation_failed"],
		] as const) {
			const res = await t.app.inject({
				method: "PATCH",
				url: SETTINGS,
				headers: { ...me.headers, "content-type": "application/json" },
				payload: typeof body === "string" ? body : JSON.stringify(body),
			});
			assertCode(res, 400, code);
			assert.match(String(res.headers["content-type"]), /application\/problem\+json/);
		}
		const now = await t.app.inject({ method: "GET", url: SETTINGS, headers: me.headers });
		assert.ok(Object.values(now.json().inApp).every((v) => v === true));
	});

	test("needs an account, and a key needs the notification scope", async () => {
		assertCode(await t.app.inject({ method: "GET", url: SETTINGS }), 401, "not_authenticated");
		assertCode(await setKinds({ headers: {} }, { link_expired: false }), 401, "not_authenticated");
		const reader = buildApiKey(t.app, owner, ["notification:read"]);
		assert.equal(
			(await t.app.inject({ method: "GET", url: SETTINGS, headers: reader.headers })).statusCode,
			200,
		);
		assertCode(await setKinds(reader, { link_expired: false }), 403, "api_key_scope_missing");
		const none = buildApiKey(t.app, owner, ["record:read"]);
		assertCode(
			await t.app.inject({ method: "GET", url: SETTINGS, headers: none.headers }),
			403,
			"api_key_scope_missing",
		);
	});
});

describe("a share ran out of views or expired", () => {
	test("the view that takes the cap raises one link_expired naming the share and `views`", async () => {
		const link = await share({ maxViews: 2, label: "Payslips" });
		assert.equal((await resolveLink(t.app, link.slug)).statusCode, 200);
		assert.equal((await notes(owner, "link_expired")).filter((n) => n.data.link === link.id).length, 0);
		assert.equal((await resolveLink(t.app, link.slug)).statusCode, 200);
		assertCode(await resolveLink(t.app, link.slug), 404, "link_expired");
		const mine = (await notes(owner, "link_expired")).filter((n) => n.data.link === link.id);
		assert.equal(mine.length, 1);
		const [n] = mine as [Note];
		assert.equal(n.data.reason, "views");
		assert.equal(n.data.label, "Payslips");
		assert.equal(n.workspace, owner.workspaceId);
		assert.equal(n.title, "Share used up: Payslips");
		assert.ok(!JSON.stringify(n).includes("secret-value"), "never a vault value");
		assert.ok(!JSON.stringify(n).includes(link.slug), "never the share's address");
	});

	test("past its expiry: one link_expired with `time`, though many readers find it at once", async () => {
		const link = await share({ expiresAt: new Date(clock.now() + 60_000).toISOString(), label: "Tax" });
		clock.advance(60_000);
		const reads = await Promise.all(Array.from({ length: 12 }, () => resolveLink(t.app, link.slug)));
		for (const r of reads) assertCode(r, 404, "link_expired");
		const mine = (await notes(owner, "link_expired")).filter((n) => n.data.link === link.id);
		assert.equal(mine.length, 1);
		assert.equal(mine[0]?.data.reason, "time");
	});

	test("turned off: the share still expires, and no notice is raised; on again: raised", async () => {
		assert.equal((await setKinds(owner, { link_expired: false })).statusCode, 200);
		const quiet = await share({ maxViews: 1 });
		assert.equal((await resolveLink(t.app, quiet.slug)).statusCode, 200);
		assertCode(await resolveLink(t.app, quiet.slug), 404, "link_expired");
		assert.equal((await notes(owner, "link_expired")).filter((n) => n.data.link === quiet.id).length, 0);
		assert.equal((await setKinds(owner, { link_expired: true })).statusCode, 200);
		const loud = await share({ maxViews: 1 });
		assert.equal((await resolveLink(t.app, loud.slug)).statusCode, 200);
		assert.equal((await notes(owner, "link_expired")).filter((n) => n.data.link === loud.id).length, 1);
	});

	test("revoking still raises link_revoked with the share's id (the existing notice)", async () => {
		const link = await share({});
		assert.equal((await patchLink(t.app, owner, link.id, { status: "revoked" })).statusCode, 200);
		assert.equal((await notes(owner, "link_revoked")).filter((n) => n.data.link === link.id).length, 1);
	});
});

describe("a request was answered", () => {
	test("a new answer and an updated one each raise request_answered to the requester, naming the request", async () => {
		const made = await t.app.inject({
			method: "POST",
			url: "/api/collections/requests/records",
			headers: owner.headers,
			payload: {
				label: "Tenant application",
				items: [{ key: "name", label: "Name", type: "text", required: true }],
			},
		});
		assert.equal(made.statusCode, 200, made.body);
		const req = made.json() as { id: string; slug: string };
		const send = (name: string) =>
			t.app.inject({
				method: "POST",
				url: `/api/public/requests/${req.slug}`,
				remoteAddress: nextIp(),
				headers: stranger.headers,
				payload: { values: { name }, senderName: "Sam Tenant" },
			});
		assert.equal((await send("Sam")).statusCode, 200);
		let mine = (await notes(owner, "request_answered")).filter((n) => n.data.request === req.id);
		assert.equal(mine.length, 1);
		assert.equal(mine[0]?.data.updated, false);
		assert.equal(mine[0]?.title, "New answer: Tenant application");
		assert.equal(mine[0]?.data.senderName, "Sam Tenant");
		assert.ok(!JSON.stringify(mine).includes('"Sam"'), "the answer's values are not in the notice");
		assert.equal((await send("Samuel")).statusCode, 200);
		mine = (await notes(owner, "request_answered")).filter((n) => n.data.request === req.id);
		assert.deepEqual(mine.map((n) => n.data.updated).sort(), [false, true]);
		assert.ok(mine.some((n) => n.title === "Answer updated: Tenant application"));
		// The responder hears nothing of their own answer.
		assert.equal((await notes(stranger, "request_answered")).length, 0);
	});
});

describe("a member joined", () => {
	test("accepting an invitation raises member_joined to the owner and the inviter, once", async () => {
		const team = await t.app.inject({
			method: "POST",
			url: "/api/collections/workspaces/records",
			headers: owner.headers,
			payload: { name: "Team" },
		});
		const ws = team.json().id as string;
		const admin = await buildAccount(t.app, { name: "Adam" });
		await addMember(t.app, ws, admin.accountId, "admin");
		const invited = await t.app.inject({
			method: "POST",
			url: "/api/collections/invitations/records",
			headers: { ...admin.headers, "x-workspace": ws },
			payload: { email: "joiner@example.org", role: "member" },
		});
		assert.equal(invited.statusCode, 200, invited.body);
		const token = String(invited.headers["x-plain-token"]);
		const joiner = await buildAccount(t.app, { name: "Jo" });
		const accept = () =>
			t.app.inject({
				method: "POST",
				url: "/api/invitations/accept",
				headers: joiner.headers,
				payload: { token },
			});
		assert.equal((await accept()).statusCode, 200);
		assertCode(await accept(), 410, "invitation_used");
		for (const who of [owner, admin]) {
			const mine = await notes(who, "member_joined", ws);
			assert.equal(mine.length, 1, `one notice for ${who.email}`);
			assert.equal(mine[0]?.data.member, joiner.accountId);
			assert.equal(mine[0]?.data.role, "member");
			assert.equal(mine[0]?.workspace, ws);
		}
		assert.equal((await notes(joiner, "member_joined", ws)).length, 0);
	});
});

describe("an identity or a credential was revoked", () => {
	async function identity(who: TestAccount, name: string) {
		const key = await deviceKey();
		const made = await t.app.inject({
			method: "POST",
			url: "/api/collections/identities/records",
			headers: who.headers,
			payload: { name, publicKey: key.publicJwk },
		});
		assert.equal(made.statusCode, 200, made.body);
		const cert = await t.app.inject({ method: "GET", url: `/api/certificate/${made.json().id}` });
		return { id: made.json().id as string, key, half: cert.json() };
	}

	test("revoking an identity raises identity_revoked once, naming it; revoking again raises nothing", async () => {
		const id = await identity(owner, "Olivia at work");
		const revoke = () =>
			t.app.inject({
				method: "PATCH",
				url: `/api/collections/identities/records/${id.id}`,
				headers: owner.headers,
				payload: { status: "revoked" },
			});
		assert.equal((await revoke()).statusCode, 200);
		assert.equal((await revoke()).statusCode, 200);
		const mine = (await notes(owner, "identity_revoked")).filter((n) => n.data.identity === id.id);
		assert.equal(mine.length, 1);
		assert.equal(mine[0]?.data.name, "Olivia at work");
		assert.equal(mine[0]?.data.by, owner.accountId);
	});

	test("revoking an issued credential tells its issuer and the person holding it here", async () => {
		const issuer = await buildAccount(t.app, { name: "Registry" });
		const holder = await buildAccount(t.app, { name: "Hana" });
		const id = await identity(holder, "Hana");
		const offered = await t.app.inject({
			method: "POST",
			url: "/api/collections/attestations/records",
			headers: issuer.headers,
			payload: {
				workspace: issuer.workspaceId,
				type: "https://registry.example/member",
				claims: { member: true },
				label: "Membership",
			},
		});
		assert.equal(offered.statusCode, 200, offered.body);
		const token = String(offered.headers["x-attestation-token"]);
		const nonce = (
			await t.app.inject({
				method: "GET",
				url: `/api/challenges/attestation/${token}?identityId=${id.id}`,
				remoteAddress: nextIp(),
			})
		).json().nonce as string;
		const kept = await t.app.inject({
			method: "POST",
			url: "/api/credentials/claim",
			headers: holder.headers,
			remoteAddress: nextIp(),
			payload: {
				token,
				identityId: id.id,
				challengeNonce: nonce,
				challengeSignature: await id.key.sign(nonce),
			},
		});
		assert.equal(kept.statusCode, 200, kept.body);

		const revoke = () =>
			t.app.inject({
				method: "PATCH",
				url: `/api/collections/attestations/records/${offered.json().id}`,
				headers: issuer.headers,
				payload: { status: "revoked" },
			});
		assert.equal((await revoke()).statusCode, 200);
		assert.equal((await revoke()).statusCode, 200);
		const theirs = await notes(holder, "credential_revoked");
		assert.equal(theirs.length, 1);
		assert.equal(theirs[0]?.data.credential, kept.json().id);
		assert.equal(theirs[0]?.data.identity, id.id);
		assert.equal(theirs[0]?.data.as, "holder");
		const ours = await notes(issuer, "credential_revoked");
		assert.equal(ours.length, 1);
		assert.equal(ours[0]?.data.attestation, offered.json().id);
		assert.equal(ours[0]?.data.as, "issuer");
	});

	test("withdrawing an offer nobody claimed raises nothing", async () => {
		const issuer = await buildAccount(t.app, { name: "Club" });
		const offered = await t.app.inject({
			method: "POST",
			url: "/api/collections/attestations/records",
			headers: issuer.headers,
			payload: { workspace: issuer.workspaceId, type: "https://club.example/m", claims: { m: true } },
		});
		const gone = await t.app.inject({
			method: "DELETE",
			url: `/api/collections/attestations/records/${offered.json().id}`,
			headers: issuer.headers,
		});
		assert.equal(gone.statusCode, 204, gone.body);
		assert.equal((await notes(issuer, "credential_revoked")).length, 0);
	});
});
