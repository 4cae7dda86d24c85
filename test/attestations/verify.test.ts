// `POST /api/attestations/verify` on one server: presentations built with @sd-jwt/sd-jwt-vc (the
// presenting module the app and the svc command use) and by hand, each verdict the spec names:
// verified with audience and nonce; never verified without them; a replayed nonce, another
// audience, an altered disclosure, a key binding over other disclosures and an unreadable string
// are invalid; a forged issuer signature is spoofed; a revoked credential and a withdrawn holder
// identity are revoked; past `exp` (frozen time) is expired. Always 200.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { decodeProtectedHeader, SignJWT } from "jose";
import { buildPresentation } from "../../src/lib/sd-jwt-present.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { type DeviceKey, deviceKey } from "../helpers/device-key.ts";
import { buildAccount, createIdentity, type TestAccount } from "../helpers/factories.ts";
import { nextIp } from "../shares/helpers.ts";

const C = "/api/collections/attestations/records";
const AUDIENCE = "https://shop.example";
let t: TestApp;
let admin: TestAccount;

before(async () => {
	t = await makeApp({ allowAttestations: true });
	admin = await buildAccount(t.app, { name: "Registry" });
});
after(() => t.close());

interface Issued {
	credential: string;
	id: string;
	key: DeviceKey;
	identityId: string;
}

async function issued(body: Record<string, unknown> = {}): Promise<Issued> {
	const person = await buildAccount(t.app, { name: "Ada" });
	const { id: identityId, key } = await createIdentity(t.app, person);
	const identity = (await t.app.inject({ method: "GET", url: `/api/certificate/${identityId}` })).json();
	const offer = await t.app.inject({
		method: "POST",
		url: C,
		headers: admin.headers,
		payload: {
			workspace: admin.workspaceId,
			type: "membership",
			claims: { member: true, grade: 3, club: "Chess" },
			...body,
		},
	});
	const token = String(offer.headers["x-attestation-token"]);
	const nonce = (
		await t.app.inject({
			method: "GET",
			url: `/api/challenges/attestation/${token}?identityId=${identity.id}`,
			remoteAddress: nextIp(),
		})
	).json().nonce;
	const res = await t.app.inject({
		method: "POST",
		url: `/api/attestations/offers/${token}/claim`,
		payload: { identity, challengeNonce: nonce, challengeSignature: await key.sign(nonce) },
		remoteAddress: nextIp(),
	});
	assert.equal(res.statusCode, 200, res.body);
	return { credential: res.json().credential, id: offer.json().id, key, identityId };
}

const fresh = () => `n-${crypto.randomBytes(12).toString("base64url")}`;

function present(c: Issued, claims: string[], nonce = fresh(), audience = AUDIENCE) {
	return buildPresentation(c.credential, {
		claims,
		audience,
		nonce,
		sign: (input) => c.key.sign(input),
		now: Date.now() / 1000,
	});
}

/** A key binding made by hand over exactly `presented` (`<jwt>~<disclosure>~…~`), signed by the holder. */
async function bindByHand(c: Issued, presented: string, nonce: string, audience = AUDIENCE) {
	const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
	const sdHash = crypto.createHash("sha256").update(presented, "ascii").digest("base64url");
	const input = `${b64({ alg: "ES256", typ: "kb+jwt" })}.${b64({
		iat: Math.floor(Date.now() / 1000),
		aud: audience,
		nonce,
		sd_hash: sdHash,
	})}`;
	return `${presented}${input}.${await c.key.sign(input)}`;
}

async function verify(body: Record<string, unknown>) {
	const res = await t.app.inject({
		method: "POST",
		url: "/api/attestations/verify",
		payload: body,
		remoteAddress: nextIp(),
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json();
}

describe("POST /api/attestations/verify", () => {
	test("verified: both chains hold, the holder presented for this audience and nonce, two of three claims", async () => {
		const c = await issued();
		const nonce = fresh();
		const presentation = await present(c, ["member", "club"], nonce);
		const v = await verify({ presentation, audience: AUDIENCE, nonce });
		assert.equal(v.state, "verified", v.reason);
		assert.equal(v.reason, "");
		assert.equal(v.issuer, "localhost");
		assert.equal(v.issuerState, "verified");
		assert.equal(v.type, "membership");
		assert.deepEqual(v.claims, { member: true, club: "Chess" });
		assert.equal(v.withheld, 1);
		assert.equal(v.status, "valid");
		assert.equal(typeof v.issuedAt, "number");
		assert.equal(v.expiresAt, undefined);
		assert.equal(v.holder.domain, "localhost");
		assert.equal(v.holder.status, "active");
		assert.equal(v.keyBound, true);

		// The same nonce again: a replay.
		const replay = await verify({ presentation, audience: AUDIENCE, nonce });
		assert.equal(replay.state, "invalid");
		assert.match(replay.reason, /already presented/);
	});

	test("without audience and nonce it is never verified, and the key binding is not checked", async () => {
		const c = await issued();
		const v = await verify({ presentation: c.credential });
		assert.equal(v.state, "unverified");
		assert.equal(v.keyBound, false);
		assert.deepEqual(v.claims, { member: true, grade: 3, club: "Chess" });
		assert.match(v.reason, /audience and nonce/);
		// One of the two is not enough, even with a valid key binding for them.
		const nonce = fresh();
		const p = await present(c, ["member"], nonce);
		for (const half of [{ audience: AUDIENCE }, { nonce }]) {
			const h = await verify({ presentation: p, ...half });
			assert.equal(h.state, "unverified");
			assert.equal(h.keyBound, false);
		}
	});

	test("a disclosure presented twice, or one the issuer never signed, is invalid under a valid key binding", async () => {
		const c = await issued();
		const [jwt, ...rest] = c.credential.split("~");
		const disclosures = rest.filter((d) => d !== "");
		const member = disclosures.find(
			(d) => JSON.parse(Buffer.from(d, "base64url").toString())[1] === "member",
		);
		assert.ok(member);

		// The control: the same hand-made binding over one disclosure once is verified, 2 withheld.
		let nonce = fresh();
		const once = await verify({
			presentation: await bindByHand(c, `${jwt}~${member}~`, nonce),
			audience: AUDIENCE,
			nonce,
		});
		assert.equal(once.state, "verified", once.reason);
		assert.equal(once.withheld, 2);

		// RFC 9901: a disclosure must not appear twice.
		nonce = fresh();
		const twice = await verify({
			presentation: await bindByHand(c, `${jwt}~${member}~${member}~`, nonce),
			audience: AUDIENCE,
			nonce,
		});
		assert.equal(twice.state, "invalid");
		assert.match(twice.reason, /the disclosure of member is presented twice/);
		assert.equal(twice.keyBound, false);

		// A disclosure the issuer never signed (its digest is in no `_sd`), the binding valid over it.
		nonce = fresh();
		const stray = Buffer.from(
			JSON.stringify([crypto.randomBytes(16).toString("base64url"), "vip", true]),
		).toString("base64url");
		const unknown = await verify({
			presentation: await bindByHand(c, `${jwt}~${member}~${stray}~`, nonce),
			audience: AUDIENCE,
			nonce,
		});
		assert.equal(unknown.state, "invalid");
		assert.match(unknown.reason, /the disclosure of vip is not one the issuer signed/);
		assert.equal(unknown.keyBound, false);
	});

	test("another audience, another nonce, an altered disclosure, a binding over other disclosures: invalid", async () => {
		const c = await issued();
		const nonce = fresh();
		const p = await present(c, ["member"], nonce);
		assert.equal(
			(await verify({ presentation: p, audience: "https://other.example", nonce })).state,
			"invalid",
		);
		assert.equal((await verify({ presentation: p, audience: AUDIENCE, nonce: fresh() })).state, "invalid");

		// A disclosure whose value was changed is no digest the issuer signed.
		const [jwt, first, ...rest] = p.split("~");
		const [salt, name] = JSON.parse(Buffer.from(first as string, "base64url").toString());
		const forgedDisclosure = Buffer.from(JSON.stringify([salt, name, false])).toString("base64url");
		const altered = await verify({
			presentation: [jwt, forgedDisclosure, ...rest].join("~"),
			audience: AUDIENCE,
			nonce: fresh(),
		});
		assert.equal(altered.state, "invalid");
		assert.match(altered.reason, /not one the issuer signed/);

		// One more disclosure added after the key binding was made: sd_hash no longer matches.
		const nonce2 = fresh();
		const one = await present(c, ["member"], nonce2);
		const all = c.credential
			.split("~")
			.filter((d) => d !== "")
			.slice(1);
		const parts = one.split("~");
		const kb = parts.pop() as string;
		const extra = all.find((d) => !parts.includes(d)) as string;
		const widened = [...parts, extra, kb].join("~");
		const w = await verify({ presentation: widened, audience: AUDIENCE, nonce: nonce2 });
		assert.equal(w.state, "invalid");
		assert.match(w.reason, /exactly the disclosures/);

		// Signed by another key than the one in cnf.
		const nonce3 = fresh();
		const stranger = await deviceKey();
		const foreign = await buildPresentation(c.credential, {
			claims: ["member"],
			audience: AUDIENCE,
			nonce: nonce3,
			sign: (input) => stranger.sign(input),
			now: Date.now() / 1000,
		});
		assert.equal(
			(await verify({ presentation: foreign, audience: AUDIENCE, nonce: nonce3 })).state,
			"invalid",
		);
	});

	/**
	 * Verifies, at a frozen whole second, presentations of `c` whose key binding was signed at
	 * `offsetS` seconds from then (each with a nonce of its own, so no replay decides).
	 */
	async function atOffsets(c: Issued, offsets: number[]) {
		const at = Math.floor(t.app.clock.now() / 1000) * 1000;
		const real = t.app.clock.now;
		const verdicts = new Map<number, { state: string; reason: string; keyBound: boolean }>();
		try {
			t.app.clock.now = () => at;
			for (const offsetS of offsets) {
				const nonce = fresh();
				const presentation = await buildPresentation(c.credential, {
					claims: ["member"],
					audience: AUDIENCE,
					nonce,
					sign: (input) => c.key.sign(input),
					now: at / 1000 + offsetS,
				});
				verdicts.set(offsetS, await verify({ presentation, audience: AUDIENCE, nonce }));
			}
		} finally {
			t.app.clock.now = real;
		}
		return verdicts;
	}

	// docs/api.md: a key binding's `iat` is within the last five minutes, one minute of skew ahead;
	// else `invalid`. A captured presentation replayed later with a nonce the verifier reuses, or one
	// signed ahead of time to be used later, must not pass.
	test("a key binding signed more than five minutes ago is invalid; five minutes ago it holds", async () => {
		const c = await issued();
		const verdicts = await atOffsets(c, [-300, -301, -3600, -30 * 86_400]);
		const edge = verdicts.get(-300);
		assert.equal(edge?.state, "verified", `iat 300 s ago: ${edge?.reason}`);
		for (const offset of [-301, -3600, -30 * 86_400]) {
			const v = verdicts.get(offset);
			assert.equal(v?.state, "invalid", `iat ${-offset} s ago: ${v?.state} (reason: "${v?.reason}")`);
			assert.equal(v?.reason, "the key binding is too old or from the future");
			assert.equal(v?.keyBound, false);
		}
	});

	test("a key binding signed more than a minute ahead is invalid; a minute ahead it holds", async () => {
		const c = await issued();
		const verdicts = await atOffsets(c, [60, 61, 3600, 365 * 86_400]);
		const edge = verdicts.get(60);
		assert.equal(edge?.state, "verified", `iat 60 s ahead: ${edge?.reason}`);
		for (const offset of [61, 3600, 365 * 86_400]) {
			const v = verdicts.get(offset);
			assert.equal(v?.state, "invalid", `iat ${offset} s ahead: ${v?.state} (reason: "${v?.reason}")`);
			assert.equal(v?.reason, "the key binding is too old or from the future");
			assert.equal(v?.keyBound, false);
		}
	});

	test("unreadable input is invalid, still 200; a malformed nonce is 400", async () => {
		for (const presentation of ["garbage", "a.b.c~", "~~~"]) {
			const v = await verify({ presentation });
			assert.equal(v.state, "invalid", presentation);
			assert.equal(v.keyBound, false);
		}
		const bad = await t.app.inject({
			method: "POST",
			url: "/api/attestations/verify",
			payload: { presentation: "x", nonce: "no spaces here!" },
			remoteAddress: nextIp(),
		});
		assert.equal(bad.statusCode, 400);
	});

	test("a forged issuer signature is spoofed, and its claims are not given", async () => {
		const c = await issued();
		const [jwt, ...rest] = c.credential.split("~");
		const header = decodeProtectedHeader(jwt as string);
		const payload = JSON.parse(Buffer.from((jwt as string).split(".")[1] as string, "base64url").toString());
		const { privateKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
		const forged = await new SignJWT(payload)
			.setProtectedHeader({ alg: "ES256", typ: "dc+sd-jwt", kid: header.kid as string })
			.sign(privateKey);
		const v = await verify({ presentation: [forged, ...rest].join("~") });
		assert.equal(v.state, "spoofed");
		assert.equal(v.claims, undefined);
	});

	test("revoked by the attester, or the holder's identity withdrawn: revoked", async () => {
		const c = await issued();
		await t.app.inject({
			method: "PATCH",
			url: `${C}/${c.id}`,
			headers: admin.headers,
			payload: { status: "revoked" },
		});
		let v = await verify({ presentation: c.credential });
		assert.equal(v.state, "revoked");
		assert.equal(v.status, "revoked");

		const d = await issued();
		await t.app.store.db
			.updateTable("identities")
			.set({ status: "revoked" })
			.where("id", "=", d.identityId)
			.execute();
		v = await verify({ presentation: d.credential });
		assert.equal(v.state, "revoked");
		assert.equal(v.status, "valid");
		assert.equal(v.holder.status, "revoked");
	});

	test("a tombstone outranks a live row of the same key: verify and the status endpoint both say revoked", async () => {
		// Deleting an identity keeps it revoked for good (docs/api.md "Identities and standing"); a row
		// that somehow outlived its tombstone (a restore, a race) must not turn the standing back.
		const d = await issued();
		const row = await t.app.store.db
			.selectFrom("identities")
			.selectAll()
			.where("id", "=", d.identityId)
			.executeTakeFirstOrThrow();
		await t.app.store.db
			.insertInto("identity_tombstones")
			.values({
				fingerprint: row.fingerprint,
				identity_id: row.id,
				status: "revoked",
				workspace: row.workspace,
				deleted_at: Date.now(),
			})
			.execute();
		const v = await verify({ presentation: d.credential });
		assert.equal(v.holder.status, "revoked");
		assert.equal(v.state, "revoked");
		const status = await t.app.inject({
			method: "GET",
			url: `/api/identities/${row.fingerprint}/status`,
			remoteAddress: nextIp(),
		});
		const payload = JSON.parse(Buffer.from(status.json().payload, "base64url").toString("utf8"));
		assert.equal(payload.status, "revoked");
	});

	test("at exp the credential is expired; a second before, it is not", async () => {
		const expiresAt = new Date(Math.ceil((t.app.clock.now() + 3600_000) / 1000) * 1000).toISOString();
		const c = await issued({ expiresAt });
		const at = Date.parse(expiresAt);
		const real = t.app.clock.now;
		try {
			t.app.clock.now = () => at;
			let v = await verify({ presentation: c.credential });
			assert.equal(v.state, "expired");
			assert.equal(v.expiresAt, at / 1000);
			t.app.clock.now = () => at - 1000;
			v = await verify({ presentation: c.credential });
			assert.equal(v.state, "unverified", "not expired; unverified only for the missing audience and nonce");
		} finally {
			t.app.clock.now = real;
		}
	});
});
