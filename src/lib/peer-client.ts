// JSON over the safe outbound client to another server's base address (DNS-pinned, or a
// PEER_OVERRIDES base, which skips the address policy as for every peer call).
import { PeerFetchError, type PeerOptions, peerClient } from "./peer.ts";

/** A peer's answer to a POST (a relayed answer, a claim) may be larger than a document it serves. */
const MAX_BODY = 1024 * 1024;

export interface PeerAnswer {
	status: number;
	body: unknown;
}

/** POSTs `body` as JSON; any transport failure or an unreadable answer is a PeerFetchError. */
export function postPeerJson(
	url: string,
	body: unknown,
	opts: Pick<PeerOptions, "dnsServers" | "peerOverrides"> & { timeoutMs: number },
): Promise<PeerAnswer> {
	return sendPeerJson("POST", url, body, opts);
}

/** GETs a JSON answer with its status, refusals included (a relayed offer view, a challenge). */
export function getPeerJson(
	url: string,
	opts: Pick<PeerOptions, "dnsServers" | "peerOverrides"> & { timeoutMs: number },
): Promise<PeerAnswer> {
	return sendPeerJson("GET", url, undefined, opts);
}

async function sendPeerJson(
	method: "GET" | "POST",
	url: string,
	body: unknown,
	opts: Pick<PeerOptions, "dnsServers" | "peerOverrides"> & { timeoutMs: number },
): Promise<PeerAnswer> {
	const origin = new URL(url).origin;
	const client = peerClient(origin, opts, MAX_BODY);
	try {
		const res = await client.send(
			method === "POST"
				? {
						method,
						url,
						headers: { "content-type": "application/json", accept: "application/json" },
						body: JSON.stringify(body),
					}
				: { method, url, headers: { accept: "application/json" } },
		);
		if (res.kind !== "response") throw new PeerFetchError(`${url}: ${res.reason}`);
		if (res.truncated) throw new PeerFetchError(`${url}: body over ${MAX_BODY} bytes`);
		let parsed: unknown;
		try {
			parsed = JSON.parse(res.body.toString("utf8"));
		} catch {
			throw new PeerFetchError(`${url} answered ${res.status} without JSON`);
		}
		return { status: res.status, body: parsed };
	} finally {
		await client.close();
	}
}
