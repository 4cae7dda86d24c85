import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { createApiKey } from "../../src/features/apikeys/service.ts";
import { createIdentity, type IdentityRecord, revokeIdentity } from "../../src/features/identity/service.ts";
import { fetchPeerStanding, verifyPeerIdentity } from "../../src/features/identity/trust.ts";
import { loadRootKey, type RootKey } from "../../src/features/server/root-key.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { type PeerOptions, resolvePeerKey } from "../../src/lib/peer.ts";
import { account, assertProblem } from "../apikeys/helpers.ts";
import { makeApp, type TestApp, type TestEnv, testEnv } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
	const server = http.createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

describe("the trust chain to another server: DNS pin, certificates and standing", () => {
	let dns: TestDns;
	let peerEnv: TestEnv;
	let peer: ServerProcess;
	let peerStore: Store;
	let peerRoot: RootKey;
	let peerFingerprint: string;
	let peerIdentity: IdentityRecord;
	let peerOwner: { accountId: string; workspaceId: string };
	let t: TestApp;
	let apiKey: string;
	let opts: PeerOptions;
	let proxy: http.Server;
	let proxyUrl: string;

	before(async () => {
		dns = await startDns();
		peerEnv = testEnv({ domain: "peer.test" });
		peer = await startServer({
			DOMAIN: "peer.test",
			DATA_DIR: peerEnv.config.dataDir,
			DATABASE_URL: peerEnv.config.databaseUrl,
			DATABASE_SCHEMA: peerEnv.config.databaseSchema,
			REDIS_URL: "",
		});
		peerFingerprint = ((await (await fetch(`${peer.url}/api/server`)).json()) as { fingerprint: string })
			.fingerprint;
		// The peer's own database handle, to issue and revoke its identities as its owner would.
		peerStore = await openStore(peerEnv.config);
		peerRoot = await loadRootKey(peerStore.db, "peer.test", systemClock);
		assert.equal(peerRoot.fingerprint, peerFingerprint);
		peerOwner = await account(peerStore.db, Date.now());
		peerIdentity = await createIdentity(
			peerStore.db,
			peerRoot,
			{ domain: "peer.test" },
			{ ...peerOwner, name: "Bea", publicKey: (await deviceKey()).publicJwk },
			Date.now(),
		);

		// A proxy in front of the peer that flips every standing it relays to "active".
		proxy = http.createServer(async (req, res) => {
			const upstream = await fetch(`${peer.url}${req.url}`);
			let body = await upstream.text();
			if (req.url?.endsWith("/status")) {
				const envelope = JSON.parse(body);
				const payload = JSON.parse(Buffer.from(envelope.payload, "base64url").toString());
				payload.status = "active";
				envelope.payload = Buffer.from(JSON.stringify(payload)).toString("base64url");
				body = JSON.stringify(envelope);
			}
			res.writeHead(upstream.status, { "content-type": "application/json" }).end(body);
		});
		await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
		proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

		const overrides = {
			"peer.test": peer.url,
			"alias.test": peer.url,
			"down.test": `http://127.0.0.1:${await deadPort()}`,
		};
		t = await makeApp({ domain: "svc.example", dnsServers: [dns.server], peerOverrides: overrides });
		opts = { dnsServers: [dns.server], peerOverrides: overrides, timeoutMs: 5000 };
		const me = await account(t.app.store.db, Date.now());
		apiKey = (
			await createApiKey(t.app.store.db, { ...me, name: "verifier", permissions: ["links:read"] }, Date.now())
		).plainToken;
	});
	after(async () => {
		await t?.close();
		await peer?.stop();
		await peerStore?.destroy();
		await peerEnv?.dispose();
		await dns?.close();
		proxy?.close();
	});

	const setTxt = (domain: string, values: string[] | undefined) => {
		if (values) dns.txt.set(`_svc.${domain}`, values);
		else dns.txt.delete(`_svc.${domain}`);
	};
	const verifyPeer = (body: unknown, headers: Record<string, string> = { "x-api-key": apiKey }) =>
		t.app.inject({ method: "POST", url: "/api/verify-peer", payload: body as object, headers });

	test("match, mismatch and missing TXT are three distinct results", async () => {
		setTxt("peer.test", [peerFingerprint]);
		const match = await resolvePeerKey("peer.test", opts);
		assert.equal(match.state, "verified");
		assert.equal(match.state === "verified" && match.fingerprint, peerFingerprint);

		setTxt("peer.test", [crypto.randomBytes(32).toString("hex")]);
		const mismatch = await resolvePeerKey("peer.test", opts);
		assert.equal(mismatch.state, "spoofed");
		assert.equal(mismatch.state === "spoofed" && mismatch.fingerprint, peerFingerprint);

		setTxt("peer.test", undefined);
		const missing = await resolvePeerKey("peer.test", opts);
		assert.equal(missing.state, "dnsMissing");
		setTxt("peer.test", [peerFingerprint]);
	});

	test("POST /api/verify-peer reports the same three verdicts", async () => {
		setTxt("peer.test", [peerFingerprint]);
		const ok = await verifyPeer({ domain: "peer.test" });
		assert.equal(ok.statusCode, 200, ok.body);
		const verdict = ok.json();
		assert.deepEqual(
			{ ...verdict, checkedAt: "" },
			{
				domain: "peer.test",
				state: "verified",
				fingerprint: peerFingerprint,
				checkedAt: "",
			},
		);
		assert.ok(Math.abs(Date.parse(verdict.checkedAt) - Date.now()) < 60_000);

		setTxt("peer.test", [crypto.randomBytes(32).toString("hex")]);
		assert.equal((await verifyPeer({ domain: "peer.test" })).json().state, "spoofed");
		setTxt("peer.test", undefined);
		assert.equal((await verifyPeer({ domain: "Peer.Test" })).json().state, "dnsMissing");
		setTxt("peer.test", [peerFingerprint]);
	});

	test("a TXT record split into strings, or one of several, still pins the key", async () => {
		setTxt("peer.test", [crypto.randomBytes(32).toString("hex"), peerFingerprint]);
		assert.equal((await resolvePeerKey("peer.test", opts)).state, "verified");
		setTxt("peer.test", [peerFingerprint]);
	});

	test("a server replaying another domain's key and claim is spoofed", async () => {
		setTxt("alias.test", [peerFingerprint]);
		const result = await resolvePeerKey("alias.test", opts);
		assert.equal(result.state, "spoofed");
	});

	test("a pinned server that does not answer is unreachable (verdict unverified)", async () => {
		setTxt("down.test", [peerFingerprint]);
		assert.equal((await resolvePeerKey("down.test", opts)).state, "unreachable");
		const res = await verifyPeer({ domain: "down.test" });
		assert.equal(res.json().state, "unverified");
		// Only that it could not be reached: not a refused port, a timeout or how the name resolved.
		assert.equal(res.json().reason, "the peer could not be reached");
		assert.equal(res.json().internal, undefined);
	});

	test("a peer identity's certificate checks out against the pinned root key", async () => {
		setTxt("peer.test", [peerFingerprint]);
		const cert = (await (await fetch(`${peer.url}/api/certificate/${peerIdentity.id}`)).json()) as {
			certificate: string;
			fingerprint: string;
			parentSignature: string;
			domainAtIssue: string;
		};
		assert.equal(cert.domainAtIssue, "peer.test");
		const checked = await verifyPeerIdentity("peer.test", cert, opts);
		assert.equal(checked.state, "verified");
		assert.equal(checked.state === "verified" && checked.name, "Bea");
		assert.equal(checked.state === "verified" && checked.fingerprint, peerIdentity.fingerprint);

		const otherFingerprint = (await deviceKey()).fingerprint;
		assert.equal(
			(await verifyPeerIdentity("peer.test", { ...cert, fingerprint: otherFingerprint }, opts)).state,
			"invalid",
		);
		// Signed by another root (ours), not the one the peer's DNS pins.
		const forged = {
			...cert,
			parentSignature: crypto
				.sign("sha256", Buffer.from(cert.fingerprint), t.app.rootKey.privateKey)
				.toString("hex"),
		};
		assert.equal((await verifyPeerIdentity("peer.test", forged, opts)).state, "spoofed");
		// An identity certified by this server presented as the peer's.
		const me = await account(t.app.store.db, Date.now());
		const ours = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ ...me, name: "x", publicKey: (await deviceKey()).publicJwk },
			Date.now(),
		);
		assert.equal((await verifyPeerIdentity("peer.test", ours, opts)).state, "spoofed");
		assert.equal(
			(await verifyPeerIdentity("peer.test", { ...cert, certificate: "garbage" }, opts)).state,
			"invalid",
		);
		setTxt("peer.test", undefined);
		assert.equal((await verifyPeerIdentity("peer.test", cert, opts)).state, "dnsMissing");
		setTxt("peer.test", [peerFingerprint]);
	});

	test("a peer identity's standing is the peer's signed word: active, then revoked; never issued is unknown", async () => {
		setTxt("peer.test", [peerFingerprint]);
		const identity = await createIdentity(
			peerStore.db,
			peerRoot,
			{ domain: "peer.test" },
			{ ...peerOwner, name: "Cy", publicKey: (await deviceKey()).publicJwk },
			Date.now(),
		);
		const active = await fetchPeerStanding("peer.test", identity.fingerprint, opts);
		assert.equal(active.state === "verified" && active.status, "active");
		const viaRoute = await verifyPeer({ domain: "peer.test", identity: identity.fingerprint });
		assert.equal(viaRoute.json().state, "verified");
		assert.deepEqual(viaRoute.json().identity, { fingerprint: identity.fingerprint, status: "active" });

		await revokeIdentity(peerStore.db, identity.workspace, identity.id, Date.now());
		const revoked = await fetchPeerStanding("peer.test", identity.fingerprint, opts);
		assert.equal(revoked.state === "verified" && revoked.status, "revoked");
		const revokedVerdict = (await verifyPeer({ domain: "peer.test", identity: identity.fingerprint })).json();
		assert.equal(revokedVerdict.state, "revoked");

		const never = (await deviceKey()).fingerprint;
		const unknown = await fetchPeerStanding("peer.test", never, opts);
		assert.equal(unknown.state === "verified" && unknown.status, "unknown");
		// `unknown` is not `revoked`: the verdict is unverified, not revoked.
		const unknownVerdict = (await verifyPeer({ domain: "peer.test", identity: never })).json();
		assert.equal(unknownVerdict.state, "unverified");
		assert.deepEqual(unknownVerdict.identity, { fingerprint: never, status: "unknown" });

		// A proxy that rewrites the revoked standing to active cannot forge the root key's signature.
		const proxied = await fetchPeerStanding("peer.test", identity.fingerprint, {
			...opts,
			peerOverrides: { "peer.test": proxyUrl },
		});
		assert.equal(proxied.state, "spoofed");
	});

	test("an old standing answer is refused after its exp", async () => {
		setTxt("peer.test", [peerFingerprint]);
		const later = await fetchPeerStanding("peer.test", peerIdentity.fingerprint, {
			...opts,
			now: Date.now() + 10 * 60_000,
		});
		assert.equal(later.state, "invalid");
	});

	test("verify-peer needs an account and a well-formed body", async () => {
		assertProblem(await verifyPeer({ domain: "peer.test" }, {}), 401, "not_authenticated");
		assertProblem(
			await verifyPeer({ domain: "peer.test" }, { "x-api-key": "svc_nope" }),
			401,
			"invalid_api_key",
		);
		for (const body of [{}, { domain: 5 }, { domain: "" }, { domain: "peer.test", extra: 1 }]) {
			assertProblem(await verifyPeer(body), 400, "validation_failed");
		}
		for (const domain of [
			"localhost",
			"http://peer.test",
			"peer.test:8080",
			"peer..test",
			"_svc.peer.test",
		]) {
			assertProblem(await verifyPeer({ domain }), 400, "validation_failed");
		}
		assertProblem(
			await verifyPeer({ domain: "peer.test", identity: "ABC" }),
			400,
			"identity_fingerprint_invalid",
		);
	});
});
