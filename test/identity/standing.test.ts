import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { isForeignKeyViolation } from "../../src/db/errors.ts";
import {
	checkIdentityOwnership,
	createIdentity,
	deleteIdentity,
	revokeIdentity,
	STATUS_TTL_SECONDS,
	setIdentityStatus,
	tombstoneWorkspaceIdentities,
} from "../../src/features/identity/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { account, assertProblem, rejectsWith } from "../apikeys/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0, 400);

describe("identity standing: the signed status answer", () => {
	let t: TestApp;
	const clock = new ManualClock(T0);
	let owner: { accountId: string; workspaceId: string };
	let rootPublic: crypto.KeyObject;

	before(async () => {
		t = await makeApp({ domain: "svc.example" }, { clock });
		owner = await account(t.app.store.db, T0);
		rootPublic = crypto.createPublicKey(
			(await t.app.inject({ method: "GET", url: "/api/server" })).json().publicKey,
		);
	});
	after(() => t.close());

	const issue = async (name = "laptop") =>
		createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...owner, name, publicKey: (await deviceKey()).publicJwk },
			clock.now(),
		);

	/** Fetches the status, checks the signature with the root key and returns the payload. */
	const status = async (fingerprint: string) => {
		const res = await t.app.inject({ method: "GET", url: `/api/identities/${fingerprint}/status` });
		assert.equal(res.statusCode, 200, res.body);
		const { payload, signature } = res.json();
		assert.equal(
			crypto.verify("sha256", Buffer.from(payload, "utf8"), rootPublic, Buffer.from(signature, "hex")),
			true,
			"signed by the root key over the payload string",
		);
		const json = Buffer.from(payload, "base64url").toString("utf8");
		assert.ok(json.startsWith('{"type":"identity-status-v1",'), json);
		return { body: JSON.parse(json), res };
	};

	test("an active identity answers active, timestamped and cacheable exactly until exp", async () => {
		const identity = await issue();
		const { body, res } = await status(identity.fingerprint);
		const iat = Math.floor(T0 / 1000);
		assert.deepEqual(body, {
			type: "identity-status-v1",
			fingerprint: identity.fingerprint,
			status: "active",
			domain: "svc.example",
			iat,
			exp: iat + STATUS_TTL_SECONDS,
		});
		assert.equal(res.headers["cache-control"], `public, max-age=${body.exp - body.iat}`);
		assert.equal(res.headers.expires, new Date(body.exp * 1000).toUTCString());
		assert.ok(res.headers["x-ratelimit-limit"], "rate-limited");
	});

	test("revocation is one-way: active -> revoked, never back", async () => {
		const identity = await issue();
		const revoked = await revokeIdentity(t.app.store.db, owner.workspaceId, identity.id, clock.now());
		assert.equal(revoked.status, "revoked");
		assert.equal(revoked.revokedAt, new Date(T0).toISOString());
		assert.equal((await status(identity.fingerprint)).body.status, "revoked");
		// Revoking again changes nothing; asking for active is refused.
		assert.equal(
			(await setIdentityStatus(t.app.store.db, owner.workspaceId, identity.id, "revoked", T0 + 5)).revokedAt,
			revoked.revokedAt,
		);
		await rejectsWith(
			setIdentityStatus(t.app.store.db, owner.workspaceId, identity.id, "active", clock.now()),
			"conflict",
		);
		await rejectsWith(
			setIdentityStatus(t.app.store.db, owner.workspaceId, identity.id, "paused", clock.now()),
			"validation_failed",
		);
		assert.equal((await status(identity.fingerprint)).body.status, "revoked");
	});

	test("a deleted identity leaves a tombstone: its standing stays revoked and its certificate is gone", async () => {
		const identity = await issue();
		await deleteIdentity(t.app.store.db, owner.workspaceId, identity.id, clock.now());
		assert.equal((await status(identity.fingerprint)).body.status, "revoked");
		assertProblem(
			await t.app.inject({ method: "GET", url: `/api/certificate/${identity.id}` }),
			404,
			"not_found",
		);
		await rejectsWith(
			deleteIdentity(t.app.store.db, owner.workspaceId, identity.id, clock.now()),
			"not_found",
		);
	});

	test("a deleted workspace tombstones all its identities", async () => {
		const other = await account(t.app.store.db, T0);
		const make = async (name: string) =>
			createIdentity(
				t.app.store.db,
				t.app.rootKey,
				t.app.config,
				{ ...other, name, publicKey: (await deviceKey()).publicJwk },
				T0,
			);
		const a = await make("a");
		const b = await make("b");
		await revokeIdentity(t.app.store.db, other.workspaceId, b.id, T0);
		await t.app.store.db.transaction().execute(async (trx) => {
			assert.equal(await tombstoneWorkspaceIdentities(trx, other.workspaceId, T0), 2);
			await trx.deleteFrom("workspaces").where("id", "=", other.workspaceId).execute();
		});
		assert.equal((await status(a.fingerprint)).body.status, "revoked");
		assert.equal((await status(b.fingerprint)).body.status, "revoked");
	});

	test("the workspace deletion hook tombstones the workspace's identities", async () => {
		const other = await account(t.app.store.db, T0);
		const made = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...other, name: "h", publicKey: (await deviceKey()).publicJwk },
			T0,
		);
		await t.app.store.db.transaction().execute(async (trx) => {
			for (const hook of t.app.workspaceHooks.onWorkspaceDeleted) await hook(trx, other.workspaceId, T0);
			await trx.deleteFrom("members").where("workspace", "=", other.workspaceId).execute();
			await trx.deleteFrom("workspaces").where("id", "=", other.workspaceId).execute();
		});
		assert.equal((await status(made.fingerprint)).body.status, "revoked");
	});

	test("deleting a workspace without tombstoning its identities is refused by the database", async () => {
		const other = await account(t.app.store.db, T0);
		await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...other, name: "c", publicKey: (await deviceKey()).publicJwk },
			T0,
		);
		// Refused by the identities' foreign key to the workspace (no cascade), not by anything else.
		await assert.rejects(
			t.app.store.db.deleteFrom("workspaces").where("id", "=", other.workspaceId).execute(),
			(err: unknown) => isForeignKeyViolation(err),
		);
		const left = await t.app.store.db
			.selectFrom("identities")
			.select("id")
			.where("workspace", "=", other.workspaceId)
			.execute();
		assert.equal(left.length, 1, "the identity is still there");
	});

	test("a key once deleted cannot be certified again", async () => {
		const device = await deviceKey();
		const identity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...owner, name: "d", publicKey: device.publicJwk },
			T0,
		);
		await deleteIdentity(t.app.store.db, owner.workspaceId, identity.id, T0);
		await rejectsWith(
			createIdentity(
				t.app.store.db,
				t.app.rootKey,
				t.app.config,
				{ ...owner, name: "d", publicKey: device.publicJwk },
				T0,
			),
			"conflict",
		);
		assert.equal((await status(device.fingerprint)).body.status, "revoked");
	});

	test("a fingerprint this server never issued answers unknown (an answer, not an error)", async () => {
		const { body } = await status((await deviceKey()).fingerprint);
		assert.equal(body.status, "unknown");
		assert.equal((await status("0".repeat(64))).body.status, "unknown");
	});

	const malformed: [string, string][] = [
		["upper-case hex", "A".repeat(64)],
		["63 characters", "a".repeat(63)],
		["65 characters", "a".repeat(65)],
		["not hex", "g".repeat(64)],
		["base64url", crypto.randomBytes(32).toString("base64url")],
		["a colon-separated form", `${"ab:".repeat(31)}ab`],
	];
	for (const [name, fingerprint] of malformed) {
		test(`a malformed fingerprint (${name}) is 400 identity_fingerprint_invalid`, async () => {
			const res = await t.app.inject({
				method: "GET",
				url: `/api/identities/${encodeURIComponent(fingerprint)}/status`,
			});
			assertProblem(res, 400, "identity_fingerprint_invalid");
		});
	}

	test("an identity is attachable only by its own workspace; a foreign one answers like a missing one", async () => {
		const identity = await issue("attach");
		const mine = await checkIdentityOwnership(
			t.app.store.db,
			{ workspaceId: owner.workspaceId },
			identity.id,
		);
		assert.equal(mine.id, identity.id);
		const stranger = await account(t.app.store.db, T0);
		const foreign = await rejectsWith(
			checkIdentityOwnership(t.app.store.db, { workspaceId: stranger.workspaceId }, identity.id),
			"validation_failed",
		);
		const missing = await rejectsWith(
			checkIdentityOwnership(t.app.store.db, { workspaceId: stranger.workspaceId }, "nosuchidentity"),
			"validation_failed",
		);
		assert.equal(foreign.message, missing.message);
		assert.deepEqual(foreign.extra, { field: "body.identity" });
		await rejectsWith(revokeIdentity(t.app.store.db, stranger.workspaceId, identity.id, T0), "not_found");
	});
});
