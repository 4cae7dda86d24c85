import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createIdentity } from "../../src/features/identity/service.ts";
import { account, assertProblem, rejectsWith } from "../apikeys/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

describe("identity certificates", () => {
	let t: TestApp;
	let owner: { accountId: string; workspaceId: string };
	let ca: crypto.X509Certificate;
	let rootPublic: crypto.KeyObject;

	before(async () => {
		t = await makeApp({ domain: "svc.example" });
		owner = await account(t.app.store.db, Date.now());
		const served = (await t.app.inject({ method: "GET", url: "/api/certificate" })).json();
		ca = new crypto.X509Certificate(served.certificate);
		rootPublic = crypto.createPublicKey(served.publicKey);
	});
	after(() => t.close());

	const create = (name: string, publicKey: unknown) =>
		createIdentity(t.app.store.db, t.app.rootKey, t.app.config, { ...owner, name, publicKey }, Date.now());

	test("a WebCrypto device key is certified by the CA for ten years", async () => {
		const device = await deviceKey();
		const before = Date.now();
		const identity = await create("Ann's laptop", device.publicJwk);
		const issued = Date.now();
		assert.equal(identity.fingerprint, device.fingerprint);
		assert.equal(identity.status, "active");
		assert.equal(identity.domainAtIssue, "svc.example");

		const cert = new crypto.X509Certificate(identity.certificate);
		assert.equal(cert.verify(ca.publicKey), true, "signed by the CA");
		assert.equal(cert.checkIssued(ca), true, "issuer and key identifiers chain to the CA");
		assert.equal(cert.ca, false);
		assert.equal(cert.subject, "CN=Ann's laptop");
		assert.equal(cert.issuer, ca.subject);
		const from = Date.parse(cert.validFrom);
		const to = Date.parse(cert.validTo);
		// Valid from the second it was issued (X.509 times are whole seconds), however long that took.
		assert.ok(from >= Math.floor(before / 1000) * 1000 && from <= issued, cert.validFrom);
		assert.ok(to - from >= 10 * YEAR_MS && to - from <= 10 * YEAR_MS + 3 * 24 * 3600_000, cert.validTo);
		const certKey = cert.publicKey.export({ type: "spki", format: "der" });
		const deviceKeyDer = crypto
			.createPublicKey({ key: device.publicJwk as crypto.JsonWebKey, format: "jwk" })
			.export({
				type: "spki",
				format: "der",
			});
		assert.deepEqual(certKey, deviceKeyDer, "the certificate carries the device's key");
		assert.equal(crypto.createHash("sha256").update(certKey).digest("hex"), identity.fingerprint);
	});

	test("the parent signature is the root key's over the fingerprint", async () => {
		const identity = await create("phone", (await deviceKey()).publicJwk);
		const ok = crypto.verify(
			"sha256",
			Buffer.from(identity.fingerprint, "utf8"),
			rootPublic,
			Buffer.from(identity.parentSignature, "hex"),
		);
		assert.equal(ok, true);
		const other = (await deviceKey()).fingerprint;
		assert.equal(
			crypto.verify("sha256", Buffer.from(other), rootPublic, Buffer.from(identity.parentSignature, "hex")),
			false,
		);
	});

	test("GET /api/certificate/{id} serves the public material; unknown ids are 404", async () => {
		const identity = await create("tablet", (await deviceKey()).publicJwk);
		const res = await t.app.inject({ method: "GET", url: `/api/certificate/${identity.id}` });
		assert.equal(res.statusCode, 200);
		assert.deepEqual(res.json(), {
			id: identity.id,
			name: "tablet",
			certificate: identity.certificate,
			fingerprint: identity.fingerprint,
			parentSignature: identity.parentSignature,
			domainAtIssue: "svc.example",
		});
		assertProblem(
			await t.app.inject({ method: "GET", url: "/api/certificate/nosuchidentity00000" }),
			404,
			"not_found",
		);
		assertProblem(
			await t.app.inject({ method: "GET", url: `/api/certificate/${"x".repeat(65)}` }),
			400,
			"validation_failed",
		);
	});

	test("a name with commas, quotes and a leading # stays intact in the certificate", async () => {
		const name = 'Ann, "the" #1 + co';
		const identity = await create(name, (await deviceKey()).publicJwk);
		const cert = new crypto.X509Certificate(identity.certificate);
		assert.deepEqual({ ...cert.toLegacyObject().subject }, { CN: name });
		assert.equal(identity.name, name);
	});

	test("SPKI PEM and base64 SPKI are accepted as well as JWK", async () => {
		const pem = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey;
		const viaPem = await create("pem", pem.export({ type: "spki", format: "pem" }));
		assert.equal(
			viaPem.fingerprint,
			crypto
				.createHash("sha256")
				.update(pem.export({ type: "spki", format: "der" }))
				.digest("hex"),
		);
		const b64 = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey;
		const viaB64 = await create("b64", b64.export({ type: "spki", format: "der" }).toString("base64"));
		assert.match(viaB64.fingerprint, /^[0-9a-f]{64}$/);
	});

	test("private keys, other curves and other key types are refused with validation_failed", async () => {
		const pair = (await crypto.webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
			"sign",
			"verify",
		])) as crypto.webcrypto.CryptoKeyPair;
		const privateJwk = await crypto.webcrypto.subtle.exportKey("jwk", pair.privateKey);
		const p384 = crypto.generateKeyPairSync("ec", { namedCurve: "P-384" });
		const rsa = crypto.generateKeyPairSync("rsa", { modulusLength: 1024 });
		const ed = crypto.generateKeyPairSync("ed25519");
		const bad: [string, unknown][] = [
			["a private JWK (with d)", privateJwk],
			["a private PEM", p384.privateKey.export({ type: "pkcs8", format: "pem" })],
			["a P-384 JWK", p384.publicKey.export({ format: "jwk" })],
			["a P-384 PEM", p384.publicKey.export({ type: "spki", format: "pem" })],
			["an RSA key", rsa.publicKey.export({ type: "spki", format: "pem" })],
			["an Ed25519 key", ed.publicKey.export({ format: "jwk" })],
			["an EC JWK without y", { kty: "EC", crv: "P-256", x: "abc" }],
			["a point off the curve", { kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA" }],
			["garbage text", "not a key"],
			["a number", 42],
			["an array", []],
			["null", null],
		];
		for (const [what, publicKey] of bad) {
			const err = await rejectsWith(create("x", publicKey), "validation_failed");
			assert.equal(err.extra?.field, "body.publicKey", what);
		}
		const count = await t.app.store.db
			.selectFrom("identities")
			.select("id")
			.where("name", "=", "x")
			.execute();
		assert.equal(count.length, 0);
	});

	test("a blank or multi-line name is refused", async () => {
		const jwk = (await deviceKey()).publicJwk;
		await rejectsWith(create("   ", jwk), "validation_failed");
		await rejectsWith(create("a\nb", jwk), "validation_failed");
		await rejectsWith(create("x".repeat(201), jwk), "validation_failed");
	});

	test("the same key cannot be certified twice", async () => {
		const jwk = (await deviceKey()).publicJwk;
		await create("first", jwk);
		await rejectsWith(create("second", jwk), "conflict");
	});
});
