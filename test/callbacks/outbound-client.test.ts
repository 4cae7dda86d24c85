// The safe outbound client on its own: the address policy for every range the spec names (and the
// reserved ones around them), each of its two layers alone (the DNS answers are judged before any
// connection; the connected socket's address is judged before a byte is sent), counted in TCP
// connections at the receiver; no redirects, the total bound and the body cap. Names resolve
// through a DNS server on loopback.
// Runs once, not per database: the outbound client's address policy, with no app or database.
import assert from "node:assert/strict";
import type { LookupAddress, LookupOptions } from "node:dns";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import {
	blockedAddress,
	checkOutboundUrl,
	createOutboundClient,
	OUTBOUND_TIMEOUT_MS,
	type OutboundClient,
} from "../../src/lib/outbound.ts";
import { fetchJson, PeerFetchError } from "../../src/lib/peer.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";

/** The `lookup` option of net.connect (what the client's connector passes). */
type LookupFn = (
	hostname: string,
	options: LookupOptions,
	callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

// [address, blocked by default, blocked with ALLOW_PRIVATE_CALLBACKS=true]
const ADDRESSES: [string, boolean, boolean][] = [
	["127.0.0.1", true, false],
	["127.8.9.10", true, false],
	["::1", true, false],
	["10.0.0.1", true, false],
	["172.16.5.4", true, false],
	["172.31.255.255", true, false],
	["192.168.1.1", true, false],
	["fc00::1", true, false],
	["fd12:3456::1", true, false],
	["169.254.169.254", true, true],
	["169.254.0.1", true, true],
	["fe80::1", true, true],
	["224.0.0.1", true, true],
	["239.255.255.250", true, true],
	["ff02::1", true, true],
	["0.0.0.0", true, true],
	["0.1.2.3", true, true],
	["::", true, true],
	["255.255.255.255", true, true],
	["100.64.0.1", true, true],
	["192.0.2.1", true, true],
	["198.51.100.7", true, true],
	["203.0.113.9", true, true],
	["198.18.0.1", true, true],
	["240.0.0.1", true, true],
	["2001:db8::1", true, true],
	["2001::1", true, true],
	["::127.0.0.1", true, true],
	// IPv6 forms carrying an IPv4 address are judged as that address.
	["::ffff:127.0.0.1", true, false],
	["::ffff:10.0.0.1", true, false],
	["::ffff:169.254.169.254", true, true],
	["64:ff9b::7f00:1", true, false],
	["64:ff9b::a9fe:a9fe", true, true],
	["2002:a9fe:a9fe::1", true, true],
	// Public addresses.
	["8.8.8.8", false, false],
	["172.32.0.1", false, false],
	["93.184.216.34", false, false],
	["2606:4700:4700::1111", false, false],
	["::ffff:8.8.8.8", false, false],
];

describe("the address policy", () => {
	for (const [ip, strict, open] of ADDRESSES) {
		test(`${ip}: ${strict ? "refused" : "allowed"}, with private callbacks ${open ? "refused" : "allowed"}`, () => {
			assert.equal(blockedAddress(ip, { allowPrivate: false }) !== undefined, strict);
			assert.equal(blockedAddress(ip, { allowPrivate: true }) !== undefined, open);
		});
	}

	test("URLs: absolute http(s) only, no credentials, no blocked literal or localhost name", () => {
		const policy = { allowPrivate: false };
		for (const url of [
			"/relative/path",
			"example.org/cb",
			"not a url",
			"ftp://example.org/cb",
			"javascript:alert(1)",
			"file:///etc/passwd",
			"http://user:secret@example.org/cb",
			"http://localhost:8080/cb",
			"http://app.localhost/cb",
			"http://[::1]/cb",
			"http://2130706433/cb",
			"http://0x7f.1/cb",
			"http://169.254.169.254/latest/meta-data/",
			"http://[::ffff:169.254.169.254]/",
		]) {
			assert.equal(checkOutboundUrl(url, policy).ok, false, url);
		}
		const ok = checkOutboundUrl("HTTPS://Example.ORG:8443/hook?x=1", policy);
		assert.ok(ok.ok);
		assert.equal(ok.ok && ok.url.href, "https://example.org:8443/hook?x=1");
		assert.ok(checkOutboundUrl("http://localhost:8080/cb", { allowPrivate: true }).ok);
	});
});

describe("the outbound client", () => {
	let dns: TestDns;
	let receiver: Receiver;
	let other: Receiver;
	let strict: OutboundClient;
	let open: OutboundClient;
	before(async () => {
		dns = await startDns();
		receiver = await startReceiver();
		other = await startReceiver();
		strict = createOutboundClient({ allowPrivate: false, dnsServers: [dns.server] });
		open = createOutboundClient({ allowPrivate: true, dnsServers: [dns.server] });
		dns.a.set("loop.test", ["127.0.0.1"]);
		dns.a.set("meta.test", ["169.254.169.254"]);
		dns.aaaa.set("mapped.test", ["::ffff:7f00:1"]);
		dns.a.set("mixed.test", ["93.184.216.34", "127.0.0.1"]);
	});
	after(async () => {
		await strict.close();
		await open.close();
		await receiver.close();
		await other.close();
		await dns.close();
	});
	const post = (client: OutboundClient, url: string) =>
		client.send({ method: "POST", url, headers: { "content-type": "application/json" }, body: "{}" });

	test("the bound defaults to the spec's 10 seconds", () => {
		assert.equal(OUTBOUND_TIMEOUT_MS, 10_000);
		assert.equal(strict.timeoutMs, 10_000);
	});

	test("a loopback literal is never contacted unless private callbacks are allowed", async () => {
		receiver.received.length = 0;
		const before = await receiver.tcp();
		const refused = await post(strict, `${receiver.url}/a`);
		assert.equal(refused.kind, "blocked");
		assert.equal((await receiver.tcp()).connections, before.connections, "no TCP connection was made");
		assert.equal(receiver.received.length, 0);
		const sent = await post(open, `${receiver.url}/a`);
		assert.equal(sent.kind === "response" && sent.status, 200);
		assert.equal(receiver.received.length, 1);
	});

	test("DNS layer: a name resolving to 127.0.0.1 is refused before any TCP connection, and reaches it when allowed", async () => {
		receiver.received.length = 0;
		const before = await receiver.tcp();
		const refused = await post(strict, `http://loop.test:${receiver.port}/b`);
		assert.equal(refused.kind, "blocked");
		assert.match(
			refused.kind === "blocked" ? refused.reason : "",
			/^loop\.test resolves to a blocked address: 127\.0\.0\.1 is a loopback address$/,
		);
		// Not one connection: the refusal came from the look-up, not from the socket check after it.
		assert.equal((await receiver.tcp()).connections, before.connections, "no TCP connection was made");
		assert.equal(receiver.received.length, 0);
		// The same name does reach the receiver when loopback is open: the refusal above was the policy.
		const sent = await post(open, `http://loop.test:${receiver.port}/b`);
		assert.equal(sent.kind === "response" && sent.status, 200);
		assert.equal(receiver.received[0]?.headers.host, `loop.test:${receiver.port}`);
	});

	test("connect layer: a socket that lands on a blocked address after the DNS answer passed is closed before a byte is sent", async (t) => {
		// The network, not the name, takes the connection to loopback (a NAT hairpin, a route, a
		// proxy in the path): simulated by handing net.connect 127.0.0.1 after the client's own
		// look-up (the DNS layer) approved the public answer.
		dns.a.set("public.test", ["93.184.216.34"]);
		const approved: string[] = [];
		const connect = net.connect;
		t.mock.method(net, "connect", (options: net.NetConnectOpts & { lookup?: LookupFn }) => {
			const lookup = options.lookup;
			if (!lookup || (options as net.TcpNetConnectOpts).host !== "public.test") return connect(options);
			const landed: LookupFn = (hostname, opts, callback) =>
				lookup(hostname, opts, (err, address, family) => {
					if (err) return callback(err, address, family);
					const first = Array.isArray(address) ? address[0]?.address : address;
					approved.push(first ?? "");
					if (Array.isArray(address)) callback(null, [{ address: "127.0.0.1", family: 4 }]);
					else callback(null, "127.0.0.1", 4);
				});
			return connect({ ...options, lookup: landed } as net.NetConnectOpts);
		});
		receiver.received.length = 0;
		const before = await receiver.tcp();
		const refused = await post(strict, `http://public.test:${receiver.port}/c`);
		assert.deepEqual(approved, ["93.184.216.34"], "the DNS layer saw the public answer and let it through");
		assert.equal(refused.kind, "blocked", JSON.stringify(refused));
		assert.equal(refused.kind === "blocked" && refused.reason, "127.0.0.1 is a loopback address");
		const after = await receiver.tcp();
		assert.equal(after.connections, before.connections + 1, "the socket did land on the receiver");
		assert.equal(after.bytesIn, before.bytesIn, "and was closed before a byte was sent");
		assert.equal(receiver.received.length, 0);
	});

	test("a name resolving to the metadata address is refused even with private callbacks allowed", async () => {
		const refused = await post(open, "http://meta.test/latest/meta-data/");
		assert.equal(refused.kind, "blocked");
		// Refused by the look-up (the reason names the name), so no connection to it was attempted.
		assert.match(
			refused.kind === "blocked" ? refused.reason : "",
			/^meta\.test resolves to a blocked address: 169\.254\.169\.254 is a link-local/,
		);
	});

	test("an IPv4-mapped AAAA answer and a mixed answer with one blocked address are refused", async () => {
		receiver.received.length = 0;
		const before = await receiver.tcp();
		const mapped = await post(strict, `http://mapped.test:${receiver.port}/`);
		assert.match(mapped.kind === "blocked" ? mapped.reason : "", /\(127\.0\.0\.1\) is a loopback address/);
		assert.equal((await post(strict, `http://mixed.test:${receiver.port}/`)).kind, "blocked");
		assert.equal((await receiver.tcp()).connections, before.connections, "no TCP connection was made");
		assert.equal(receiver.received.length, 0);
	});

	test("a name that does not resolve is unreachable, not blocked", async () => {
		const res = await post(open, "http://nowhere.test/");
		assert.equal(res.kind, "unreachable");
	});

	test("a redirect is not followed: the 302 is the answer and its target sees nothing", async () => {
		receiver.received.length = 0;
		other.received.length = 0;
		receiver.respond = (_req, res) => void res.writeHead(302, { location: `${other.url}/stolen` }).end();
		try {
			const res = await post(open, `${receiver.url}/hook`);
			assert.equal(res.kind === "response" && res.status, 302);
			assert.equal(receiver.received.length, 1);
			assert.equal(other.received.length, 0);
		} finally {
			receiver.respond = (_req, res) => void res.writeHead(200).end("ok");
		}
	});

	test("a slow-drip answer is cut at the total bound (injected: 600 ms), not kept alive by each byte", async () => {
		const quick = createOutboundClient({ allowPrivate: true, dnsServers: [], timeoutMs: 600 });
		const timers: NodeJS.Timeout[] = [];
		// A byte every 100 ms, so no idle timeout ever fires; after 30 s the answer completes, so a
		// client without a total bound gets a 200 (and fails below) instead of hanging the suite.
		receiver.respond = (_req, res) => {
			res.writeHead(200, { "content-type": "text/plain" });
			const drip = setInterval(() => res.write("."), 100);
			const done = setTimeout(() => {
				clearInterval(drip);
				res.end();
			}, 30_000);
			timers.push(drip, done);
		};
		try {
			const started = Date.now();
			const res = await post(quick, `${receiver.url}/slow`);
			const took = Date.now() - started;
			assert.deepEqual(res, {
				kind: "unreachable",
				reason: "no complete answer within 600 ms",
				timeout: true,
			});
			// Never before the bound (a lower bound holds however busy the machine is).
			assert.ok(took >= 550, `took ${took} ms`);
			// Headers that never come are cut the same way.
			receiver.respond = () => undefined;
			const silent = await post(quick, `${receiver.url}/silent`);
			assert.deepEqual(silent, {
				kind: "unreachable",
				reason: "no complete answer within 600 ms",
				timeout: true,
			});
		} finally {
			for (const t of timers) clearTimeout(t);
			receiver.respond = (_req, res) => void res.writeHead(200).end("ok");
			await quick.close();
		}
	});

	test("at most maxBodyBytes of an answer is read", async () => {
		const capped = createOutboundClient({ allowPrivate: true, dnsServers: [], maxBodyBytes: 1024 });
		receiver.respond = (_req, res) => void res.writeHead(200).end(Buffer.alloc(1024 * 1024, 120));
		try {
			const res = await post(capped, `${receiver.url}/big`);
			assert.equal(res.kind, "response");
			assert.ok(res.kind === "response" && res.truncated);
			assert.equal(res.kind === "response" && res.body.length, 1024);
		} finally {
			receiver.respond = (_req, res) => void res.writeHead(200).end("ok");
			await capped.close();
		}
	});

	test("peer fetches: a PEER_OVERRIDES base skips the check, any other loopback address is refused", async () => {
		receiver.respond = (_req, res) =>
			void res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
		try {
			receiver.received.length = 0;
			const opts = { dnsServers: [dns.server], timeoutMs: 10_000 };
			await assert.rejects(
				fetchJson(`${receiver.url}/api/server`, { ...opts, peerOverrides: {} }),
				(err: unknown) => err instanceof PeerFetchError && /loopback/.test(err.message),
			);
			await assert.rejects(
				fetchJson(`http://loop.test:${receiver.port}/api/server`, { ...opts, peerOverrides: {} }),
				PeerFetchError,
			);
			assert.equal(receiver.received.length, 0);
			const body = await fetchJson(`${receiver.url}/api/server`, {
				...opts,
				peerOverrides: { "peer.test": receiver.url },
			});
			assert.deepEqual(body, { ok: true });
		} finally {
			receiver.respond = (_req, res) => void res.writeHead(200).end("ok");
		}
	});
});
