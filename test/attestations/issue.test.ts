// Issuing attestations on one server (spec "Attestation", "Credential content", "Status list"):
// the collection behind ALLOW_ATTESTATIONS and `attestations:issue`, the one-time offer token, the
// offer view, the claim with a challenge signed by an identity of this server, and the credential
// checked by code that shares nothing with the issuing path: the issuer JWT verified with jose
// against /.well-known/jwt-vc-issuer (whose key the root key certified), every disclosure hashed
// by hand and found in `_sd`. The status list is decoded per the Token Status List format (zlib,
// least significant bit first, checked on the draft's published example). A burst of 200 claims by
// two identities issues to one identity only.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import zlib from "node:zlib";
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";
import { deleteAccount } from "../../src/features/accounts/deletion.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { type DeviceKey, deviceKey } from "../helpers/device-key.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";
import { nextIp } from "../shares/helpers.ts";

const C = "/api/collections/attestations/records";
let t: TestApp;
let admin: TestAccount;
let issuerOrigin: string;

before(async () => {
	t = await makeApp({ allowAttestations: true });
	admin = await buildAccount(t.app, { name: "Registry" });
	issuerOrigin = `http://localhost:${t.app.config.port}`;
});
after(() => t.close());

interface Holder {
	person: TestAccount;
	key: DeviceKey;
	identity: {
		id: string;
		name: string;
		certificate: string;
		fingerprint: string;
		parentSignature: string;
		domainAtIssue: string;
	};
}

/** An identity of this server, made by a person of another workspace, with its device key. */
async function holder(name = "Ada"): Promise<Holder> {
	const person = await buildAccount(t.app, { name });
	const key = await deviceKey();
	const made = await t.app.inject({
		method: "POST",
		url: "/api/collections/identities/records",
		headers: person.headers,
		payload: { name, publicKey: key.publicJwk },
	});
	assert.equal(made.statusCode, 200, made.body);
	const cert = await t.app.inject({ method: "GET", url: `/api/certificate/${made.json().id}` });
	return { person, key, identity: cert.json() };
}

/** `POST /api/credentials/claim`: `h` keeps the offer `token`, signing the challenge `nonce`. */
async function keepCredential(h: Holder, token: string, nonce: string) {
	return t.app.inject({
		method: "POST",
		url: "/api/credentials/claim",
		headers: h.person.headers,
		remoteAddress: nextIp(),
		payload: {
			token,
			identityId: h.identity.id,
			challengeNonce: nonce,
			challengeSignature: await h.key.sign(nonce),
		},
	});
}

async function offer(body: Record<string, unknown> = {}, who: TestAccount = admin) {
	const res = await t.app.inject({
		method: "POST",
		url: C,
		headers: who.headers,
		payload: {
			workspace: who.workspaceId,
			type: "https://registry.example/member",
			claims: { member: true, grade: 3, club: "Chess" },
			label: "Membership",
			...body,
		},
	});
	return res;
}

async function claim(token: string, h: Holder, ip = nextIp()) {
	const challenge = await t.app.inject({
		method: "GET",
		url: `/api/challenges/attestation/${token}?identityId=${h.identity.id}`,
		remoteAddress: ip,
	});
	assert.equal(challenge.statusCode, 200, challenge.body);
	const nonce = challenge.json().nonce as string;
	return t.app.inject({
		method: "POST",
		url: `/api/attestations/offers/${token}/claim`,
		remoteAddress: ip,
		payload: { identity: h.identity, challengeNonce: nonce, challengeSignature: await h.key.sign(nonce) },
	});
}

const b64json = (s: string) => JSON.parse(Buffer.from(s, "base64url").toString("utf8"));

/** The credential, read without the issuing library: JWT verified, disclosures hashed by hand. */
async function readCredential(credential: string) {
	assert.ok(credential.endsWith("~"), "an SD-JWT without key binding ends with ~");
	const [jwt, ...rest] = credential.split("~");
	const disclosures = rest.filter((d) => d !== "");
	const meta = (await t.app.inject({ method: "GET", url: "/.well-known/jwt-vc-issuer" })).json();
	const header = decodeProtectedHeader(jwt as string);
	const jwk = (meta.jwks.keys as (JWK & { kid: string })[]).find((k) => k.kid === header.kid);
	assert.ok(jwk, "signed by a published key");
	const { payload } = await jwtVerify(jwt as string, await importJWK(jwk, "ES256"), {
		algorithms: ["ES256"],
	});
	assert.equal(header.typ, "dc+sd-jwt");
	const digests = new Set(payload._sd as string[]);
	const claims: Record<string, unknown> = {};
	for (const d of disclosures) {
		const hash = crypto.createHash("sha256").update(d, "ascii").digest("base64url");
		assert.ok(digests.has(hash), "each disclosure's digest is in _sd");
		const [salt, name, value] = b64json(d) as [string, string, unknown];
		// RFC 9901 recommends 128-bit salts, base64url: 16 bytes, encoded as it decodes.
		const saltBytes = Buffer.from(salt, "base64url");
		assert.equal(saltBytes.length, 16, `the salt ${salt} decodes to ${saltBytes.length} bytes, not 16`);
		assert.equal(saltBytes.toString("base64url"), salt);
		claims[name] = value;
	}
	return { payload, claims, disclosures, jwk };
}

/** One status bit, read per the Token Status List format: zlib, bit i of byte i>>3, LSB first. */
function statusBit(lst: string, index: number): number {
	const bytes = zlib.inflateSync(Buffer.from(lst, "base64url"));
	return index >> 3 < bytes.length ? ((bytes[index >> 3] as number) >> (index & 7)) & 1 : -1;
}

async function statusList() {
	const res = await t.app.inject({ method: "GET", url: "/api/attestations/status", remoteAddress: nextIp() });
	assert.equal(res.statusCode, 200, res.body);
	assert.match(String(res.headers["content-type"]), /^application\/statuslist\+jwt/);
	assert.equal(res.headers["cache-control"], "public, max-age=300");
	const meta = (await t.app.inject({ method: "GET", url: "/.well-known/jwt-vc-issuer" })).json();
	const header = decodeProtectedHeader(res.body);
	assert.equal(header.typ, "statuslist+jwt");
	const jwk = (meta.jwks.keys as (JWK & { kid: string })[]).find((k) => k.kid === header.kid) as JWK;
	const { payload } = await jwtVerify(res.body, await importJWK(jwk, "ES256"));
	return payload as {
		ttl: number;
		exp: number;
		iat: number;
		sub: string;
		status_list: { bits: number; lst: string };
	};
}

describe("the issuer's key", () => {
	test("/.well-known/jwt-vc-issuer: an ES256 key of its own, certified by the root key (credential-key-v1)", async () => {
		const res = await t.app.inject({ method: "GET", url: "/.well-known/jwt-vc-issuer" });
		assert.equal(res.statusCode, 200);
		const { issuer, jwks } = res.json();
		assert.equal(issuer, issuerOrigin);
		const [key] = jwks.keys;
		assert.equal(key.kty, "EC");
		assert.equal(key.crv, "P-256");
		assert.equal(key.alg, "ES256");
		assert.equal(key.d, undefined);
		assert.equal(
			key.kid,
			await calculateJwkThumbprint({ kty: "EC", crv: "P-256", x: key.x, y: key.y }, "sha256"),
		);
		const cert = key.svc_certification;
		const root = crypto.createPublicKey(t.app.rootKey.publicPem);
		assert.ok(crypto.verify("sha256", Buffer.from(cert.payload), root, Buffer.from(cert.signature, "hex")));
		const body = b64json(cert.payload);
		assert.equal(Object.keys(body)[0], "type");
		assert.deepEqual([body.type, body.domain, body.kid], ["credential-key-v1", "localhost", key.kid]);
	});
});

describe("issuing", () => {
	test("the token is returned once in X-Attestation-Token; the record never carries it", async () => {
		const res = await offer();
		assert.equal(res.statusCode, 200, res.body);
		const token = res.headers["x-attestation-token"];
		assert.match(String(token), /^[A-Za-z0-9_-]{43}$/);
		assert.equal(res.headers["cache-control"], "no-store");
		assert.equal(res.json().status, "offered");
		assert.ok(!res.body.includes(String(token)));
		const stored = await t.app.store.db
			.selectFrom("attestations")
			.select("token_hash")
			.where("id", "=", res.json().id)
			.executeTakeFirstOrThrow();
		assert.notEqual(stored.token_hash, token);
		const listed = await t.app.inject({
			method: "GET",
			url: `${C}/${res.json().id}`,
			headers: admin.headers,
		});
		assert.deepEqual(listed.json().claims, { member: true, grade: 3, club: "Chess" });
	});

	test("refusals: issuing off, no permission, reserved or malformed claims, spaces in the type", async () => {
		const off = await makeApp();
		try {
			const who = await buildAccount(off.app);
			const res = await off.app.inject({
				method: "POST",
				url: C,
				headers: who.headers,
				payload: { workspace: who.workspaceId, type: "x", claims: { a: 1 } },
			});
			assert.equal(res.statusCode, 403);
			assert.equal(res.json().code, "attestations_disabled");
		} finally {
			await off.close();
		}
		const member = await buildAccount(t.app);
		await addMember(t.app, admin.workspaceId, member.accountId, "member");
		// A member of the admin's workspace (not an administrator) lacks attestations:issue.
		const asMember = {
			...member,
			workspaceId: admin.workspaceId,
			headers: { ...member.headers, "x-workspace": admin.workspaceId },
		};
		const refused = await offer({}, asMember);
		assert.equal(refused.statusCode, 403, refused.body);
		assert.equal(refused.json().code, "forbidden");
		for (const [claims, field] of [
			[{ iss: "x" }, "body.claims.iss"],
			[{ status: 1 }, "body.claims.status"],
			[{ "bad name": 1 }, "body.claims.bad name"],
			[{ nested: { a: 1 } }, "body.claims.nested"],
			[{}, "body.claims"],
		] as const) {
			const res = await offer({ claims });
			assert.equal(res.statusCode, 400, JSON.stringify(claims));
			assert.equal(res.json().field, field);
		}
		const spaced = await offer({ type: "has space" });
		assert.equal(spaced.statusCode, 400);
		const before = await t.app.store.db
			.selectFrom("attestations")
			.select((eb) => eb.fn.countAll<number>().as("n"))
			.executeTakeFirstOrThrow();
		assert.ok(Number(before.n) >= 1);
	});

	test("claimed by an identity: an SD-JWT VC bound to its key, every claim disclosable, read independently", async () => {
		const made = await offer({ expiresAt: new Date(t.app.clock.now() + 365 * 86_400_000).toISOString() });
		const token = String(made.headers["x-attestation-token"]);
		const view = await t.app.inject({
			method: "GET",
			url: `/api/attestations/offers/${token}`,
			remoteAddress: nextIp(),
		});
		assert.equal(view.statusCode, 200, view.body);
		assert.equal(view.json().status, "offered");
		assert.deepEqual(view.json().claims, { member: true, grade: 3, club: "Chess" });
		assert.equal(view.json().server.fingerprint, t.app.rootKey.fingerprint);
		assert.equal(view.json().workspace.id, admin.workspaceId);

		const h = await holder();
		const res = await claim(token, h);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().issuer, "localhost");
		const { payload, claims, disclosures } = await readCredential(res.json().credential);
		assert.equal(payload.iss, issuerOrigin);
		assert.equal(payload.vct, "https://registry.example/member");
		assert.equal(typeof payload.iat, "number");
		assert.equal(payload.exp, Math.floor(Date.parse(made.json().expiresAt) / 1000));
		assert.deepEqual(
			[(payload.cnf as { jwk: JWK }).jwk.x, (payload.cnf as { jwk: JWK }).jwk.y],
			[h.key.publicJwk.x, h.key.publicJwk.y],
			"bound to the holder's identity key",
		);
		assert.deepEqual(payload.svc_holder, { fingerprint: h.identity.fingerprint, domain: "localhost" });
		const status = (payload.status as { status_list: { idx: number; uri: string } }).status_list;
		assert.equal(status.uri, `${issuerOrigin}/api/attestations/status`);
		assert.equal(disclosures.length, 3);
		assert.deepEqual(claims, { member: true, grade: 3, club: "Chess" });
		for (const name of ["member", "grade", "club"])
			assert.equal(payload[name], undefined, `${name} only as a digest`);

		const record = await t.app.inject({
			method: "GET",
			url: `${C}/${made.json().id}`,
			headers: admin.headers,
		});
		assert.equal(record.json().status, "active");
		assert.equal(record.json().subjectFingerprint, h.identity.fingerprint);
		assert.equal(record.json().subjectDomain, "localhost");
		assert.equal(record.json().subjectName, "Ada");

		// The same identity again before the offer's date: the same statement; another: refused.
		const again = await claim(token, h);
		assert.equal(again.statusCode, 200, again.body);
		const second = await readCredential(again.json().credential);
		assert.deepEqual(second.claims, claims);
		assert.equal(second.payload.iat, payload.iat);
		assert.deepEqual(second.payload.status, payload.status);
		const other = await claim(token, await holder("Grace"));
		assert.equal(other.statusCode, 410);
		assert.equal(other.json().code, "attestation_offer_claimed");
		const after = await t.app.inject({
			method: "GET",
			url: `/api/attestations/offers/${token}`,
			remoteAddress: nextIp(),
		});
		assert.equal(after.json().status, "active");
		assert.equal(after.json().claims, undefined, "the claims are shown while the offer is open");
	});

	test("an offer for one identity refuses another; a bad signature or no challenge is refused", async () => {
		const h = await holder();
		const made = await offer({ subjectFingerprint: h.identity.fingerprint });
		const token = String(made.headers["x-attestation-token"]);
		const wrong = await claim(token, await holder("Eve"));
		assert.equal(wrong.statusCode, 403);
		assert.equal(wrong.json().code, "attestation_identity_mismatch");
		const none = await t.app.inject({
			method: "POST",
			url: `/api/attestations/offers/${token}/claim`,
			payload: { identity: h.identity },
			remoteAddress: nextIp(),
		});
		assert.equal(none.statusCode, 401);
		assert.equal(none.json().code, "challenge_required");
		const nonce = (
			await t.app.inject({
				method: "GET",
				url: `/api/challenges/attestation/${token}?identityId=${h.identity.id}`,
				remoteAddress: nextIp(),
			})
		).json().nonce;
		const forged = await t.app.inject({
			method: "POST",
			url: `/api/attestations/offers/${token}/claim`,
			payload: {
				identity: h.identity,
				challengeNonce: nonce,
				challengeSignature: await (await deviceKey()).sign(nonce),
			},
			remoteAddress: nextIp(),
		});
		assert.equal(forged.statusCode, 401);
		assert.equal(forged.json().code, "signature_invalid");
		assert.equal((await claim(token, h)).statusCode, 200);
	});

	test("a withdrawn identity cannot claim; unknown, revoked and expired offers answer 404 and 410", async () => {
		const h = await holder();
		const person = await t.app.store.db
			.selectFrom("identities")
			.select("id")
			.where("fingerprint", "=", h.identity.fingerprint)
			.executeTakeFirstOrThrow();
		await t.app.store.db
			.updateTable("identities")
			.set({ status: "revoked" })
			.where("id", "=", person.id)
			.execute();
		const made = await offer();
		const token = String(made.headers["x-attestation-token"]);
		const ip = nextIp();
		const nonce = (
			await t.app.inject({
				method: "GET",
				url: `/api/challenges/attestation/${token}?identityId=${h.identity.id}`,
				remoteAddress: ip,
			})
		).json().nonce;
		const body = { identity: h.identity, challengeNonce: nonce, challengeSignature: await h.key.sign(nonce) };
		const refused = await t.app.inject({
			method: "POST",
			url: `/api/attestations/offers/${token}/claim`,
			payload: body,
			remoteAddress: ip,
		});
		assert.equal(refused.statusCode, 403);
		assert.equal(refused.json().code, "identity_revoked");
		// The nonce was spent by that refusal: once the identity stands again, it is not accepted twice.
		await t.app.store.db
			.updateTable("identities")
			.set({ status: "active" })
			.where("id", "=", person.id)
			.execute();
		const replayed = await t.app.inject({
			method: "POST",
			url: `/api/attestations/offers/${token}/claim`,
			payload: body,
			remoteAddress: nextIp(),
		});
		assert.equal(replayed.statusCode, 401);
		assert.equal(replayed.json().code, "challenge_invalid");
		await t.app.store.db
			.updateTable("identities")
			.set({ status: "revoked" })
			.where("id", "=", person.id)
			.execute();

		const unknown = await t.app.inject({
			method: "GET",
			url: `/api/attestations/offers/${"x".repeat(43)}`,
			remoteAddress: nextIp(),
		});
		assert.equal(unknown.statusCode, 404);
		const revoked = await t.app.inject({
			method: "PATCH",
			url: `${C}/${made.json().id}`,
			headers: admin.headers,
			payload: { status: "revoked" },
		});
		assert.equal(revoked.statusCode, 200, revoked.body);
		const gone = await t.app.inject({
			method: "GET",
			url: `/api/attestations/offers/${token}`,
			remoteAddress: nextIp(),
		});
		assert.equal(gone.statusCode, 410);
		assert.equal(gone.json().code, "attestation_offer_revoked");
		const changed = await t.app.inject({
			method: "PATCH",
			url: `${C}/${made.json().id}`,
			headers: admin.headers,
			payload: { label: "x" },
		});
		assert.equal(changed.statusCode, 400, "what it states never changes");

		const soon = await offer({ offerExpiresAt: new Date(t.app.clock.now() + 60_000).toISOString() });
		const soonToken = String(soon.headers["x-attestation-token"]);
		const real = t.app.clock.now;
		const at = Date.parse(soon.json().offerExpiresAt);
		t.app.clock.now = () => at; // exactly at offerExpiresAt: over
		try {
			const late = await t.app.inject({
				method: "GET",
				url: `/api/attestations/offers/${soonToken}`,
				remoteAddress: nextIp(),
			});
			assert.equal(late.statusCode, 410);
			assert.equal(late.json().code, "attestation_offer_expired");
		} finally {
			t.app.clock.now = real;
		}
		t.app.clock.now = () => at - 1;
		try {
			const justBefore = await t.app.inject({
				method: "GET",
				url: `/api/attestations/offers/${soonToken}`,
				remoteAddress: nextIp(),
			});
			assert.equal(justBefore.statusCode, 200);
		} finally {
			t.app.clock.now = real;
		}
	});

	test("held: the person's own server keeps what its identity accepted here, and deletes it on request", async () => {
		const made = await offer();
		const token = String(made.headers["x-attestation-token"]);
		const h = await holder();
		const nonce = (
			await t.app.inject({
				method: "GET",
				url: `/api/challenges/attestation/${token}?identityId=${h.identity.id}`,
				remoteAddress: nextIp(),
			})
		).json().nonce;
		const kept = await keepCredential(h, token, nonce);
		assert.equal(kept.statusCode, 200, kept.body);
		assert.equal(kept.json().issuer, "localhost");
		assert.deepEqual(kept.json().claims, { member: true, grade: 3, club: "Chess" });
		const status = await t.app.inject({
			method: "GET",
			url: `/api/credentials/${kept.json().id}/status`,
			headers: h.person.headers,
			remoteAddress: nextIp(),
		});
		// Spec: `keyBound` always false, and without a key binding never `verified`; what holds is said.
		assert.equal(status.json().state, "unverified", status.json().reason);
		assert.match(status.json().reason, /no key binding was asked/);
		assert.equal(status.json().keyBound, false);
		assert.equal(status.json().status, "valid");
		assert.equal(status.json().issuerState, "verified");
		assert.equal(status.json().holder.status, "active");
		assert.deepEqual(status.json().claims, { member: true, grade: 3, club: "Chess" });
		// Another person sees nothing of it; an API key cannot reach the collection.
		const other = await buildAccount(t.app);
		const hidden = await t.app.inject({
			method: "GET",
			url: `/api/credentials/${kept.json().id}/status`,
			headers: other.headers,
		});
		assert.equal(hidden.statusCode, 404);
		const list = await t.app.inject({
			method: "GET",
			url: "/api/collections/credentials/records",
			headers: other.headers,
		});
		assert.equal(list.json().totalItems, 0);
		// The collection's create is the same claim: accepting again replaces the kept copy.
		const badBody = await t.app.inject({
			method: "POST",
			url: "/api/collections/credentials/records",
			headers: h.person.headers,
			payload: { token },
		});
		assert.equal(badBody.statusCode, 400);
		const nonce2 = (
			await t.app.inject({
				method: "GET",
				url: `/api/challenges/attestation/${token}?identityId=${h.identity.id}`,
				remoteAddress: nextIp(),
			})
		).json().nonce;
		const created = await t.app.inject({
			method: "POST",
			url: "/api/collections/credentials/records",
			headers: h.person.headers,
			payload: {
				token,
				identityId: h.identity.id,
				challengeNonce: nonce2,
				challengeSignature: await h.key.sign(nonce2),
			},
		});
		assert.equal(created.statusCode, 200, created.body);
		assert.equal(created.json().id, kept.json().id);
		assert.equal(created.json().issuer, "localhost");
		const removed = await t.app.inject({
			method: "DELETE",
			url: `/api/collections/credentials/records/${kept.json().id}`,
			headers: h.person.headers,
		});
		assert.equal(removed.statusCode, 204, removed.body);
		const after = await t.app.inject({
			method: "GET",
			url: "/api/collections/credentials/records",
			headers: h.person.headers,
		});
		assert.equal(after.json().totalItems, 0);
	});

	test("the console's relays on this server: the challenge is this server's own (unknown offer 404, no session 401); a service's redirect is passed on only on its own origin", async () => {
		const h = await holder("Relayed");
		const made = await offer();
		const token = String(made.headers["x-attestation-token"]);
		const relay = (tok: string, headers: Record<string, string> = h.person.headers) =>
			t.app.inject({
				method: "GET",
				url: `/api/credentials/offer/challenge?token=${tok}&identityId=${h.identity.id}`,
				headers,
				remoteAddress: nextIp(),
			});
		const unknown = await relay("x".repeat(43));
		assert.deepEqual([unknown.statusCode, unknown.json().code], [404, "not_found"], unknown.body);
		assert.equal((await relay(token, {})).statusCode, 401);
		const challenge = await relay(token);
		assert.equal(challenge.statusCode, 200, challenge.body);
		const nonce = challenge.json().nonce as string;
		const kept = await keepCredential(h, token, nonce);
		assert.equal(kept.statusCode, 200, kept.body);
		const { id, credential } = kept.json() as { id: string; credential: string };

		// The service that asked (a loopback one: DOMAIN=localhost allows it) names where to go next.
		let redirect = "";
		const posted: unknown[] = [];
		const service = http.createServer((req, res) => {
			let body = "";
			req.on("data", (c) => {
				body += c;
			});
			req.on("end", () => {
				posted.push(JSON.parse(body));
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ redirect_uri: redirect }));
			});
		});
		await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
		const serviceOrigin = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
		try {
			const present = () =>
				t.app.inject({
					method: "POST",
					url: `/api/credentials/${id}/present`,
					headers: h.person.headers,
					remoteAddress: nextIp(),
					payload: {
						clientId: serviceOrigin,
						responseUri: `${serviceOrigin}/presented`,
						presentation: credential,
						state: "s-1",
					},
				});
			redirect = "https://evil.example/next";
			const elsewhere = await present();
			assert.equal(elsewhere.statusCode, 200, elsewhere.body);
			assert.deepEqual(
				elsewhere.json(),
				{ status: 200, redirectUri: null },
				"a redirect off the service's origin is dropped",
			);
			redirect = `${serviceOrigin}/done?x=1`;
			const own = await present();
			assert.deepEqual(own.json(), { status: 200, redirectUri: `${serviceOrigin}/done?x=1` });
			assert.deepEqual(posted, [
				{ presentation: credential, state: "s-1" },
				{ presentation: credential, state: "s-1" },
			]);
		} finally {
			await new Promise<void>((resolve) => service.close(() => resolve()));
		}
	});

	test("a burst of 200 claims of one offer by two identities issues to one identity only", async () => {
		const made = await offer();
		const token = String(made.headers["x-attestation-token"]);
		const a = await holder("A");
		const b = await holder("B");
		const answers = await Promise.all(
			Array.from({ length: 200 }, (_, i) => claim(token, i % 2 === 0 ? a : b)),
		);
		const winners = new Set<string>();
		for (const res of answers) {
			if (res.statusCode === 200) {
				winners.add(
					((await readCredential(res.json().credential)).payload.svc_holder as { fingerprint: string })
						.fingerprint,
				);
			} else {
				assert.equal(res.statusCode, 410, res.body);
				assert.equal(res.json().code, "attestation_offer_claimed");
			}
		}
		assert.equal(winners.size, 1);
	});
});

describe("the status list", () => {
	test("the decoder reads the Token Status List draft's example (1 bit: eNrbuRgAAhcBXQ)", () => {
		const bits = Array.from({ length: 16 }, (_, i) => statusBit("eNrbuRgAAhcBXQ", i));
		assert.deepEqual(bits, [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]);
	});

	test("revoking, deleting, and deleting the workspace set the bit for good; others stay clear", async () => {
		const list0 = await statusList();
		assert.equal(list0.ttl, 300);
		assert.equal(list0.status_list.bits, 1);
		assert.ok(list0.exp > list0.iat);
		assert.equal(list0.sub, `${issuerOrigin}/api/attestations/status`);

		const issueOne = async (who = admin) => {
			const made = await offer({}, who);
			const res = await claim(String(made.headers["x-attestation-token"]), await holder());
			assert.equal(res.statusCode, 200, res.body);
			const { payload } = await readCredential(res.json().credential);
			return {
				id: made.json().id as string,
				idx: (payload.status as { status_list: { idx: number } }).status_list.idx,
			};
		};
		const kept = await issueOne();
		const revoked = await issueOne();
		const deleted = await issueOne();
		let list = await statusList();
		for (const c of [kept, revoked, deleted]) assert.equal(statusBit(list.status_list.lst, c.idx), 0);

		await t.app.inject({
			method: "PATCH",
			url: `${C}/${revoked.id}`,
			headers: admin.headers,
			payload: { status: "revoked" },
		});
		const del = await t.app.inject({ method: "DELETE", url: `${C}/${deleted.id}`, headers: admin.headers });
		assert.equal(del.statusCode, 204, del.body);
		list = await statusList();
		assert.equal(statusBit(list.status_list.lst, kept.idx), 0);
		assert.equal(statusBit(list.status_list.lst, revoked.idx), 1);
		assert.equal(statusBit(list.status_list.lst, deleted.idx), 1);

		// A workspace of its own, deleted with its attestations.
		const club = await buildAccount(t.app);
		const ws = await t.app.inject({
			method: "POST",
			url: "/api/collections/workspaces/records",
			headers: club.headers,
			payload: { name: "Club" },
		});
		assert.equal(ws.statusCode, 200, ws.body);
		const clubId = ws.json().id as string;
		const inClub = await issueOne({
			...club,
			workspaceId: clubId,
			headers: { ...club.headers, "x-workspace": clubId },
		});
		const gone = await t.app.inject({
			method: "DELETE",
			url: `/api/collections/workspaces/records/${clubId}`,
			headers: club.headers,
		});
		assert.equal(gone.statusCode, 204, gone.body);
		list = await statusList();
		assert.equal(statusBit(list.status_list.lst, inClub.idx), 1);
		assert.equal(statusBit(list.status_list.lst, kept.idx), 0);
	});

	test("one signed list is handed out until a position is added, a bit is set or five minutes pass", async () => {
		const real = t.app.clock.now;
		const at = real();
		t.app.clock.now = () => at;
		try {
			const get = async () => {
				const res = await t.app.inject({
					method: "GET",
					url: "/api/attestations/status",
					remoteAddress: nextIp(),
				});
				assert.equal(res.statusCode, 200, res.body);
				return res.body;
			};
			const first = await get();
			assert.equal(await get(), first, "nothing changed: the same list, not signed again");

			const made = await offer({});
			const res = await claim(String(made.headers["x-attestation-token"]), await holder());
			assert.equal(res.statusCode, 200, res.body);
			const { idx } = (
				(await readCredential(res.json().credential)).payload.status as {
					status_list: { idx: number };
				}
			).status_list;
			const added = await get();
			assert.notEqual(added, first, "a position was added");
			assert.equal(await get(), added);

			const revoke = await t.app.inject({
				method: "PATCH",
				url: `${C}/${made.json().id}`,
				headers: admin.headers,
				payload: { status: "revoked" },
			});
			assert.equal(revoke.statusCode, 200, revoke.body);
			const set = await get();
			assert.notEqual(set, added, "a bit was set");
			assert.equal(statusBit((await statusList()).status_list.lst, idx), 1);

			// Five minutes on: the same bits, signed again with a later iat.
			t.app.clock.now = () => at + 300_000;
			const later = await statusList();
			assert.equal(later.iat, Math.floor((at + 300_000) / 1000));
			assert.equal(statusBit(later.status_list.lst, idx), 1);
		} finally {
			t.app.clock.now = real;
		}
	});

	test("deleting the issuer's account revokes what it issued in a workspace it leaves behind", async () => {
		const owner = await buildAccount(t.app);
		const ws = await t.app.inject({
			method: "POST",
			url: "/api/collections/workspaces/records",
			headers: owner.headers,
			payload: { name: "Registry" },
		});
		const wsId = ws.json().id as string;
		const issuer = await buildAccount(t.app);
		await addMember(t.app, wsId, issuer.accountId, "admin");
		const made = await offer(
			{},
			{ ...issuer, workspaceId: wsId, headers: { ...issuer.headers, "x-workspace": wsId } },
		);
		assert.equal(made.statusCode, 200, made.body);
		const res = await claim(String(made.headers["x-attestation-token"]), await holder());
		const idx = (
			(await readCredential(res.json().credential)).payload.status as { status_list: { idx: number } }
		).status_list.idx;
		assert.equal(statusBit((await statusList()).status_list.lst, idx), 0);
		await deleteAccount(
			{ db: t.app.store.db, blobs: t.app.blobs, hooks: t.app.workspaceHooks },
			issuer.accountId,
			t.app.clock.now(),
		);
		assert.equal(statusBit((await statusList()).status_list.lst, idx), 1);
		const record = await t.app.inject({
			method: "GET",
			url: `${C}/${made.json().id}`,
			headers: { ...owner.headers, "x-workspace": wsId },
		});
		assert.equal(record.json().status, "revoked");
	});

	test("positions spread over a list at least twice as long as the attestations", async () => {
		const positions = (await t.app.store.db.selectFrom("status_entries").select("position").execute()).map(
			(r) => r.position,
		);
		const list = await statusList();
		const size = zlib.inflateSync(Buffer.from(list.status_list.lst, "base64url")).length * 8;
		assert.ok(size >= 2 * positions.length);
		assert.equal(new Set(positions).size, positions.length);
		// Not handed out in order: the positions span far more than their count.
		const spread = Math.max(...positions) - Math.min(...positions);
		assert.ok(spread > positions.length * 10, `spread ${spread} over ${positions.length} positions`);
	});
});
