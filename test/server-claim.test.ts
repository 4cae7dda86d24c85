// The server claim and discovery. The signed assertion is checked as a verifier on another server
// checks it: independently (RSASSA-PKCS1-v1_5 SHA-256 over the payload string, per design.md), with
// the server's own reader of envelopes, and through the peer walk (DNS pin, served key, signed
// claim) against a real copy served on loopback, at exp-1, exp and exp+1 on a frozen clock.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../src/lib/clock.ts";
import { openEnvelope, type SignedEnvelope } from "../src/lib/crypto.ts";
import { resolvePeerKey } from "../src/lib/peer.ts";
import { makeApp, type TestApp } from "./helpers/app.ts";
import { startDns, type TestDns } from "./helpers/dns.ts";
import { type Receiver, startReceiver } from "./helpers/receiver.ts";

const DAY = 24 * 60 * 60;

interface Claim {
	domain: string;
	fingerprint: string;
	publicKey: string;
	assertion: SignedEnvelope;
}

/** The payload's JSON text. */
const payloadText = (envelope: SignedEnvelope) => Buffer.from(envelope.payload, "base64url").toString("utf8");

/** The check a verifier runs from the spec alone: PKCS#1 v1.5 SHA-256 over the payload's UTF-8 bytes. */
function verifies(claim: Claim, envelope: SignedEnvelope): boolean {
	const key = crypto.createPublicKey(claim.publicKey);
	return crypto.verify(
		"sha256",
		Buffer.from(envelope.payload, "utf8"),
		{ key, padding: crypto.constants.RSA_PKCS1_PADDING },
		Buffer.from(envelope.signature, "hex"),
	);
}

describe("server claim and discovery", () => {
	let t: TestApp;
	let dns: TestDns;
	let peer: Receiver;
	const clock = new ManualClock(Date.parse("2030-06-01T12:00:00.400Z"));
	before(async () => {
		t = await makeApp({ domain: "svc.example", maxFileSize: 5_000_000 }, { clock });
		dns = await startDns();
		peer = await startReceiver();
	});
	after(async () => {
		await t.close();
		await peer.close();
		await dns.close();
	});

	const getClaim = async (): Promise<Claim> => {
		const res = await t.app.inject({ method: "GET", url: "/api/server" });
		assert.equal(res.statusCode, 200, res.body);
		return res.json() as Claim;
	};

	/** Another server walking the pin to svc.example, which answers with `served` (at `now`). */
	const walk = (served: unknown, now: number) => {
		peer.respond = (_req, res) =>
			void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(served));
		return resolvePeerKey("svc.example", {
			dnsServers: [dns.server],
			peerOverrides: { "svc.example": peer.url },
			timeoutMs: 10_000,
			now,
		});
	};

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

	test("the assertion is the served key's signature over the claim, type first, valid 24 hours from now", async () => {
		const claim = await getClaim();
		assert.match(claim.assertion.signature, /^[0-9a-f]{512}$/, "hex, one 2048-bit RSA signature");
		assert.equal(verifies(claim, claim.assertion), true, "verifies with the served key");
		const json = payloadText(claim.assertion);
		assert.ok(json.startsWith('{"type":"server-claim-v1",'), json);
		const iat = Math.floor(clock.now() / 1000);
		assert.deepEqual(JSON.parse(json), {
			type: "server-claim-v1",
			domain: "svc.example",
			fingerprint: claim.fingerprint,
			origin: "https://svc.example",
			iat,
			exp: iat + DAY,
		});
		// The server's own reader of signed envelopes agrees.
		const key = crypto.createPublicKey(claim.publicKey);
		assert.deepEqual(openEnvelope(key, claim.assertion, "server-claim-v1"), JSON.parse(json));
		assert.equal(openEnvelope(key, claim.assertion, "identity-status-v1"), undefined, "not another type");
	});

	test("freshly signed: a second later it states the new time under a new signature", async () => {
		const first = await getClaim();
		assert.deepEqual((await getClaim()).assertion, first.assertion, "the same second, the same statement");
		clock.advance(1000);
		const later = await getClaim();
		assert.notEqual(later.assertion.signature, first.assertion.signature);
		assert.equal(verifies(later, later.assertion), true);
		const [a, b] = [JSON.parse(payloadText(first.assertion)), JSON.parse(payloadText(later.assertion))];
		assert.deepEqual([b.iat - a.iat, b.exp - a.exp, b.exp - b.iat], [1, 1, DAY]);
	});

	test("another server accepts it at exp-1 and refuses it at exp and exp+1", async () => {
		const claim = await getClaim();
		dns.txt.set("_svc.svc.example", [claim.fingerprint]);
		const { exp } = JSON.parse(payloadText(claim.assertion)) as { exp: number };
		const at = async (sec: number) => (await walk(claim, sec * 1000)).state;
		assert.equal(await at(Math.floor(clock.now() / 1000)), "verified", "at iat");
		assert.equal(await at(exp - 1), "verified", "at exp-1");
		assert.equal(await at(exp), "spoofed", "at exp");
		assert.equal(await at(exp + 1), "spoofed", "at exp+1");
	});

	test("a tampered assertion fails against the served key: any member changed, or the signature", async () => {
		const claim = await getClaim();
		dns.txt.set("_svc.svc.example", [claim.fingerprint]);
		const key = crypto.createPublicKey(claim.publicKey);
		const now = clock.now();
		// The genuine claim passes every check below, so each refusal is the tampering's.
		assert.equal(verifies(claim, claim.assertion), true);
		assert.equal((await walk(claim, now)).state, "verified");

		const body = JSON.parse(payloadText(claim.assertion)) as Record<string, unknown>;
		const changes: Record<string, unknown>[] = [
			{ domain: "evil.example" },
			{ fingerprint: "0".repeat(64) },
			{ origin: "https://evil.example" },
			{ exp: Number(body.exp) + 365 * DAY },
			{ iat: Number(body.iat) - 1 },
			{ type: "identity-status-v1" },
		];
		for (const change of changes) {
			const forged: SignedEnvelope = {
				payload: Buffer.from(JSON.stringify({ ...body, ...change }), "utf8").toString("base64url"),
				signature: claim.assertion.signature,
			};
			const what = JSON.stringify(change);
			assert.equal(verifies(claim, forged), false, what);
			assert.equal(openEnvelope(key, forged, "server-claim-v1"), undefined, what);
			assert.equal((await walk({ ...claim, assertion: forged }, now)).state, "spoofed", what);
		}

		const sig = claim.assertion.signature;
		const flipped = `${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`;
		const badSignature = { payload: claim.assertion.payload, signature: flipped };
		assert.equal(verifies(claim, badSignature), false);
		assert.equal((await walk({ ...claim, assertion: badSignature }, now)).state, "spoofed");

		// The true statement signed by another key does not pass for the served key's.
		const other = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
		const signedElsewhere = {
			payload: claim.assertion.payload,
			signature: crypto.sign("sha256", Buffer.from(claim.assertion.payload, "utf8"), other).toString("hex"),
		};
		assert.equal(verifies(claim, signedElsewhere), false);
		assert.equal((await walk({ ...claim, assertion: signedElsewhere }, now)).state, "spoofed");
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
