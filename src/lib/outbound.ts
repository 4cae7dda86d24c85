// The safe outbound HTTP client (spec "Callback delivery (outbound)", "Callback URL policy"): undici
// with the address policy applied where the connection is made, on the IP actually dialled, so a
// name that resolves to loopback or the metadata address is never contacted. No redirects are
// followed, one deadline covers look-up, connect, headers and body, and at most `maxBodyBytes` of
// the answer is read. Knows nothing of the app: the policy and resolvers are passed in.
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import type { Agent, buildConnector } from "undici";

/** The spec's total bound on one delivery. */
export const OUTBOUND_TIMEOUT_MS = 10_000;
export const OUTBOUND_MAX_BODY = 64 * 1024;
const DNS_TIMEOUT_MS = 3000;
/** Answers that mean "no such address", as opposed to a resolver failure. */
const MISSING = new Set<string>([dns.NODATA, dns.NOTFOUND]);

export interface AddressPolicy {
	/** ALLOW_PRIVATE_CALLBACKS: opens loopback and private ranges only. */
	allowPrivate: boolean;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");

const RANGE_WORDS: Record<string, string> = {
	unspecified: "an unspecified address",
	broadcast: "the broadcast address",
	multicast: "a multicast address",
	linkLocal: "a link-local address",
	loopback: "a loopback address",
	private: "a private address",
	uniqueLocal: "a private address",
	carrierGradeNat: "a shared (carrier-grade NAT) address",
};

/** The IPv4 address an IPv6 form carries (mapped, translated, NAT64, 6to4), to be judged as IPv4. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
	const range = v6.range();
	const p = v6.parts;
	const fromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
	if (range === "ipv4Mapped") return v6.toIPv4Address();
	if (range === "rfc6145" || (range === "rfc6052" && v6.match(NAT64)))
		return fromWords(p[6] as number, p[7] as number);
	if (range === "6to4") return fromWords(p[1] as number, p[2] as number);
	return undefined;
}

function judge(range: string, global: boolean, policy: AddressPolicy): string | undefined {
	if (range === "unicast" && global) return undefined;
	if ((range === "loopback" || range === "private" || range === "uniqueLocal") && policy.allowPrivate)
		return undefined;
	return RANGE_WORDS[range] ?? "a reserved address";
}

/**
 * IPv6 in the WHATWG form (zone dropped): ipaddr.js reads `::127.0.0.1` (IPv4-compatible) as if it
 * were `::ffff:127.0.0.1`; serialised first it is `::7f00:1` and judged for what it is.
 */
function canonical(ip: string): string {
	if (!net.isIPv6(ip)) return ip;
	return new URL(`http://[${ip.split("%")[0]}]/`).hostname.slice(1, -1);
}

/** Why `ip` may not be contacted under `policy`, or undefined when it may. */
export function blockedAddress(ip: string, policy: AddressPolicy): string | undefined {
	let addr: ipaddr.IPv4 | ipaddr.IPv6;
	try {
		addr = ipaddr.parse(canonical(ip));
	} catch {
		return `${ip} is not an IP address`;
	}
	if (addr.kind() === "ipv4") {
		const why = judge(addr.range(), true, policy);
		return why && `${ip} is ${why}`;
	}
	const v6 = addr as ipaddr.IPv6;
	const v4 = embeddedIPv4(v6);
	if (v4) {
		const why = judge(v4.range(), true, policy);
		return why && `${ip} (${v4.toString()}) is ${why}`;
	}
	// Only global unicast (2000::/3) outside the special ranges is public; `::a.b.c.d` and the rest are not.
	const why = judge(v6.range(), v6.match(GLOBAL_UNICAST_V6), policy);
	return why && `${ip} is ${why}`;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** The URL's host without IPv6 brackets or a trailing dot. */
export function hostOf(url: URL): string {
	return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/**
 * What can be decided without DNS: an absolute http(s) URL without credentials, whose host is not a
 * blocked IP literal nor a `localhost` name (RFC 6761). A host name is judged when it resolves.
 */
export function checkOutboundUrl(raw: string, policy: AddressPolicy): UrlCheck {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return { ok: false, reason: "not an absolute URL" };
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") {
		return { ok: false, reason: "only http and https URLs are allowed" };
	}
	if (url.username !== "" || url.password !== "") {
		return { ok: false, reason: "credentials in the URL are not allowed" };
	}
	const host = hostOf(url).toLowerCase();
	if (net.isIP(host)) {
		const why = blockedAddress(host, policy);
		if (why) return { ok: false, reason: why };
	} else if ((host === "localhost" || host.endsWith(".localhost")) && !policy.allowPrivate) {
		return { ok: false, reason: `${host} is a loopback name` };
	}
	return { ok: true, url };
}

export interface ResolvedAddress {
	address: string;
	family: 4 | 6;
}

/**
 * A and AAAA answers for `hostname`: from the `host:port` resolvers in `dnsServers` (tests run their
 * own), else from the system (`getaddrinfo`, which also reads /etc/hosts).
 */
export async function resolveHost(
	hostname: string,
	dnsServers: readonly string[],
	timeoutMs = DNS_TIMEOUT_MS,
): Promise<ResolvedAddress[]> {
	if (dnsServers.length === 0) {
		const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
		return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
	}
	const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries: 2 });
	resolver.setServers([...dnsServers]);
	const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
	const out: ResolvedAddress[] = [
		...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
		...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
	];
	if (out.length > 0) return out;
	const failed = [v4, v6].find(
		(r): r is PromiseRejectedResult =>
			r.status === "rejected" && !MISSING.has((r.reason as NodeJS.ErrnoException).code ?? ""),
	);
	if (failed) throw failed.reason;
	throw Object.assign(new Error(`${hostname} does not resolve`), { code: dns.NOTFOUND });
}

export type HostCheck =
	| { state: "allowed"; addresses: ResolvedAddress[] }
	| { state: "blocked"; reason: string }
	| { state: "unresolved"; reason: string };

/** Resolves `hostname` and judges every answer: one blocked address blocks the name. */
export async function checkHost(
	hostname: string,
	policy: AddressPolicy,
	dnsServers: readonly string[],
	timeoutMs = DNS_TIMEOUT_MS,
): Promise<HostCheck> {
	let addresses: ResolvedAddress[];
	try {
		addresses = await resolveHost(hostname, dnsServers, timeoutMs);
	} catch (err) {
		const code = errorCode(err);
		const missing = code !== undefined && MISSING.has(code);
		return {
			state: "unresolved",
			reason: missing
				? `${hostname} does not resolve`
				: `${hostname}: DNS look-up failed (${code ?? errorText(err)})`,
		};
	}
	for (const a of addresses) {
		const why = blockedAddress(a.address, policy);
		if (why) return { state: "blocked", reason: `${hostname} resolves to a blocked address: ${why}` };
	}
	return { state: "allowed", addresses };
}

class BlockedAddressError extends Error {
	readonly code = "SVC_ADDRESS_BLOCKED";
}

export interface OutboundOptions extends AddressPolicy {
	dnsServers: readonly string[];
	/** Total bound over look-up, connect, headers and body (default 10 s, the spec's). */
	timeoutMs?: number;
	/** At most this much of an answer is read; the rest is dropped with the connection. */
	maxBodyBytes?: number;
	/**
	 * No address policy and no look-up of ours: only for addresses the operator configured
	 * (PEER_OVERRIDES bases, which the design lets bypass the check).
	 */
	trusted?: boolean;
}

export interface OutboundRequest {
	method: "GET" | "POST";
	url: string;
	headers?: Record<string, string>;
	body?: string;
}

export type OutboundResult =
	| { kind: "response"; status: number; body: Buffer; truncated: boolean }
	| { kind: "blocked"; reason: string }
	| { kind: "unreachable"; reason: string; timeout: boolean };

export interface OutboundClient {
	readonly timeoutMs: number;
	send(req: OutboundRequest): Promise<OutboundResult>;
	close(): Promise<void>;
}

type LookupCallback = (
	err: NodeJS.ErrnoException | null,
	address: string | dns.LookupAddress[],
	family?: number,
) => void;

export function createOutboundClient(opts: OutboundOptions): OutboundClient {
	const timeoutMs = opts.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
	const maxBody = opts.maxBodyBytes ?? OUTBOUND_MAX_BODY;
	const policy: AddressPolicy = { allowPrivate: opts.allowPrivate };
	const trusted = opts.trusted === true;

	// net.connect calls this for a host name (never for an IP literal): the addresses it hands back
	// are the only ones dialled, so the check holds at connect time, whatever the name did at save.
	const lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
		checkHost(hostname, policy, opts.dnsServers, Math.min(DNS_TIMEOUT_MS, timeoutMs)).then(
			(found) => {
				if (found.state === "blocked") return callback(new BlockedAddressError(found.reason), "");
				if (found.state === "unresolved") {
					return callback(Object.assign(new Error(found.reason), { code: dns.NOTFOUND }), "");
				}
				const family = options.family === 4 || options.family === 6 ? options.family : 0;
				const usable = found.addresses.filter((a) => family === 0 || a.family === family);
				const first = usable[0];
				if (!first) {
					return callback(
						Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: dns.NODATA }),
						"",
					);
				}
				if (options.all) return callback(null, usable);
				callback(null, first.address, first.family);
			},
			(err: NodeJS.ErrnoException) => callback(err, ""),
		);
	};

	// undici is loaded on the first delivery, not at start: most processes send nothing for a while,
	// and it is about 10 MB of resident memory.
	let undici: Promise<{ agent: Agent; request: typeof import("undici").request }> | undefined;
	const load = () => {
		undici ??= import("undici").then(({ Agent, buildConnector, request }) => {
			const base = buildConnector({ timeout: timeoutMs, ...(trusted ? {} : { lookup }) });
			return { agent: new Agent(agentOptions(base)), request };
		});
		return undici;
	};
	const connectVia =
		(base: buildConnector.connector): buildConnector.connector =>
		(options, callback) => {
			if (trusted) return base(options, callback);
			const host = options.hostname.replace(/^\[(.*)\]$/, "$1");
			const literal = net.isIP(host) ? blockedAddress(host, policy) : undefined;
			if (literal) return callback(new BlockedAddressError(literal), null);
			base(options, (err, socket) => {
				if (err || !socket) return callback(err ?? new Error("no socket"), null);
				// Belt and braces: whatever path led here, the peer address must pass too.
				const remote = socket.remoteAddress;
				const why = remote ? blockedAddress(remote, policy) : "the connection has no remote address";
				if (why) {
					socket.destroy();
					return callback(new BlockedAddressError(why), null);
				}
				callback(null, socket);
			});
		};
	const agentOptions = (base: buildConnector.connector) => ({
		connect: connectVia(base),
		headersTimeout: timeoutMs,
		bodyTimeout: timeoutMs,
		keepAliveTimeout: 4000,
		connections: 16,
	});

	return {
		timeoutMs,
		async send(req) {
			let url: URL;
			if (trusted) {
				try {
					url = new URL(req.url);
				} catch {
					return { kind: "blocked", reason: "not an absolute URL" };
				}
			} else {
				const checked = checkOutboundUrl(req.url, policy);
				if (!checked.ok) return { kind: "blocked", reason: checked.reason };
				url = checked.url;
			}
			const controller = new AbortController();
			const timer = setTimeout(() => controller.abort(), timeoutMs);
			try {
				// undici's request never follows a redirect: a 3xx is returned as it came.
				const { agent, request } = await load();
				const res = await request(url, {
					dispatcher: agent,
					method: req.method,
					headers: req.headers ?? {},
					...(req.body === undefined ? {} : { body: req.body }),
					signal: controller.signal,
				});
				const chunks: Buffer[] = [];
				let size = 0;
				let truncated = false;
				for await (const chunk of res.body as AsyncIterable<Buffer>) {
					if (size + chunk.length > maxBody) {
						chunks.push(chunk.subarray(0, maxBody - size));
						truncated = true;
						break; // leaving the loop destroys the body and its connection
					}
					chunks.push(chunk);
					size += chunk.length;
				}
				return { kind: "response", status: res.statusCode, body: Buffer.concat(chunks), truncated };
			} catch (err) {
				if (controller.signal.aborted) {
					return {
						kind: "unreachable",
						reason: `no complete answer within ${seconds(timeoutMs)}`,
						timeout: true,
					};
				}
				const blocked = findBlocked(err);
				if (blocked) return { kind: "blocked", reason: blocked.message };
				const code = errorCode(err);
				const timeout = code !== undefined && /TIMEOUT/i.test(code);
				return { kind: "unreachable", reason: errorText(err), timeout };
			} finally {
				clearTimeout(timer);
			}
		},
		async close() {
			if (undici !== undefined) await (await undici).agent.destroy();
		},
	};
}

function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function findBlocked(err: unknown): BlockedAddressError | undefined {
	for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
		if (e instanceof BlockedAddressError) return e;
	}
	return undefined;
}

function errorCode(err: unknown): string | undefined {
	for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
		const code = (e as { code?: unknown }).code;
		if (typeof code === "string" && code !== "UND_ERR_SOCKET") return code;
	}
	return undefined;
}

/** A short reason for a transport failure (never a body). */
export function errorText(err: unknown): string {
	const message = err instanceof Error ? err.message : String(err);
	const code = errorCode(err);
	const cause = (err as { cause?: unknown }).cause;
	const inner = cause instanceof Error && cause.message !== message ? `: ${cause.message}` : "";
	const text = `${message}${inner}`;
	return code && !text.includes(code) ? `${code} ${text}` : text;
}
