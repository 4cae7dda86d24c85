// Values of remote answers, read by bulk read and kept in memory for the `maxAge` the other server
// gave (never written to the database: the values stay on the responder's server). A later read
// sends the kept `etag`, so an unchanged grant answers `notModified` without its values. A signed
// event that told of a change after the values were read makes them read again at once.
import { type PeerOptions, resolvePeerKey } from "../../lib/peer.ts";
import type { RemoteReader, RemoteValue } from "../answers/service.ts";
import { readRemoteGrants } from "./accept.ts";

interface Kept {
	status: string;
	etag: string;
	values: RemoteValue[];
	/** When they were read, and until when they may be kept. */
	read: number;
	until: number;
}

const MAX_KEPT = 10_000;

export function createRemoteReader(peer: () => PeerOptions, now: () => number): RemoteReader {
	const kept = new Map<string, Kept>();
	return async (server, grants) => {
		const t = now();
		const out = new Map<string, { status: string; values: RemoteValue[] }>();
		const ask: { id: string; token: string; etag?: string }[] = [];
		for (const g of grants) {
			const k = kept.get(`${server} ${g.id} ${g.token}`);
			if (k && k.until > t && k.read >= g.changedAt) out.set(g.id, { status: k.status, values: k.values });
			else ask.push({ id: g.id, token: g.token, ...(k ? { etag: k.etag } : {}) });
		}
		if (ask.length === 0) return out;
		const pin = await resolvePeerKey(server, peer());
		if (pin.state !== "verified") return undefined;
		for (let i = 0; i < ask.length; i += 100) {
			const chunk = ask.slice(i, i + 100);
			let items: Awaited<ReturnType<typeof readRemoteGrants>>;
			try {
				items = await readRemoteGrants(pin.base, chunk, peer());
			} catch {
				return undefined;
			}
			chunk.forEach((g, n) => {
				const item = items[n];
				if (!item) return;
				const key = `${server} ${g.id} ${g.token}`;
				const prior = kept.get(key);
				const values = item.notModified && prior ? prior.values : (item.values ?? []);
				const entry = {
					status: item.status,
					etag: item.etag ?? "",
					values,
					read: t,
					until: t + Math.max(0, Number(item.maxAge ?? 0)) * 1000,
				};
				if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
				kept.set(key, entry);
				out.set(g.id, { status: entry.status, values });
			});
		}
		return out;
	};
}
