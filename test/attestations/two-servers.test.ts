// Attestations across two servers and a DNS server on loopback: an identity issued by hold.test (in
// this process) accepts an offer of attest.test (a second server process) through its own server's
// POST /api/credentials/claim; attest.test checks the identity with hold.test (DNS pin, certificate,
// standing), hold.test checks the credential with attest.test (DNS pin, certified credential key,
// binding) before keeping it, and reports its status as the attester revokes it. Verifying at
// hold.test: verified with audience and nonce; the attester's TXT record missing is dnsMissing,
// pointing at another key is spoofed.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { buildPresentation } from "../../src/lib/sd-jwt-present.ts";
import { makeApp, type TestApp, type TestEnv, testEnv } from "../helpers/app.ts";
import { freePort } from "../helpers/browser.ts";
import { type DeviceKey, deviceKey } from "../helpers/device-key.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { nextIp } from "../shares/helpers.ts";

describe("attestations between two servers", { timeout: 300_000 }, () => {
	let dns: TestDns;
	let attesterEnv: TestEnv;
	let attester: ServerProcess;
	let attesterStore: Store;
	let attesterToken: string;
	let attesterWorkspace: string;
	let attesterFingerprint: string;
	let attesterVars: Record<string, string>;
	let rogue: http.Server;
	let t: TestApp;
	let person: TestAccount;
	let key: DeviceKey;
	let identityId: string;

	const setTxt = (domain: string, values: string[] | undefined) => {
		if (values) dns.txt.set(`_svc.${domain}`, values);
		else dns.txt.delete(`_svc.${domain}`);
	};

	before(async () => {
		dns = await startDns();
		const [attestPort, holdPort] = [await freePort(), await freePort()];
		attesterEnv = testEnv({ domain: "attest.test" });
		attesterVars = {
			DOMAIN: "attest.test",
			PORT: String(attestPort),
			ALLOW_ATTESTATIONS: "true",
			DATA_DIR: attesterEnv.config.dataDir,
			DATABASE_URL: attesterEnv.config.databaseUrl,
			DATABASE_SCHEMA: attesterEnv.config.databaseSchema,
			DNS_SERVERS: dns.server,
			PEER_OVERRIDES: `hold.test=http://127.0.0.1:${holdPort}`,
			REDIS_URL: "",
		};
		attester = await startServer(attesterVars);
		attesterFingerprint = (
			(await (await fetch(`${attester.url}/api/server`)).json()) as { fingerprint: string }
		).fingerprint;
		attesterStore = await openStore(attesterEnv.config);
		const admin = await createAccount(
			attesterStore.db,
			{ email: "registry@attest.test", name: "Registry" },
			Date.now(),
		);
		attesterWorkspace = admin.workspaceId;
		attesterToken = (await createSession(attesterStore.db, admin.accountId, Date.now())).token;

		// rogue.test: a server that passes every request on to attest.test, so what it answers was
		// signed by attest.test, not by a key tied to rogue.test.
		rogue = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on("data", (c: Buffer) => chunks.push(c));
			req.on("end", async () => {
				const upstream = await fetch(`${attester.url}${req.url}`, {
					method: req.method,
					headers: { "content-type": String(req.headers["content-type"] ?? "application/json") },
					...(req.method === "GET" ? {} : { body: Buffer.concat(chunks) }),
				});
				res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
			});
		});
		await new Promise<void>((resolve) => rogue.listen(0, "127.0.0.1", resolve));
		t = await makeApp({
			domain: "hold.test",
			port: holdPort,
			dnsServers: [dns.server],
			peerOverrides: {
				"attest.test": attester.url,
				"rogue.test": `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`,
			},
		});
		await t.app.listen({ port: holdPort, host: "127.0.0.1" });
		const holdFingerprint = t.app.rootKey.fingerprint;
		setTxt("attest.test", [attesterFingerprint]);
		setTxt("hold.test", [holdFingerprint]);

		person = await buildAccount(t.app, { name: "Ada" });
		key = await deviceKey();
		const made = await t.app.inject({
			method: "POST",
			url: "/api/collections/identities/records",
			headers: person.headers,
			payload: { name: "Ada", publicKey: key.publicJwk },
		});
		assert.equal(made.statusCode, 200, made.body);
		identityId = made.json().id;
	});
	after(async () => {
		await t?.close();
		await attester?.stop();
		await attesterStore?.destroy();
		await attesterEnv?.dispose();
		await dns?.close();
		rogue?.close();
	});

	async function offer(): Promise<{ id: string; token: string }> {
		const res = await fetch(`${attester.url}/api/collections/attestations/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${attesterToken}`, "content-type": "application/json" },
			body: JSON.stringify({
				workspace: attesterWorkspace,
				type: "membership",
				claims: { member: true, club: "Chess" },
			}),
		});
		assert.equal(res.status, 200, await res.clone().text());
		return {
			id: ((await res.json()) as { id: string }).id,
			token: String(res.headers.get("x-attestation-token")),
		};
	}

	async function claimAtHolder(token: string) {
		const challenge = await fetch(
			`${attester.url}/api/challenges/attestation/${token}?identityId=${identityId}`,
		);
		assert.equal(challenge.status, 200);
		const nonce = ((await challenge.json()) as { nonce: string }).nonce;
		return t.app.inject({
			method: "POST",
			url: "/api/credentials/claim",
			headers: person.headers,
			remoteAddress: nextIp(),
			payload: {
				origin: "http://attest.test",
				token,
				identityId,
				challengeNonce: nonce,
				challengeSignature: await key.sign(nonce),
			},
		});
	}

	const status = async (id: string) =>
		(
			await t.app.inject({
				method: "GET",
				url: `/api/credentials/${id}/status`,
				headers: person.headers,
				remoteAddress: nextIp(),
			})
		).json();

	test("an identity of hold.test accepts attest.test's offer; hold.test keeps it and reports its status", async () => {
		const { id, token } = await offer();
		const res = await claimAtHolder(token);
		assert.equal(res.statusCode, 200, `${res.body}\n${attester.output()}`);
		const kept = res.json();
		assert.equal(kept.issuer, "attest.test");
		assert.equal(kept.type, "membership");
		assert.equal(kept.identity, identityId);
		assert.deepEqual(kept.claims, { member: true, club: "Chess" });
		assert.match(kept.credential, /~$/);

		const listed = await t.app.inject({
			method: "GET",
			url: "/api/collections/credentials/records",
			headers: person.headers,
		});
		assert.equal(listed.json().totalItems, 1);

		let v = await status(kept.id);
		assert.equal(v.state, "unverified", "a held credential's status is never verified (no key binding)");
		assert.equal(v.issuerState, "verified");
		assert.equal(v.status, "valid");
		assert.equal(v.keyBound, false);
		assert.equal(v.holder.domain, "hold.test");

		// The attester's record names the subject it checked with hold.test.
		const record = (await (
			await fetch(`${attester.url}/api/collections/attestations/records/${id}`, {
				headers: { authorization: `Bearer ${attesterToken}` },
			})
		).json()) as { status: string; subjectDomain: string; subjectName: string };
		assert.deepEqual(
			[record.status, record.subjectDomain, record.subjectName],
			["active", "hold.test", "Ada"],
		);

		// Accepting again replaces the kept copy.
		const again = await claimAtHolder(token);
		assert.equal(again.statusCode, 200, again.body);
		assert.equal(again.json().id, kept.id);
		assert.equal(
			(
				await t.app.inject({
					method: "GET",
					url: "/api/collections/credentials/records",
					headers: person.headers,
				})
			).json().totalItems,
			1,
		);

		// A presentation verified at hold.test, checked along attest.test's chain.
		const nonce = "nonce-two-servers-1";
		const presentation = await buildPresentation(kept.credential, {
			claims: ["member"],
			audience: "https://shop.example",
			nonce,
			sign: (input) => key.sign(input),
			now: Date.now() / 1000,
		});
		const verified = (
			await t.app.inject({
				method: "POST",
				url: "/api/attestations/verify",
				payload: { presentation, audience: "https://shop.example", nonce },
				remoteAddress: nextIp(),
			})
		).json();
		assert.equal(verified.state, "verified", verified.reason);
		assert.deepEqual(verified.claims, { member: true });
		assert.equal(verified.withheld, 1);

		// The attester revokes: the status says so.
		await fetch(`${attester.url}/api/collections/attestations/records/${id}`, {
			method: "PATCH",
			headers: { authorization: `Bearer ${attesterToken}`, "content-type": "application/json" },
			body: JSON.stringify({ status: "revoked" }),
		});
		assert.equal((await status(kept.id)).status, "valid", "hold.test keeps the list it read for its ttl");
		const real = t.app.clock.now;
		t.app.clock.now = () => real() + 301_000;
		v = await status(kept.id).finally(() => Object.assign(t.app.clock, { now: real }));
		assert.equal(v.state, "revoked");
		assert.equal(v.status, "revoked");
	});

	test("the attester's TXT record missing is dnsMissing; pointing at another key is spoofed", async () => {
		const { token } = await offer();
		const res = await claimAtHolder(token);
		assert.equal(res.statusCode, 200, res.body);
		const credential = res.json().credential as string;
		const verify = async () =>
			(
				await t.app.inject({
					method: "POST",
					url: "/api/attestations/verify",
					payload: { presentation: credential },
					remoteAddress: nextIp(),
				})
			).json();
		try {
			setTxt("attest.test", undefined);
			let v = await verify();
			assert.equal(v.state, "dnsMissing");
			assert.equal(v.claims, undefined);
			setTxt("attest.test", ["0".repeat(64)]);
			v = await verify();
			assert.equal(v.state, "spoofed");
		} finally {
			setTxt("attest.test", [attesterFingerprint]);
		}
		const v = await verify();
		assert.equal(v.state, "unverified", "genuine; unverified only for the missing audience and nonce");
	});

	test("a credential not signed by a key of the server asked is credential_invalid, not kept, and the offer stays open", async () => {
		const { token } = await offer();
		const count = async () =>
			(
				await t.app.inject({
					method: "GET",
					url: "/api/collections/credentials/records",
					headers: person.headers,
				})
			).json().totalItems as number;
		const before = await count();
		const challenge = await fetch(
			`${attester.url}/api/challenges/attestation/${token}?identityId=${identityId}`,
		);
		const nonce = ((await challenge.json()) as { nonce: string }).nonce;
		const res = await t.app.inject({
			method: "POST",
			url: "/api/credentials/claim",
			headers: person.headers,
			remoteAddress: nextIp(),
			payload: {
				origin: "http://rogue.test",
				token,
				identityId,
				challengeNonce: nonce,
				challengeSignature: await key.sign(nonce),
			},
		});
		assert.equal(res.statusCode, 502, res.body);
		assert.equal(res.json().code, "credential_invalid");
		assert.match(res.json().detail, /not rogue\.test/);
		assert.equal(await count(), before, "nothing kept");
		// The same identity accepts the offer again from the server that made it.
		const again = await claimAtHolder(token);
		assert.equal(again.statusCode, 200, again.body);
		assert.equal(await count(), before + 1);
	});

	test("refusals: another server's refusal passes on with its code; plain http needs PEER_OVERRIDES", async () => {
		const res = await t.app.inject({
			method: "POST",
			url: "/api/credentials/claim",
			headers: person.headers,
			remoteAddress: nextIp(),
			payload: {
				origin: "http://attest.test",
				token: "x".repeat(43),
				identityId,
				challengeNonce: "n",
				challengeSignature: "s",
			},
		});
		assert.equal(res.statusCode, 404, res.body);
		const http = await t.app.inject({
			method: "POST",
			url: "/api/credentials/claim",
			headers: person.headers,
			remoteAddress: nextIp(),
			payload: {
				origin: "http://elsewhere.test",
				token: "x",
				identityId,
				challengeNonce: "n",
				challengeSignature: "s",
			},
		});
		assert.equal(http.statusCode, 400);
		assert.equal(http.json().field, "body.origin");
		const key = await t.app.inject({
			method: "GET",
			url: "/api/collections/credentials/records",
			headers: { "x-api-key": "svc_nope" },
		});
		assert.ok(key.statusCode === 401 || key.statusCode === 403);
	});

	test("the console's relays: the offer view and challenge from the offer's server with its refusals; a presentation posted only as the link allows", async () => {
		const get = (url: string, headers: Record<string, string> = person.headers) =>
			t.app.inject({ method: "GET", url, headers, remoteAddress: nextIp() });
		const { id, token } = await offer();
		// https://attest.test is reached where PEER_OVERRIDES says; the view is attest.test's own.
		const view = await get(
			`/api/credentials/offer?origin=${encodeURIComponent("https://attest.test")}&token=${token}`,
		);
		assert.equal(view.statusCode, 200, view.body);
		assert.deepEqual(
			[view.json().type, view.json().status, view.json().server.domain, view.json().claims],
			["membership", "offered", "attest.test", { member: true, club: "Chess" }],
		);
		const challenge = await get(
			`/api/credentials/offer/challenge?origin=${encodeURIComponent("https://attest.test")}&token=${token}&identityId=${identityId}`,
		);
		assert.equal(challenge.statusCode, 200, challenge.body);
		const nonce = challenge.json().nonce as string;
		const claimed = await t.app.inject({
			method: "POST",
			url: "/api/credentials/claim",
			headers: person.headers,
			remoteAddress: nextIp(),
			payload: {
				origin: "https://attest.test",
				token,
				identityId,
				challengeNonce: nonce,
				challengeSignature: await key.sign(nonce),
			},
		});
		assert.equal(claimed.statusCode, 200, "the relayed challenge is the offer server's own");
		const kept = claimed.json() as { id: string; credential: string };

		// Refusals pass on with their codes; a bad origin names the query's field; no session, 401.
		await fetch(`${attester.url}/api/collections/attestations/records/${id}`, {
			method: "PATCH",
			headers: { authorization: `Bearer ${attesterToken}`, "content-type": "application/json" },
			body: JSON.stringify({ status: "revoked" }),
		});
		const revoked = await get(`/api/credentials/offer?origin=https%3A%2F%2Fattest.test&token=${token}`);
		assert.deepEqual([revoked.statusCode, revoked.json().code], [410, "attestation_offer_revoked"]);
		const unknown = await get(
			`/api/credentials/offer?origin=https%3A%2F%2Fattest.test&token=${"x".repeat(43)}`,
		);
		assert.equal(unknown.statusCode, 404);
		const plain = await get(`/api/credentials/offer?origin=http%3A%2F%2Felsewhere.test&token=${token}`);
		assert.deepEqual([plain.statusCode, plain.json().field], [400, "querystring.origin"]);
		const nowhere = await get(`/api/credentials/offer?origin=https%3A%2F%2Fnowhere.test&token=${token}`);
		assert.deepEqual([nowhere.statusCode, nowhere.json().code], [502, "remote_unreachable"]);
		assert.equal((await get(`/api/credentials/offer?token=${token}`, {})).statusCode, 401);

		// Posting a presentation: only of the caller's own credential, to the service the link names.
		const presentation = await buildPresentation(kept.credential, {
			claims: ["member"],
			audience: "https://shop.example",
			nonce: "nonce-relay-1",
			sign: (input) => key.sign(input),
			now: Date.now() / 1000,
		});
		const present = (credential: string, body: Record<string, unknown>, headers = person.headers) =>
			t.app.inject({
				method: "POST",
				url: `/api/credentials/${credential}/present`,
				headers,
				remoteAddress: nextIp(),
				payload: {
					clientId: "https://shop.example",
					responseUri: "https://shop.example/presented",
					presentation,
					state: "",
					...body,
				},
			});
		for (const [body, field] of [
			[{ clientId: "https://shop.example/x" }, "body.clientId"],
			[{ clientId: "http://127.0.0.1:9", responseUri: "http://127.0.0.1:9/p" }, "body.clientId"],
			[{ responseUri: "https://evil.example/presented" }, "body.responseUri"],
			[{ state: "a b" }, "body.state"],
			[{ presentation: "eyJhbGciOiJFUzI1NiJ9.e30.sig~" }, "body.presentation"],
		] as const) {
			const res = await present(kept.id, body);
			assert.deepEqual([res.statusCode, res.json().field], [400, field], res.body);
		}
		const stranger = await buildAccount(t.app, { name: "Eve" });
		assert.equal((await present(kept.id, {}, stranger.headers)).statusCode, 404, "someone else's credential");
		// shop.example has no address here: the service cannot be reached, said as such.
		const unreachable = await present(kept.id, {});
		assert.deepEqual([unreachable.statusCode, unreachable.json().code], [502, "remote_unreachable"]);
	});

	// Last: it breaks the attester's key certification and restarts it.
	test("a credential key its root key did not certify is spoofed", async () => {
		const { token } = await offer();
		const res = await claimAtHolder(token);
		assert.equal(res.statusCode, 200, res.body);
		const credential = res.json().credential as string;
		// The attester's credential keys now carry a certification signed by another root key.
		const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
		const rows = await attesterStore.db
			.selectFrom("server_keys")
			.select(["name", "certificate_pem"])
			.where("name", "like", "credential:%")
			.execute();
		assert.ok(rows.length > 0);
		for (const row of rows) {
			const cert = JSON.parse(String(row.certificate_pem)) as { payload: string };
			const forged = {
				payload: cert.payload,
				signature: crypto.sign("sha256", Buffer.from(cert.payload), privateKey).toString("hex"),
			};
			await attesterStore.db
				.updateTable("server_keys")
				.set({ certificate_pem: JSON.stringify(forged) })
				.where("name", "=", row.name)
				.execute();
		}
		await attester.stop();
		attester = await startServer(attesterVars);
		const v = (
			await t.app.inject({
				method: "POST",
				url: "/api/attestations/verify",
				payload: { presentation: credential },
				remoteAddress: nextIp(),
			})
		).json();
		assert.equal(v.state, "spoofed");
		assert.match(v.reason, /certified/);
		assert.equal(v.claims, undefined);
	});
});
