// Two servers of different domains, as for grants between servers: the requester's (req.test) and
// the responder's (resp.test), each a server process on its own database, reaching the other
// through PEER_OVERRIDES with their `_svc` TXT records served by a DNS server on loopback. Unlike
// two-nodes.ts (two nodes of one server), nothing is shared but the network. What req.test sends
// resp.test goes through a relay on loopback that records each exchange, so a test can see what
// went over the wire (the etag a bulk read sent, the `notModified` it got back). Call at the top
// of a file or inside a `describe`: the servers start in its `before` and stop in its `after`.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { createIdentity } from "../../src/features/identity/service.ts";
import { loadRootKey } from "../../src/features/server/root-key.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { type TestEnv, testEnv } from "./app.ts";
import { deviceKey } from "./device-key.ts";
import { startDns, type TestDns } from "./dns.ts";
import { type ServerProcess, startServer } from "./process.ts";
import { deadPort, type Receiver, startReceiver } from "./receiver.ts";

export const REQ = "req.test";
export const RESP = "resp.test";

export interface Side {
	domain: string;
	env: TestEnv;
	store: Store;
	proc: ServerProcess;
	url: string;
	/** The owner's session, as JSON requests send it. */
	headers: Record<string, string>;
	accountId: string;
	workspaceId: string;
}

/** One request req.test made to resp.test, and what resp.test answered (status 0: nothing). */
export interface Exchange {
	method: string;
	path: string;
	body: string;
	status: number;
	answer: string;
}

export interface TwoServers {
	dns: TestDns;
	req: Side;
	resp: Side;
	/** Every request req.test made to resp.test, in order. */
	reqToResp: Exchange[];
}

async function startSide(domain: string, port: number, env: Record<string, string>): Promise<Side> {
	const test = testEnv();
	const proc = await startServer({
		DATABASE_URL: test.config.databaseUrl,
		DATABASE_SCHEMA: test.config.databaseSchema,
		DATA_DIR: test.config.dataDir,
		DOMAIN: domain,
		PORT: String(port),
		REDIS_URL: "",
		ALLOW_PRIVATE_CALLBACKS: "true",
		...env,
	});
	const store = await openStore(test.config);
	const now = Date.now();
	const { accountId, workspaceId } = await createAccount(
		store.db,
		{ email: `owner@${domain}`, name: domain },
		now,
	);
	const { token } = await createSession(store.db, accountId, now);
	return {
		domain,
		env: test,
		store,
		proc,
		url: proc.url,
		headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
		accountId,
		workspaceId,
	};
}

/** Passes each request on to `target()` as it is and records the exchange; a target that cannot be reached drops the connection. */
function relayTo(target: () => string, log: Exchange[]): Receiver["respond"] {
	return (got, res) => {
		const exchange: Exchange = { method: got.method, path: got.path, body: got.body, status: 0, answer: "" };
		log.push(exchange);
		const headers: Record<string, string> = {};
		for (const name of ["content-type", "accept"]) {
			const value = got.headers[name];
			if (typeof value === "string") headers[name] = value;
		}
		const hasBody = got.method !== "GET" && got.method !== "HEAD";
		fetch(`${target()}${got.path}`, { method: got.method, headers, ...(hasBody ? { body: got.body } : {}) })
			.then(async (answer) => {
				exchange.status = answer.status;
				exchange.answer = await answer.text();
				const type = answer.headers.get("content-type");
				res.writeHead(answer.status, type ? { "content-type": type } : {}).end(exchange.answer);
			})
			.catch(() => res.destroy());
	};
}

/** Starts both servers and the DNS server (and the relay between them) before the tests, stops them after. */
export function useTwoServers(env: Record<string, string> = {}): TwoServers {
	const servers = { reqToResp: [] as Exchange[] } as TwoServers;
	let relay: Receiver | undefined;
	before(async () => {
		servers.dns = await startDns();
		relay = await startReceiver();
		relay.respond = relayTo(() => servers.resp.url, servers.reqToResp);
		const [reqPort, respPort] = [await deadPort(), await deadPort()];
		const at = (port: number) => `http://127.0.0.1:${port}`;
		const common = { DNS_SERVERS: servers.dns.server, ...env };
		[servers.req, servers.resp] = await Promise.all([
			startSide(REQ, reqPort, { ...common, PEER_OVERRIDES: `${REQ}=${at(reqPort)},${RESP}=${relay.url}` }),
			startSide(RESP, respPort, {
				...common,
				PEER_OVERRIDES: `${REQ}=${at(reqPort)},${RESP}=${at(respPort)}`,
			}),
		]);
		for (const side of [servers.req, servers.resp]) {
			const claim = (await call(side, "GET", "/api/server", undefined, false)).json();
			servers.dns.txt.set(claim.txt.host, [claim.fingerprint]);
		}
	});
	after(async () => {
		for (const side of [servers.req, servers.resp]) {
			await side?.proc.stop();
			await side?.store.destroy();
			await side?.env.dispose();
		}
		await relay?.close();
		await servers.dns?.close();
	});
	return servers;
}

/** A request to one side, as its owner (`auth`) or as nobody. */
export async function call(side: Side, method: string, path: string, body?: unknown, auth = true) {
	const res = await fetch(`${side.url}${path}`, {
		method,
		headers: auth ? side.headers : { "content-type": "application/json" },
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
	const text = await res.text();
	return { status: res.status, body: text, json: () => JSON.parse(text) };
}

export function expectCode(res: { status: number; body: string }, status: number, code: string) {
	assert.equal(res.status, status, res.body);
	assert.equal(JSON.parse(res.body).code, code, res.body);
}

/** A request on `side` (by default the tenant application: a required name, an optional email). */
export async function buildRequest(side: Side, body: Record<string, unknown> = {}) {
	const res = await call(side, "POST", "/api/collections/requests/records", {
		label: "Tenant application",
		items: [
			{ key: "name", label: "Full name", type: "text", required: true },
			{ key: "email", label: "Email", type: "email", required: false },
		],
		...body,
	});
	assert.equal(res.status, 200, res.body);
	return res.json() as { id: string; slug: string };
}

/** An identity of `side`'s owner, certified by that side's root key, with the device that holds its key. */
export async function buildIdentity(side: Side, name = "Tess") {
	const device = await deviceKey();
	const root = await loadRootKey(side.store.db, side.domain, systemClock);
	const identity = await createIdentity(
		side.store.db,
		root,
		{ domain: side.domain },
		{ accountId: side.accountId, workspaceId: side.workspaceId, name, publicKey: device.publicJwk },
		Date.now(),
	);
	/** What a relaying server sends for it (`identity` of the remote-answer body). */
	const relayed = {
		fingerprint: identity.fingerprint,
		certificate: identity.certificate,
		parentSignature: identity.parentSignature,
	};
	return { device, identity, relayed };
}
