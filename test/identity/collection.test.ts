// The `identities` collection driven like a client: a device key certified through POST, revoked
// one-way through PATCH, deleted to a tombstone, with the status endpoint following each step;
// another workspace's identity invisible; the records `identity` relation ownership-checked.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertProblem } from "../apikeys/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { addMember, buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";

const base = "/api/collections/identities/records";

describe("the identities collection", () => {
	let t: TestApp;
	let alice: TestAccount;
	let bob: TestAccount;

	before(async () => {
		t = await makeApp();
		alice = await buildAccount(t.app);
		bob = await buildAccount(t.app);
	});
	after(() => t.close());

	async function certify(account: TestAccount, name = "Alice's phone", headers = account.headers) {
		const key = await deviceKey();
		const res = await t.app.inject({
			method: "POST",
			url: base,
			headers,
			payload: { name, publicKey: key.publicJwk },
		});
		assert.equal(res.statusCode, 200, res.body);
		return {
			key,
			identity: res.json() as Record<string, string> & {
				id: string;
				certificate: string;
				parentSignature: string;
			},
		};
	}

	async function standing(fingerprint: string): Promise<string> {
		const res = await t.app.inject({ url: `/api/identities/${fingerprint}/status` });
		assert.equal(res.statusCode, 200, res.body);
		return JSON.parse(Buffer.from(res.json().payload, "base64url").toString()).status;
	}

	test("create certifies the device key; the record carries nothing private", async () => {
		const { key, identity } = await certify(alice);
		assert.deepEqual(Object.keys(identity).sort(), [
			"certificate",
			"created",
			"domainAtIssue",
			"fingerprint",
			"id",
			"name",
			"parentSignature",
			"publicKey",
			"revokedAt",
			"status",
			"updated",
			"workspace",
		]);
		assert.equal(identity.fingerprint, key.fingerprint);
		assert.equal(identity.status, "active");
		assert.equal(identity.workspace, alice.workspaceId);
		assert.equal(identity.domainAtIssue, t.app.config.domain);
		assert.match(identity.certificate, /^-----BEGIN CERTIFICATE-----/);
		assert.match(identity.parentSignature, /^[0-9a-f]+$/);
		assert.ok(!/PRIVATE/.test(JSON.stringify(identity)));
		assert.equal(await standing(key.fingerprint), "active");

		const view = await t.app.inject({ url: `${base}/${identity.id}`, headers: alice.headers });
		assert.equal(view.statusCode, 200);
		assert.deepEqual(view.json(), identity);
		const list = await t.app.inject({
			url: `${base}?filter=${encodeURIComponent(`fingerprint = "${key.fingerprint}"`)}`,
			headers: alice.headers,
		});
		assert.equal(list.json().totalItems, 1);
	});

	test("bad keys and reused keys are refused", async () => {
		const privateJwk = { kty: "EC", crv: "P-256", x: "a", y: "b", d: "c" };
		const res = await t.app.inject({
			method: "POST",
			url: base,
			headers: alice.headers,
			payload: { name: "x", publicKey: privateJwk },
		});
		assert.equal(assertProblem(res, 400, "validation_failed").field, "body.publicKey");
		const { key } = await certify(alice);
		const again = await t.app.inject({
			method: "POST",
			url: base,
			headers: alice.headers,
			payload: { name: "again", publicKey: key.publicJwk },
		});
		assertProblem(again, 409, "conflict");
	});

	test("PATCH status revoked is one-way; the status endpoint answers revoked", async () => {
		const { key, identity } = await certify(alice);
		const url = `${base}/${identity.id}`;
		const revoked = await t.app.inject({
			method: "PATCH",
			url,
			headers: alice.headers,
			payload: { status: "revoked" },
		});
		assert.equal(revoked.statusCode, 200, revoked.body);
		assert.equal(revoked.json().status, "revoked");
		assert.ok(revoked.json().revokedAt);
		assert.equal(await standing(key.fingerprint), "revoked");
		assertProblem(
			await t.app.inject({ method: "PATCH", url, headers: alice.headers, payload: { status: "active" } }),
			409,
			"conflict",
		);
		assertProblem(
			await t.app.inject({ method: "PATCH", url, headers: alice.headers, payload: { name: "renamed" } }),
			400,
			"validation_failed",
		);
		assert.equal((await t.app.inject({ url, headers: alice.headers })).json().status, "revoked");
	});

	test("DELETE leaves a tombstone: 204, gone from the collection, standing stays revoked", async () => {
		const { key, identity } = await certify(alice);
		const url = `${base}/${identity.id}`;
		const del = await t.app.inject({ method: "DELETE", url, headers: alice.headers });
		assert.equal(del.statusCode, 204);
		assertProblem(await t.app.inject({ url, headers: alice.headers }), 404, "not_found");
		assert.equal(await standing(key.fingerprint), "revoked");
		const reuse = await t.app.inject({
			method: "POST",
			url: base,
			headers: alice.headers,
			payload: { name: "back", publicKey: key.publicJwk },
		});
		assertProblem(reuse, 409, "conflict");
	});

	test("another workspace's identity is invisible to list, view, update and delete", async () => {
		const { key, identity } = await certify(alice);
		const url = `${base}/${identity.id}`;
		const list = await t.app.inject({ url: base, headers: bob.headers });
		assert.ok(!list.json().items.some((i: { id: string }) => i.id === identity.id));
		assertProblem(await t.app.inject({ url, headers: bob.headers }), 404, "not_found");
		assertProblem(
			await t.app.inject({ method: "PATCH", url, headers: bob.headers, payload: { status: "revoked" } }),
			404,
			"not_found",
		);
		assertProblem(await t.app.inject({ method: "DELETE", url, headers: bob.headers }), 404, "not_found");
		assert.equal(await standing(key.fingerprint), "active");
	});

	test("API keys read with identity:read but never certify or withdraw", async () => {
		const { identity } = await certify(alice);
		const reader = buildApiKey(t.app, alice, ["identity:read"]);
		const view = await t.app.inject({ url: `${base}/${identity.id}`, headers: reader.headers });
		assert.equal(view.statusCode, 200, view.body);
		const owner = buildApiKey(t.app, alice);
		const key = await deviceKey();
		assertProblem(
			await t.app.inject({
				method: "POST",
				url: base,
				headers: owner.headers,
				payload: { name: "x", publicKey: key.publicJwk },
			}),
			403,
			"api_key_scope_missing",
		);
		assertProblem(
			await t.app.inject({
				method: "PATCH",
				url: `${base}/${identity.id}`,
				headers: owner.headers,
				payload: { status: "revoked" },
			}),
			403,
			"api_key_scope_missing",
		);
		const none = buildApiKey(t.app, alice, ["link:read"]);
		assertProblem(await t.app.inject({ url: base, headers: none.headers }), 403, "api_key_scope_missing");
		assertProblem(await t.app.inject({ url: base }), 401, "not_authenticated");
	});

	test("a member withdraws only their own identities; an admin any", async () => {
		const owner = await buildAccount(t.app);
		const member = await buildAccount(t.app);
		await addMember(t.app, owner.workspaceId, member.accountId, "member");
		const inWs = (a: TestAccount) => ({ ...a.headers, "x-workspace": owner.workspaceId });
		const { identity: owners } = await certify(owner, "owner's", inWs(owner));
		const { identity: members } = await certify(member, "member's", inWs(member));
		// Visible to the member (same workspace), but not theirs to revoke.
		assert.equal(
			(await t.app.inject({ url: `${base}/${owners.id}`, headers: inWs(member) })).statusCode,
			200,
		);
		assertProblem(
			await t.app.inject({
				method: "PATCH",
				url: `${base}/${owners.id}`,
				headers: inWs(member),
				payload: { status: "revoked" },
			}),
			403,
			"forbidden",
		);
		assertProblem(
			await t.app.inject({ method: "DELETE", url: `${base}/${owners.id}`, headers: inWs(member) }),
			403,
			"forbidden",
		);
		const own = await t.app.inject({
			method: "PATCH",
			url: `${base}/${members.id}`,
			headers: inWs(member),
			payload: { status: "revoked" },
		});
		assert.equal(own.statusCode, 200, own.body);
		const byOwner = await t.app.inject({
			method: "DELETE",
			url: `${base}/${members.id}`,
			headers: inWs(owner),
		});
		assert.equal(byOwner.statusCode, 204);
	});

	test("the records identity relation takes an owned identity and refuses another workspace's", async () => {
		const { identity: mine } = await certify(alice);
		const { identity: theirs } = await certify(bob, "Bob's laptop");
		const post = (payload: object) =>
			t.app.inject({
				method: "POST",
				url: "/api/collections/records/records",
				headers: alice.headers,
				payload,
			});
		const ok = await post({ key: "signed", value: "v", identity: mine.id });
		assert.equal(ok.statusCode, 200, ok.body);
		assert.equal(ok.json().identity, mine.id);

		for (const identity of [theirs.id, "nosuchidentity"]) {
			const refused = await post({ key: "signed", value: "v", identity });
			assert.equal(assertProblem(refused, 400, "validation_failed").field, "body.identity");
		}
		const patch = await t.app.inject({
			method: "PATCH",
			url: `/api/collections/records/records/${ok.json().id}`,
			headers: alice.headers,
			payload: { identity: theirs.id },
		});
		assert.equal(assertProblem(patch, 400, "validation_failed").field, "body.identity");
		const unchanged = await t.app.inject({
			url: `/api/collections/records/records/${ok.json().id}`,
			headers: alice.headers,
		});
		assert.equal(unchanged.json().identity, mine.id);
	});
});
