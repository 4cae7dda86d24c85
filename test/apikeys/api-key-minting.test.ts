import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createApiKey, listApiKeys, revokeApiKey } from "../../src/features/apikeys/service.ts";
import { expandPermissions } from "../../src/http/permissions.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { account, addMember, rejectsWith } from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("minting API keys", () => {
	let t: TestApp;
	let owner: { accountId: string; workspaceId: string };
	let member: { accountId: string; workspaceId: string };
	const count = async () =>
		Number(
			(
				await t.app.store.db
					.selectFrom("api_keys")
					.select((eb) => eb.fn.countAll().as("n"))
					.executeTakeFirstOrThrow()
			).n,
		);

	before(async () => {
		t = await makeApp();
		owner = await account(t.app.store.db, T0);
		const m = await account(t.app.store.db, T0);
		await addMember(t.app.store.db, owner.workspaceId, m.accountId, "member", T0);
		member = { accountId: m.accountId, workspaceId: owner.workspaceId };
	});
	after(() => t.close());

	test("permissions expand through the catalogue to scopes fixed at creation", async () => {
		const { key } = await createApiKey(
			t.app.store.db,
			{
				...owner,
				name: "  sync  ",
				permissions: ["requests:read", "links:write", "links:read", "links:write"],
			},
			T0,
		);
		assert.equal(key.name, "sync");
		assert.deepEqual(key.permissions, ["links:read", "links:write", "requests:read"]);
		assert.deepEqual(key.scopes, ["link:*", "link:read", "request:read"]);
		assert.deepEqual(key.scopes, expandPermissions(["links:read", "links:write", "requests:read"]));
		assert.equal(key.workspace, owner.workspaceId);
		assert.equal(key.created, new Date(T0).toISOString());
		assert.equal(key.expiresAt, null);
		assert.equal(key.lastUsed, null);
	});

	test("scopes from the catalogue may be granted directly", async () => {
		const { key } = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "s", permissions: [], scopes: ["template:read", "link:read"] },
			T0,
		);
		assert.deepEqual(key.scopes, ["link:read", "template:read"]);
	});

	test("the plaintext is minted server-side, shown once, and only its hash is stored", async () => {
		const { key, plainToken } = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "h", permissions: ["links:read"] },
			T0,
		);
		assert.match(plainToken, /^svc_[A-Za-z0-9_-]{43}$/);
		assert.equal(JSON.stringify(key).includes(plainToken), false);
		const row = await t.app.store.db
			.selectFrom("api_keys")
			.selectAll()
			.where("id", "=", key.id)
			.executeTakeFirstOrThrow();
		assert.equal(row.key_hash, crypto.createHash("sha256").update(plainToken).digest("hex"));
		assert.equal(
			Object.values(row).some((v) => String(v).includes(plainToken.slice(4))),
			false,
		);
		const second = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "h", permissions: ["links:read"] },
			T0,
		);
		assert.notEqual(second.plainToken, plainToken);
	});

	const vault: [string, { permissions: string[]; scopes?: string[] }][] = [
		["permission vault:read", { permissions: ["vault:read"] }],
		["permission vault:write", { permissions: ["links:read", "vault:write"] }],
		["scope record:*", { permissions: [], scopes: ["record:*"] }],
		["scope section:*", { permissions: ["links:read"], scopes: ["section:*"] }],
		["scope record:read", { permissions: [], scopes: ["record:read"] }],
	];
	for (const [name, grant] of vault) {
		test(`${name} is refused with api_key_vault_scope and nothing is stored`, async () => {
			const before = await count();
			await rejectsWith(
				createApiKey(t.app.store.db, { ...owner, name: "v", ...grant }, T0),
				"api_key_vault_scope",
			);
			assert.equal(await count(), before);
		});
	}

	test("an unknown permission is validation_failed naming it", async () => {
		const err = await rejectsWith(
			createApiKey(t.app.store.db, { ...owner, name: "u", permissions: ["links:read", "links:admin"] }, T0),
			"validation_failed",
		);
		assert.match(err.message, /links:admin/);
		assert.equal(err.extra?.permission, "links:admin");
		const scopeErr = await rejectsWith(
			createApiKey(t.app.store.db, { ...owner, name: "u", permissions: [], scopes: ["link:destroy"] }, T0),
			"validation_failed",
		);
		assert.match(scopeErr.message, /link:destroy/);
	});

	test("a key with nothing granted, a blank name or a past expiry is validation_failed", async () => {
		await rejectsWith(
			createApiKey(t.app.store.db, { ...owner, name: "e", permissions: [] }, T0),
			"validation_failed",
		);
		await rejectsWith(
			createApiKey(t.app.store.db, { ...owner, name: "  ", permissions: ["links:read"] }, T0),
			"validation_failed",
		);
		for (const expiresAt of [T0, T0 - 1]) {
			await rejectsWith(
				createApiKey(t.app.store.db, { ...owner, name: "x", permissions: ["links:read"], expiresAt }, T0),
				"validation_failed",
			);
		}
	});

	test("a member cannot mint a key with more than they hold", async () => {
		for (const permission of ["attestations:issue", "members:write"]) {
			const err = await rejectsWith(
				createApiKey(t.app.store.db, { ...member, name: "m", permissions: ["links:read", permission] }, T0),
				"forbidden",
			);
			assert.match(err.message, new RegExp(permission));
		}
		await rejectsWith(
			createApiKey(t.app.store.db, { ...member, name: "m", permissions: [], scopes: ["attestation:*"] }, T0),
			"forbidden",
		);
		const ok = await createApiKey(t.app.store.db, { ...member, name: "m", permissions: ["links:write"] }, T0);
		assert.deepEqual(ok.key.scopes, ["link:*"]);
		// The owner holds attestations:issue, and a key may carry it (rule 8).
		const issuer = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "i", permissions: ["attestations:issue"] },
			T0,
		);
		assert.deepEqual(issuer.key.scopes, ["attestation:*"]);
	});

	test("someone outside the workspace cannot mint a key for it", async () => {
		const stranger = await account(t.app.store.db, T0);
		await rejectsWith(
			createApiKey(
				t.app.store.db,
				{
					accountId: stranger.accountId,
					workspaceId: owner.workspaceId,
					name: "s",
					permissions: ["links:read"],
				},
				T0,
			),
			"forbidden",
		);
	});

	test("members list and revoke their own keys; another member's key answers like a missing one", async () => {
		const mine = await createApiKey(
			t.app.store.db,
			{ ...member, name: "mine", permissions: ["links:read"] },
			T0,
		);
		const ownerKey = await createApiKey(
			t.app.store.db,
			{ ...owner, name: "owner's", permissions: ["links:read"] },
			T0,
		);
		const memberCaller = { ...member, scopes: expandPermissions(["links:read"]) };
		const listed = await listApiKeys(t.app.store.db, memberCaller);
		assert.ok(listed.every((k) => k.name !== "owner's"));
		assert.ok(listed.some((k) => k.id === mine.key.id));
		await rejectsWith(revokeApiKey(t.app.store.db, memberCaller, ownerKey.key.id), "not_found");
		await revokeApiKey(t.app.store.db, memberCaller, mine.key.id);
		await rejectsWith(revokeApiKey(t.app.store.db, memberCaller, mine.key.id), "not_found");
		// An administrator (member:*) sees and may revoke every key of the workspace.
		const adminCaller = { ...owner, scopes: ["member:*"] };
		assert.ok((await listApiKeys(t.app.store.db, adminCaller)).some((k) => k.id === ownerKey.key.id));
	});
});
