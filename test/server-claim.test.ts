import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "./helpers/app.ts";

describe("server claim and discovery", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp({ domain: "svc.example", maxFileSize: 5_000_000 });
	});
	after(() => t.close());

	test("GET /healthz answers text/plain ok", async () => {
		const res = await t.app.inject({ method: "GET", url: "/healthz" });
		assert.equal(res.statusCode, 200);
		assert.match(String(res.headers["content-type"]), /^text\/plain/);
		assert.equal(res.body, "ok");
	});

	test("the fingerprint is SHA-256 of the served key's SPKI DER and the TXT value", async () => {
		const res = await t.app.inject({ method: "GET", url: "/api/server" });
		assert.equal(res.statusCode, 200);
		const claim = res.json();
		const key = crypto.createPublicKey(claim.publicKey);
		assert.equal(key.asymmetricKeyType, "rsa");
		assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
		const der = key.export({ type: "spki", format: "der" });
		const expected = crypto.createHash("sha256").update(der).digest("hex");
		assert.equal(claim.fingerprint, expected);
		assert.match(claim.fingerprint, /^[0-9a-f]{64}$/);
		assert.deepEqual(claim.txt, { host: "_svc.svc.example", value: expected });
		assert.equal(claim.domain, "svc.example");
		assert.deepEqual(claim.limits, { maxFileSize: 5_000_000 });
	});

	test("the assertion verifies with the served key, starts with type and lasts 24 hours", async () => {
		const claim = (await t.app.inject({ method: "GET", url: "/api/server" })).json();
		const { payload, signature } = claim.assertion;
		const key = crypto.createPublicKey(claim.publicKey);
		const ok = crypto.verify("sha256", Buffer.from(payload, "utf8"), key, Buffer.from(signature, "hex"));
		assert.equal(ok, true);
		const json = Buffer.from(payload, "base64url").toString("utf8");
		assert.ok(json.startsWith('{"type":"server-claim-v1"'), json);
		const body = JSON.parse(json);
		assert.equal(body.domain, "svc.example");
		assert.equal(body.fingerprint, claim.fingerprint);
		assert.equal(body.origin, "https://svc.example");
		assert.equal(body.exp - body.iat, 24 * 60 * 60);
		assert.ok(Math.abs(body.iat - Date.now() / 1000) < 5);
	});

	test("a tampered assertion does not verify", async () => {
		const claim = (await t.app.inject({ method: "GET", url: "/api/server" })).json();
		const body = JSON.parse(Buffer.from(claim.assertion.payload, "base64url").toString());
		body.domain = "evil.example";
		const forged = Buffer.from(JSON.stringify(body)).toString("base64url");
		const key = crypto.createPublicKey(claim.publicKey);
		assert.equal(
			crypto.verify("sha256", Buffer.from(forged), key, Buffer.from(claim.assertion.signature, "hex")),
			false,
		);
	});

	test("GET /api/certificate serves the CA certificate of the root key, never the private half", async () => {
		const res = await t.app.inject({ method: "GET", url: "/api/certificate" });
		assert.equal(res.statusCode, 200);
		assert.doesNotMatch(res.body, /PRIVATE KEY/);
		const body = res.json();
		const cert = new crypto.X509Certificate(body.certificate);
		assert.equal(cert.ca, true);
		assert.equal(cert.verify(cert.publicKey), true, "self-signed");
		const claim = (await t.app.inject({ method: "GET", url: "/api/server" })).json();
		assert.equal(
			cert.publicKey.export({ type: "spki", format: "pem" }).toString(),
			crypto.createPublicKey(claim.publicKey).export({ type: "spki", format: "pem" }).toString(),
		);
		assert.equal(body.fingerprint, claim.fingerprint);
	});

	test("GET /api/permissions lists the catalogue with scopes", async () => {
		const res = await t.app.inject({ method: "GET", url: "/api/permissions" });
		assert.equal(res.statusCode, 200);
		const { permissions } = res.json();
		const byName = new Map(permissions.map((p: { name: string }) => [p.name, p]));
		assert.deepEqual((byName.get("vault:write") as { scopes: string[] }).scopes, ["record:*", "section:*"]);
		assert.deepEqual((byName.get("links:read") as { scopes: string[] }).scopes, ["link:read"]);
		assert.ok(byName.has("attestations:issue"));
		for (const p of permissions) {
			assert.equal(typeof p.label, "string");
			assert.ok(p.scopes.length > 0);
		}
	});

	test("responses carry the security headers and a request id", async () => {
		const res = await t.app.inject({ method: "GET", url: "/api/server" });
		assert.equal(res.headers["x-content-type-options"], "nosniff");
		assert.match(String(res.headers["content-security-policy"]), /default-src 'none'/);
		assert.ok(res.headers["x-request-id"]);
		assert.match(String(res.headers["strict-transport-security"]), /max-age/);
	});
});
