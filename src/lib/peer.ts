// The DNS pin of another server (spec "What the service does" 5): the TXT record at
// `_svc.<domain>` names the fingerprint of the root key served at `<base>/api/server`.
// `base` is PEER_OVERRIDES[domain] (development: plain http and loopback) or https://<domain>.
// The TXT pin applies either way. Knows nothing of the app: options are passed in.
import crypto from "node:crypto";
import dns from "node:dns";
import { openEnvelope, type SignedEnvelope, spkiFingerprint } from "./crypto.ts";
import { createOutboundClient } from "./outbound.ts";

export interface PeerOptions {
	/** `host:port` resolvers for the TXT look-up; empty uses the system's. */
	dnsServers: readonly string[];
	/** domain -> base address (`http://127.0.0.1:4001`). */
	peerOverrides: Readonly<Record<string, string>>;
	/** Milliseconds for each DNS query and each HTTP exchange. */
	timeoutMs?: number;
	/** Current time in milliseconds (tests freeze it). */
	now?: number;
}

export type PeerKey =
	| { state: "verified"; publicKey: crypto.KeyObject; fingerprint: string; base: string }
	| { state: "spoofed"; fingerprint: string; reason: string }
	| { state: "dnsMissing"; reason: string }
	| { state: "unreachable"; reason: string };

/**
 * What an unauthenticated caller is told when another server cannot be asked: that it could not
 * be reached, never how this server resolved or dialled it (a blocked address, a refused
 * connection, a timeout); the detail goes to the operator's log.
 */
export const PEER_UNREACHABLE = "could not be reached";
/** The same for a sender whose root key could not be had (`POST /api/grants/events`, 503). */
export const PEER_KEY_UNAVAILABLE =
	"its root key could not be fetched and checked against its DNS pin; retry later";

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
const HEX64 = /^[0-9a-f]{64}$/;
const MAX_BODY = 256 * 1024;

/** A bare DNS name with at least one dot, lower-case (what `_svc.<domain>` can be asked for). */
export function isDomainName(value: string): boolean {
	return DOMAIN.test(value);
}

export function peerBase(domain: string, opts: Pick<PeerOptions, "peerOverrides">): string {
	return Object.hasOwn(opts.peerOverrides, domain)
		? (opts.peerOverrides[domain] as string)
		: `https://${domain}`;
}

export class PeerFetchError extends Error {}

/**
 * GET a JSON document through the safe outbound client: no redirects, a deadline, a size cap, and
 * the address policy (no loopback, private or reserved address) unless `url` is on a PEER_OVERRIDES
 * base, which the operator configured and which therefore skips the check (design). Any failure is
 * a PeerFetchError.
 */
export async function fetchJson(
	url: string,
	opts: Pick<PeerOptions, "dnsServers" | "peerOverrides"> & { timeoutMs: number },
): Promise<unknown> {
	const body = await fetchBody(url, "application/json", opts);
	try {
		return JSON.parse(body);
	} catch (err) {
		throw new PeerFetchError(`${url}: ${(err as Error).message}`);
	}
}

/** GET a text document (a status list JWT) the same way as fetchJson, cut at `maxBodyBytes`. */
export function peerFetchText(
	url: string,
	opts: Pick<PeerOptions, "dnsServers" | "peerOverrides"> & { timeoutMs: number },
	maxBodyBytes = MAX_BODY,
): Promise<string> {
	return fetchBody(url, "*/*", opts, maxBodyBytes);
}

/**
 * The safe outbound client for one call to another server: public addresses only, unless `origin`
 * is a PEER_OVERRIDES base (trusted, as for every peer call); answers cut at `maxBodyBytes`.
 */
export function peerClient(
	origin: string,
	opts: Pick<PeerOptions, "dnsServers" | "peerOverrides"> & { timeoutMs: number },
	maxBodyBytes = MAX_BODY,
) {
	return createOutboundClient({
		allowPrivate: false,
		dnsServers: opts.dnsServers,
		timeoutMs: opts.timeoutMs,
		maxBodyBytes,
		trusted: Object.values(opts.peerOverrides).includes(origin),
	});
}

async function fetchBody(
	url: string,
	accept: string,
	opts: Pick<PeerOptions, "dnsServers" | "peerOverrides"> & { timeoutMs: number },
	maxBodyBytes = MAX_BODY,
): Promise<string> {
	let origin: string;
	try {
		origin = new URL(url).origin;
	} catch {
		throw new PeerFetchError(`${url}: not an absolute URL`);
	}
	const client = peerClient(origin, opts, maxBodyBytes);
	try {
		const res = await client.send({ method: "GET", url, headers: { accept } });
		if (res.kind !== "response") throw new PeerFetchError(`${url}: ${res.reason}`);
		if (res.status !== 200) throw new PeerFetchError(`${url} answered ${res.status}`);
		if (res.truncated) throw new PeerFetchError(`${url}: body over ${maxBodyBytes} bytes`);
		return res.body.toString("utf8");
	} finally {
		await client.close();
	}
}

/** The fingerprints published at `_svc.<domain>`; "missing" when there is no such record. */
export async function readTxtPins(
	domain: string,
	opts: PeerOptions,
): Promise<string[] | "missing" | "unreachable"> {
	const resolver = new dns.promises.Resolver({ timeout: opts.timeoutMs ?? 3000, tries: 2 });
	let records: string[][];
	try {
		if (opts.dnsServers.length > 0) resolver.setServers([...opts.dnsServers]);
		records = await resolver.resolveTxt(`_svc.${domain}`);
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		return code === dns.NOTFOUND || code === dns.NODATA ? "missing" : "unreachable";
	}
	// A TXT record may arrive split into 255-byte strings; several records allow a key rollover.
	const pins = records.map((chunks) => chunks.join("").trim().toLowerCase()).filter((v) => HEX64.test(v));
	return pins.length > 0 ? pins : "missing";
}

/** Walks the DNS pin: TXT first (no record, no fetch), then the served key and its signed claim. */
export async function resolvePeerKey(domain: string, opts: PeerOptions): Promise<PeerKey> {
	const pins = await readTxtPins(domain, opts);
	if (pins === "missing") return { state: "dnsMissing", reason: `no fingerprint at _svc.${domain}` };
	if (pins === "unreachable")
		return { state: "unreachable", reason: `DNS did not answer for _svc.${domain}` };

	const base = peerBase(domain, opts);
	let claim: unknown;
	try {
		claim = await fetchJson(`${base}/api/server`, { ...opts, timeoutMs: opts.timeoutMs ?? 5000 });
	} catch (err) {
		return { state: "unreachable", reason: (err as Error).message };
	}
	const { publicKey: pem, assertion } = (claim ?? {}) as { publicKey?: unknown; assertion?: unknown };
	let publicKey: crypto.KeyObject;
	try {
		if (typeof pem !== "string") throw new Error("no key");
		publicKey = crypto.createPublicKey(pem);
		if (publicKey.asymmetricKeyType !== "rsa") throw new Error("not RSA");
	} catch {
		return { state: "unreachable", reason: `${base}/api/server serves no readable root key` };
	}
	const fingerprint = spkiFingerprint(publicKey);
	if (!pins.includes(fingerprint)) {
		return {
			state: "spoofed",
			fingerprint,
			reason: `the served key is not the one published at _svc.${domain}`,
		};
	}
	// The key is pinned; its own signed claim must name this domain and still be valid.
	const envelope = asEnvelope(assertion);
	const body = envelope && openEnvelope(publicKey, envelope, "server-claim-v1");
	const nowSec = Math.floor((opts.now ?? Date.now()) / 1000);
	if (!body || body.domain !== domain || body.fingerprint !== fingerprint || !(Number(body.exp) > nowSec)) {
		return { state: "spoofed", fingerprint, reason: "the server's signed claim does not name this domain" };
	}
	return { state: "verified", publicKey, fingerprint, base };
}

/** `{payload, signature}` with both strings, or undefined. */
export function asEnvelope(value: unknown): SignedEnvelope | undefined {
	if (!value || typeof value !== "object") return undefined;
	const { payload, signature } = value as Record<string, unknown>;
	return typeof payload === "string" && typeof signature === "string" ? { payload, signature } : undefined;
}
