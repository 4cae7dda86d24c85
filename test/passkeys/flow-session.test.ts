// The session token a passkey sign-in yields is what the collections API takes; an API key sent
// as Bearer is a guest there (spec, Authentication rule 1).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApiKey } from "../../src/features/apikeys/service.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { assertProblem, PasskeyClient } from "../helpers/passkeys.ts";

describe("a session from the passkey flow on the collections API", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp({ allowSignups: true });
	});
	after(() => t.close());

	test("signs up, signs in, and lists its passkeys with name, created and last used only", async () => {
		const c = new PasskeyClient(t.app);
		await c.signup("flow@example.org", { name: "Flow" });
		const { token } = await c.signin();
		const res = await c.request("GET", "/api/collections/passkeys/records", undefined, c.as(token));
		assert.equal(res.statusCode, 200, res.body);
		const page = res.json();
		assert.equal(page.totalItems, 1);
		const [item] = page.items;
		assert.equal(typeof item.id, "string");
		assert.equal(typeof item.name, "string");
		assert.ok(Date.parse(item.created));
		assert.ok(Date.parse(item.lastUsed), "the sign-in set lastUsed");
		for (const secret of ["publicKey", "public_key", "credentialId", "credential_id", "counter"]) {
			assert.ok(!(secret in item), `${secret} is never shown`);
		}
		const credentialId = c.authenticator.credentials[0]?.id;
		assert.ok(credentialId);
		assert.ok(!res.body.includes(Buffer.from(credentialId).toString("base64url")), "no credential id");
	});

	test("a real API key sent as Bearer is a guest and refused", async () => {
		const c = new PasskeyClient(t.app);
		const { record } = await c.signup("keyholder@example.org");
		const me = await c.request("GET", "/api/auth/me", undefined, c.as((await c.signin()).token));
		const workspaceId = me.json().workspaces[0].id;
		const { plainToken } = await createApiKey(
			t.app.store.db,
			{ accountId: record.id, workspaceId, name: "script", permissions: ["links:read"] },
			Date.now(),
		);
		assertProblem(
			await c.request("GET", "/api/collections/passkeys/records", undefined, c.as(plainToken)),
			401,
			"not_authenticated",
		);
		// The same key in X-API-Key authenticates, but never reaches passkeys (sessions only).
		const asKey = await c.request("GET", "/api/collections/passkeys/records", undefined, {
			"x-api-key": plainToken,
		});
		assert.ok([403, 404].includes(asKey.statusCode), asKey.body);
	});
});
