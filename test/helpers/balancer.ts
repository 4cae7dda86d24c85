// A real load balancer in front of test nodes: Debian's haproxy, on loopback, with the settings
// docs/operations.md gives an operator ("Running several nodes"): round robin, health checks on
// `GET /api/server`, the client's address in `X-Forwarded-For` (set, not appended), and a retry
// on another node only when the connection itself failed (a request never reached a node).
// Clients come from their own loopback addresses (127.x.y.z), so the balancer sees, and the
// nodes count rate limits for, distinct clients as it would in production.
import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Agent, fetch, type RequestInit, type Response } from "undici";

export interface Balancer {
	url: string;
	output(): string;
	stop(): Promise<void>;
}

/**
 * `clientHeader: "set"` (production, and the tests) writes the client's own address into
 * `X-Forwarded-For`; `"pass"` (benchmarks only) leaves the load generator's header alone, so one
 * generator can play many clients as it does against a node directly.
 */
export function haproxyConfig(
	port: number,
	nodes: { name: string; port: number }[],
	clientHeader: "set" | "pass" = "set",
): string {
	const forwarded =
		clientHeader === "set"
			? "	# The nodes trust this header (TRUST_PROXY=true): it carries the client's own address only.\n	http-request set-header X-Forwarded-For %[src]"
			: "	# Benchmark only: the load generator's own X-Forwarded-For passes through.";
	return `global
	maxconn 2000

defaults
	mode http
	timeout connect 2s
	timeout client 60s
	timeout server 60s
	# Another node only when the connection failed: a request a node received is never replayed.
	retries 3
	option redispatch
	retry-on conn-failure

frontend svc
	bind 127.0.0.1:${port}
${forwarded}
	default_backend nodes

backend nodes
	balance roundrobin
	option httpchk GET /api/server
	http-check expect status 200
	default-server inter 500ms fall 2 rise 2
	# Which node answered, for the operator's eye (and the tests').
	http-response set-header X-Svc-Node %s
${nodes.map((n) => `	server ${n.name} 127.0.0.1:${n.port} check`).join("\n")}
`;
}

async function freePort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

/** Starts haproxy in the foreground and resolves once every node is up behind it. */
export async function startBalancer(
	nodes: { name: string; port: number }[],
	clientHeader: "set" | "pass" = "set",
): Promise<Balancer> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-haproxy-"));
	const port = await freePort();
	const cfg = path.join(dir, "haproxy.cfg");
	fs.writeFileSync(cfg, haproxyConfig(port, nodes, clientHeader));
	const child: ChildProcess = spawn("haproxy", ["-db", "-f", cfg], { stdio: ["ignore", "pipe", "pipe"] });
	let out = "";
	child.stdout?.on("data", (d: Buffer) => {
		out += d.toString();
	});
	child.stderr?.on("data", (d: Buffer) => {
		out += d.toString();
	});
	const url = `http://127.0.0.1:${port}`;
	const balancer: Balancer = {
		url,
		output: () => out,
		stop: () =>
			new Promise<void>((done) => {
				if (child.exitCode !== null) return done();
				child.once("close", () => done());
				child.kill("SIGTERM");
			}).finally(() => fs.rmSync(dir, { recursive: true, force: true })),
	};
	// Up when every node has answered through it.
	const deadline = Date.now() + 20_000;
	for (;;) {
		if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${out}`);
		const seen = await answeringNodes(url, nodes.length * 3).catch(() => new Set<string>());
		if (seen.size === nodes.length) return balancer;
		if (Date.now() > deadline) {
			await balancer.stop();
			throw new Error(`haproxy did not bring up ${nodes.length} nodes in 20 s (saw ${[...seen]}):\n${out}`);
		}
		await new Promise((r) => setTimeout(r, 200));
	}
}

/** The nodes that answered `tries` requests through the balancer (its `X-Svc-Node`). */
export async function answeringNodes(url: string, tries: number): Promise<Set<string>> {
	const seen = new Set<string>();
	for (let i = 0; i < tries; i++) {
		const res = await fetch(`${url}/api/server`);
		await res.arrayBuffer();
		const node = res.headers.get("x-svc-node");
		if (res.status === 200 && node) seen.add(node);
	}
	return seen;
}

const agents = new Map<string, Agent>();

/** A loopback address of its own (127.a.b.c): a client the balancer and the nodes tell apart. */
export function newClientAddress(): string {
	const [a = 0, b = 0, c = 0] = crypto.randomBytes(3);
	return `127.${(a % 250) + 2}.${b}.${(c % 250) + 2}`;
}

/** fetch from `address` (a 127.x.y.z of this machine): one keep-alive pool per address. */
export function fetchFrom(address: string, url: string, init: RequestInit = {}): Promise<Response> {
	let agent = agents.get(address);
	if (!agent) {
		agent = new Agent({ localAddress: address });
		agents.set(address, agent);
	}
	return fetch(url, { ...init, dispatcher: agent });
}

export async function closeClients(): Promise<void> {
	await Promise.all([...agents.values()].map((a) => a.close()));
	agents.clear();
}
