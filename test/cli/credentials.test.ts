// The built `svc` as the holder's app for credentials, across two servers and a DNS server on
// loopback: attest.test (a server process) offers an attestation; a person of hold.test (this
// process), whose identity key `svc identity create` made on the device, accepts it with
// `svc open 'svc://a/attest.test/<token>'`; a service on loopback asks for it with
// `svc open 'svc://present?…'` and checks what it receives with POST /api/attestations/verify:
// verified and key-bound; claims left out show as withheld; declined, nothing is sent; once the
// attester revokes it, it presents as revoked. Malformed links and refusals are words, not codes.
//
// Runs once, not per database: the `svc` command line, a client of two servers over HTTP; offers, presentations and verification run on both databases in attestations/*.test.ts.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { makeApp, type TestApp, type TestEnv, testEnv } from "../helpers/app.ts";
import { freePort } from "../helpers/browser.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { ensureCliBuilt, type Svc, svc } from "../helpers/svc-cli.ts";

/** A service that asks for presentations: keeps what is posted to /presented, sends the person on. */
function startService() {
	const received: { presentation: string; state: string }[] = [];
	let redirect = (origin: string) => `${origin}/done`;
	const server = http.createServer((req, res) => {
		let body = "";
		req.on("data", (c: Buffer) => {
			body += c.toString();
		});
		req.on("end", () => {
			if (req.method === "POST" && req.url === "/presented") {
				received.push(JSON.parse(body));
				const { port } = server.address() as AddressInfo;
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ redirect_uri: redirect(`http://127.0.0.1:${port}`) }));
			} else res.writeHead(404).end();
		});
	});
	return {
		received,
		server,
		setRedirect(fn: (origin: string) => string) {
			redirect = fn;
		},
		origin: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
	};
}

describe("svc accepts an attestation offer and presents the credential", { timeout: 300_000 }, () => {
	let dns: TestDns;
	let attesterEnv: TestEnv;
	let attester: ServerProcess;
	let attesterStore: Store;
	let attesterToken: string;
	let attesterWorkspace: string;
	let t: TestApp;
	let holdOrigin: string;
	let person: TestAccount;
	let cli: Svc;
	let service: ReturnType<typeof startService>;
	let credentialId: string;
	let attestationId: string;

	before(async () => {
		ensureCliBuilt();
		dns = await startDns();
		const [attestPort, holdPort] = [await freePort(), await freePort()];
		holdOrigin = `http://127.0.0.1:${holdPort}`;
		attesterEnv = testEnv({ domain: "attest.test" });
		attester = await startServer({
			DOMAIN: "attest.test",
			PORT: String(attestPort),
			ALLOW_ATTESTATIONS: "true",
			DATA_DIR: attesterEnv.config.dataDir,
			DATABASE_URL: attesterEnv.config.databaseUrl,
			DATABASE_SCHEMA: attesterEnv.config.databaseSchema,
			DNS_SERVERS: dns.server,
			PEER_OVERRIDES: `hold.test=${holdOrigin}`,
			REDIS_URL: "",
		});
		attesterStore = await openStore(attesterEnv.config);
		const admin = await createAccount(
			attesterStore.db,
			{ email: "registry@attest.test", name: "Registry" },
			Date.now(),
		);
		attesterWorkspace = admin.workspaceId;
		attesterToken = (await createSession(attesterStore.db, admin.accountId, Date.now())).token;
		t = await makeApp({
			domain: "hold.test",
			port: holdPort,
			dnsServers: [dns.server],
			peerOverrides: { "attest.test": attester.url },
		});
		await t.app.listen({ port: holdPort, host: "127.0.0.1" });
		const attesterFingerprint = (
			(await (await fetch(`${attester.url}/api/server`)).json()) as { fingerprint: string }
		).fingerprint;
		dns.txt.set("_svc.attest.test", [attesterFingerprint]);
		dns.txt.set("_svc.hold.test", [t.app.rootKey.fingerprint]);

		// The person's device: signed in to hold.test (the session written as `svc login` keeps it),
		// with an identity whose key `svc identity create` makes on the device.
		person = await buildAccount(t.app, { name: "Ada" });
		cli = svc(fs.mkdtempSync(path.join(os.tmpdir(), "svc-cred-")), {
			SVC_PEER_OVERRIDES: `attest.test=${attester.url}`,
		});
		fs.writeFileSync(
			path.join(cli.configDir, "sessions.json"),
			JSON.stringify({
				current: holdOrigin,
				servers: {
					[holdOrigin]: {
						token: person.token,
						account: { id: person.accountId, email: person.email, name: "Ada" },
						signedInAt: new Date().toISOString(),
					},
				},
			}),
			{ mode: 0o600 },
		);
		await cli.json(["identity", "create", "--name", "Ada"]);

		service = startService();
		await new Promise<void>((resolve) => service.server.listen(0, "127.0.0.1", resolve));
	});
	after(async () => {
		service?.server.close();
		await t?.close();
		await attester?.stop();
		await attesterStore?.destroy();
		await attesterEnv?.dispose();
		await dns?.close();
	});

	async function offer(claims: Record<string, unknown>): Promise<{ id: string; token: string }> {
		const res = await fetch(`${attester.url}/api/collections/attestations/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${attesterToken}`, "content-type": "application/json" },
			body: JSON.stringify({ workspace: attesterWorkspace, type: "membership", label: "Chess club", claims }),
		});
		assert.equal(res.status, 200, await res.clone().text());
		return {
			id: ((await res.json()) as { id: string }).id,
			token: String(res.headers.get("x-attestation-token")),
		};
	}

	const presentLink = (params: Record<string, string>) =>
		`svc://present?${Object.entries({
			client_id: service.origin(),
			response_uri: `${service.origin()}/presented`,
			...params,
		})
			.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
			.join("&")}`;

	async function verify(presentation: string, nonce: string) {
		const res = await fetch(`${holdOrigin}/api/attestations/verify`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ presentation, audience: service.origin(), nonce }),
		});
		return (await res.json()) as {
			state: string;
			keyBound: boolean;
			withheld: number;
			claims: Record<string, unknown>;
			issuer: string;
		};
	}

	test("svc open svc://a/… shows the offer, accepts it with the device's identity, and keeps the credential", async () => {
		const made = await offer({ member: true, grade: 3, club: "Chess" });
		attestationId = made.id;
		const link = `svc://a/attest.test/${made.token}`;
		// Off a terminal without --yes nobody can be asked: nothing is accepted.
		const unasked = await cli.run(["open", link]);
		assert.equal(unasked.code, 2, unasked.stderr);
		assert.match(unasked.stderr, /attest\.test \(.+\) offers to attest: membership \(Chess club\)/);
		assert.match(unasked.stderr, /club: "Chess"/);
		assert.match(unasked.stderr, /pass --yes to accept it/);

		const accepted = await cli.json<{
			status: string;
			credential: { id: string; issuer: string; type: string };
		}>(["open", link, "--yes"]);
		assert.equal(accepted.status, "accepted");
		assert.equal(accepted.credential.issuer, "attest.test");
		assert.ok(!JSON.stringify(accepted).includes("~"), "the SD-JWT itself is not printed");
		credentialId = accepted.credential.id;
		const held = (await (
			await fetch(`${holdOrigin}/api/collections/credentials/records`, { headers: person.headers })
		).json()) as { items: { id: string; claims: Record<string, unknown> }[] };
		assert.deepEqual(
			held.items.map((c) => [c.id, c.claims]),
			[[credentialId, { member: true, grade: 3, club: "Chess" }]],
		);

		// The offer is spent: another acceptance by another identity is refused in words.
		await cli.json(["identity", "create", "--name", "Second"]);
		const again = await cli.run(["open", link, "--yes", "--identity", "Second"]);
		assert.notEqual(again.code, 0);
		assert.match(again.stderr, /accepted by another identity/i);
		assert.doesNotMatch(again.stderr, /^svc: attestation_offer_claimed$/m);
	});

	test("svc open svc://present?… presents it, bound to the service and its nonce: verified, key-bound", async () => {
		const nonce = "nonce-present-1";
		const out = await cli.json<{ status: string; disclosed: string[]; redirect: string }>([
			"open",
			presentLink({
				nonce,
				state: "st-1",
				type: "membership",
				issuers: "attest.test",
				claims: "member,club",
			}),
			"--yes",
			"--credential",
			credentialId,
			"--no-browser",
		]);
		assert.equal(out.status, "sent");
		assert.deepEqual(out.disclosed, ["member", "club"]);
		assert.equal(out.redirect, `${service.origin()}/done`);
		const got = service.received.at(-1);
		assert.ok(got);
		assert.equal(got.state, "st-1");
		const v = await verify(got.presentation, nonce);
		assert.equal(v.state, "verified", JSON.stringify(v));
		assert.equal(v.keyBound, true);
		assert.equal(v.issuer, "attest.test");
		assert.deepEqual(v.claims, { member: true, club: "Chess" });
		assert.equal(v.withheld, 1, "grade was not asked for, so it stays a digest");
		// Another service's audience or nonce does not verify it.
		assert.notEqual((await verify(got.presentation, "nonce-other-1")).state, "verified");
	});

	test("claims left unticked are withheld; a return address off the service's origin is not followed", async () => {
		service.setRedirect(() => "https://elsewhere.example/phish");
		const nonce = "nonce-present-2";
		const run = await cli.run([
			"open",
			presentLink({ nonce, claims: "member,club,grade" }),
			"--yes",
			"--withhold",
			"club,grade",
		]);
		service.setRedirect((origin) => `${origin}/done`);
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stderr, /Left out: club, grade/);
		assert.match(run.stderr, /outside http:\/\/127\.0\.0\.1:\d+; it is not followed/);
		assert.doesNotMatch(run.stdout, /elsewhere/);
		const got = service.received.at(-1);
		assert.ok(got);
		assert.equal(got.state, "", "a link without state posts an empty state");
		const v = await verify(got.presentation, nonce);
		assert.equal(v.state, "verified");
		assert.deepEqual(v.claims, { member: true });
		assert.equal(v.withheld, 2);
	});

	test("declined, nothing is sent; a malformed link is refused whole; nothing matching is said", async () => {
		const before = service.received.length;
		const declined = await cli.run(["open", presentLink({ nonce: "nonce-present-3" })], { input: "n\n" });
		// Off a terminal there is nobody to ask: refused, and nothing is sent.
		assert.equal(declined.code, 2);
		assert.equal(service.received.length, before);

		const malformed = await cli.run([
			"open",
			`svc://present?client_id=${encodeURIComponent(service.origin())}&response_uri=${encodeURIComponent("https://evil.example/x")}&nonce=nonce-present-4`,
			"--yes",
		]);
		assert.equal(malformed.code, 2);
		assert.match(malformed.stderr, /response_uri: must be on http:\/\/127\.0\.0\.1/);
		assert.equal(service.received.length, before);

		const none = await cli.run([
			"open",
			presentLink({ nonce: "nonce-present-5", type: "driving_licence" }),
			"--yes",
		]);
		assert.equal(none.code, 5);
		assert.match(none.stderr, /no held credential matches what the service asks for \(driving_licence/);
		assert.equal(service.received.length, before);
	});

	test("once the attester revokes it, the same presentation flow gives a revoked verdict", async () => {
		const revoked = await fetch(`${attester.url}/api/collections/attestations/records/${attestationId}`, {
			method: "PATCH",
			headers: { authorization: `Bearer ${attesterToken}`, "content-type": "application/json" },
			body: JSON.stringify({ status: "revoked" }),
		});
		assert.equal(revoked.status, 200);
		const nonce = "nonce-present-6";
		const run = await cli.run(["open", presentLink({ nonce, claims: "member" }), "--yes"]);
		assert.equal(run.code, 0, run.stderr);
		const got = service.received.at(-1);
		assert.ok(got);
		// hold.test keeps the status list it read for its ttl (five minutes); a verifier that has not
		// read it yet (the attester itself here) sees the revocation at once.
		const res = await fetch(`${attester.url}/api/attestations/verify`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ presentation: got.presentation, audience: service.origin(), nonce }),
		});
		const v = (await res.json()) as { state: string; keyBound: boolean };
		assert.equal(v.state, "revoked", JSON.stringify(v));
	});
});
