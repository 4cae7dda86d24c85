import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { CHALLENGE_TTL_MS, verifyChallenge } from "../../src/features/challenges/service.ts";
import {
	createIdentity,
	deleteIdentity,
	type IdentityRecord,
	revokeIdentity,
} from "../../src/features/identity/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { account, assertProblem, rejectsWith } from "../apikeys/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { type DeviceKey, deviceKey } from "../helpers/device-key.ts";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const SLUG = "k3y-slug_for-a-share";

describe("challenges: single-use nonces signed by an identity key", () => {
	let t: TestApp;
	const clock = new ManualClock(T0);
	let owner: { accountId: string; workspaceId: string };
	let device: DeviceKey;
	let identity: IdentityRecord;

	before(async () => {
		t = await makeApp(
			{},
			{
				clock,
				extend: async (app) => {
					// Stand-ins for the link and attestation features, which register their own slugs.
					app.challengeScopes.register("link", async (_db, slug) => slug === SLUG || slug === "other-slug");
					app.challengeScopes.register("attestation", async (_db, token) => token === "offer-token");
				},
			},
		);
		owner = await account(t.app.store.db, T0);
		device = await deviceKey();
		identity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...owner, name: "ann", publicKey: device.publicJwk },
			T0,
		);
	});
	after(() => t.close());

	const challenge = async (scope: string, slug: string, query = "") => {
		const res = await t.app.inject({ method: "GET", url: `/api/challenges/${scope}/${slug}${query}` });
		return res;
	};
	const nonceFor = async (scope = "link", slug = SLUG, query = "") => {
		const res = await challenge(scope, slug, query);
		assert.equal(res.statusCode, 200, res.body);
		return res.json().nonce as string;
	};
	const answer = (nonce: string, signature: string, more: Record<string, unknown> = {}) =>
		verifyChallenge(
			t.app.store.db,
			{ scope: "link", slug: SLUG, nonce, signature, identityId: identity.id, ...more },
			clock.now(),
		);

	test("the endpoint returns a nonce bound to the scope and slug, good five minutes, not cacheable", async () => {
		const res = await challenge("link", SLUG);
		assert.equal(res.statusCode, 200);
		const body = res.json();
		assert.match(body.nonce, /^[A-Za-z0-9_-]{43}$/);
		assert.deepEqual(
			{ ...body, nonce: "" },
			{
				nonce: "",
				scope: "link",
				slug: SLUG,
				expiresAt: new Date(T0 + CHALLENGE_TTL_MS).toISOString(),
			},
		);
		assert.equal(res.headers["cache-control"], "no-store");
		assert.equal(res.headers["x-ratelimit-limit"], String(t.app.limits.challenge.max));
		assert.notEqual(await nonceFor(), body.nonce);
	});

	test("an unknown slug, or a scope no feature has registered, is 404; an unknown scope is 400", async () => {
		assertProblem(await challenge("link", "no-such-slug"), 404, "not_found");
		assertProblem(await challenge("request", SLUG), 404, "not_found");
		assertProblem(await challenge("share", SLUG), 400, "validation_failed");
	});

	test("a signed nonce proves the identity", async () => {
		const nonce = await nonceFor();
		const proven = await answer(nonce, await device.sign(nonce));
		assert.deepEqual(proven, {
			id: identity.id,
			name: "ann",
			fingerprint: identity.fingerprint,
			standing: "active",
		});
	});

	test("code replayed: a nonce is spent on first presentation", async () => {
		const nonce = await nonceFor();
		const signature = await device.sign(nonce);
		await answer(nonce, signature);
		await rejectsWith(answer(nonce, signature), "challenge_invalid");
	});

	test("a wrong signature spends the nonce too", async () => {
		const nonce = await nonceFor();
		await rejectsWith(answer(nonce, await device.sign("something else")), "signature_invalid");
		await rejectsWith(answer(nonce, await device.sign(nonce)), "challenge_invalid");
	});

	test("a signature by another key, or a malformed one, is signature_invalid", async () => {
		const stranger = await deviceKey();
		let nonce = await nonceFor();
		await rejectsWith(answer(nonce, await stranger.sign(nonce)), "signature_invalid");
		for (const signature of ["AAAA", "!".repeat(86), Buffer.alloc(64).toString("base64url")]) {
			nonce = await nonceFor();
			await rejectsWith(answer(nonce, signature), "signature_invalid");
		}
		// A DER-encoded signature (node's default) is not the agreed P1363 form.
		const pair = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
		const made = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...owner, name: "der", publicKey: pair.publicKey.export({ format: "jwk" }) },
			T0,
		);
		nonce = await nonceFor();
		const der = crypto.sign("sha256", Buffer.from(nonce), pair.privateKey).toString("base64url");
		await rejectsWith(answer(nonce, der, { identityId: made.id }), "signature_invalid");
		nonce = await nonceFor();
		const p1363 = crypto.sign("sha256", Buffer.from(nonce), {
			key: pair.privateKey,
			dsaEncoding: "ieee-p1363",
		});
		assert.equal((await answer(nonce, p1363.toString("base64url"), { identityId: made.id })).id, made.id);
	});

	test("nonce for another slug: refused and spent", async () => {
		const nonce = await nonceFor("link", "other-slug");
		await rejectsWith(answer(nonce, await device.sign(nonce)), "challenge_invalid");
		await rejectsWith(answer(nonce, await device.sign(nonce), { slug: "other-slug" }), "challenge_invalid");
	});

	test("nonce for another scope: refused", async () => {
		const nonce = await nonceFor("link", SLUG);
		await rejectsWith(answer(nonce, await device.sign(nonce), { scope: "request" }), "challenge_invalid");
	});

	test("no nonce or no signature is challenge_required; an unknown nonce is challenge_invalid", async () => {
		await rejectsWith(answer("", "sig"), "challenge_required");
		await rejectsWith(
			verifyChallenge(t.app.store.db, { scope: "link", slug: SLUG }, T0),
			"challenge_required",
		);
		await rejectsWith(answer(await nonceFor(), ""), "challenge_required");
		await rejectsWith(answer("never-issued", "sig"), "challenge_invalid");
	});

	test("expiry frozen at the boundary: exp - 1 accepted, exp and exp + 1 refused", async () => {
		const cases: [number, string | null][] = [
			[-1, null],
			[0, "challenge_invalid"],
			[1, "challenge_invalid"],
		];
		for (const [offset, code] of cases) {
			clock.set(T0);
			const nonce = await nonceFor();
			clock.set(T0 + CHALLENGE_TTL_MS + offset);
			const signature = await device.sign(nonce);
			if (code) await rejectsWith(answer(nonce, signature), code);
			else assert.equal((await answer(nonce, signature)).id, identity.id);
		}
		clock.set(T0);
	});

	test("two presentations at once: exactly one wins", async () => {
		const nonce = await nonceFor();
		const signature = await device.sign(nonce);
		const results = await Promise.allSettled([
			answer(nonce, signature),
			answer(nonce, signature),
			answer(nonce, signature),
		]);
		assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
	});

	test("a revoked or deleted identity is identity_revoked", async () => {
		const other = await deviceKey();
		const made = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...owner, name: "old", publicKey: other.publicJwk },
			T0,
		);
		await revokeIdentity(t.app.store.db, owner.workspaceId, made.id, T0);
		let nonce = await nonceFor();
		await rejectsWith(answer(nonce, await other.sign(nonce), { identityId: made.id }), "identity_revoked");
		await deleteIdentity(t.app.store.db, owner.workspaceId, made.id, T0);
		nonce = await nonceFor();
		await rejectsWith(answer(nonce, await other.sign(nonce), { identityId: made.id }), "identity_revoked");
		nonce = await nonceFor();
		await rejectsWith(
			answer(nonce, await other.sign(nonce), { identityId: undefined, publicKey: other.publicJwk }),
			"identity_revoked",
		);
	});

	test("an identity of another server signs with its public key; its standing here is unknown", async () => {
		const remote = await deviceKey();
		const nonce = await nonceFor();
		const proven = await answer(nonce, await remote.sign(nonce), {
			identityId: undefined,
			publicKey: remote.publicJwk,
		});
		assert.deepEqual(proven, { fingerprint: remote.fingerprint, standing: "unknown" });
	});

	test("attestation: the offer token is the slug and the nonce is bound to the identity asked for", async () => {
		assertProblem(await challenge("attestation", "offer-token"), 400, "validation_failed");
		const res = await challenge("attestation", "offer-token", `?identityId=${identity.id}`);
		assert.equal(res.statusCode, 200);
		assert.equal(res.json().identityId, identity.id);
		const attest = (nonce: string, signature: string, identityId: string) =>
			verifyChallenge(
				t.app.store.db,
				{ scope: "attestation", slug: "offer-token", nonce, signature, identityId },
				clock.now(),
			);
		const nonce = res.json().nonce as string;
		const other = await deviceKey();
		const otherIdentity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...owner, name: "o", publicKey: other.publicJwk },
			T0,
		);
		await rejectsWith(attest(nonce, await other.sign(nonce), otherIdentity.id), "challenge_invalid");

		const fresh = (await challenge("attestation", "offer-token", `?identityId=${identity.id}`)).json()
			.nonce as string;
		assert.equal((await attest(fresh, await device.sign(fresh), identity.id)).id, identity.id);
	});
});
