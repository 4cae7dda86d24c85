// Signed grant event batches from the server holding a grant (`POST /api/grants/events`, spec
// "Grants between servers"): the cheap checks first (shape, audience, age), then the sender's root
// key through its DNS pin, then the signature; each event applied to the remote answer it names
// unless one as new or newer was recorded, and passed on to the request's callback with `server`.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { rsaVerifyHex, type SignedEnvelope } from "../../lib/crypto.ts";
import { parseIsoInstant } from "../../lib/iso-date.ts";
import { isDomainName, PEER_KEY_UNAVAILABLE, type PeerOptions, resolvePeerKey } from "../../lib/peer.ts";
import { applyRemoteStatus } from "../answers/service.ts";
import type { GrantEventName } from "../callbacks/service.ts";
import { enqueueGrantEvents, type GrantEventInput } from "../callbacks/service.ts";
import { invalidField } from "../collections/fields.ts";
import { BATCH_TTL_S, EVENTS_TYPE, MAX_EVENTS_PER_BATCH } from "./events-out.ts";

export interface IncomingDeps {
	db: Kysely<Database>;
	/** This server's domain: the only audience accepted. */
	domain: string;
	peer: PeerOptions;
	now: number;
}

/** A batch signed this far in the future still counts (clocks of two servers drift). */
export const CLOCK_SKEW_S = 60;
const EVENTS = new Set<GrantEventName>(["grant.changed", "grant.revoked", "grant.expired"]);
const STATUSES = new Set(["active", "paused", "revoked", "expired"]);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

interface Batch {
	sender: string;
	audience: string;
	iat: number;
	exp: number;
	events: { event: GrantEventName; grant: string; status: string; at: number }[];
}

const refused = (detail: string) => new AppError("event_signature_invalid", detail);

/** The payload decoded and checked for shape; anything else is 400 naming `body.payload`. */
function decode(payload: string): Batch {
	let body: unknown;
	try {
		body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
	} catch {
		throw invalidField("payload", "is not base64url of a JSON object");
	}
	const b = (body ?? {}) as Record<string, unknown>;
	if (typeof body !== "object" || Array.isArray(body) || b.type !== EVENTS_TYPE) {
		throw invalidField("payload", `is not a ${EVENTS_TYPE} batch`);
	}
	if (typeof b.sender !== "string" || !isDomainName(b.sender)) {
		throw invalidField("payload", "names no sender domain");
	}
	if (typeof b.audience !== "string") throw invalidField("payload", "names no audience");
	if (!Number.isInteger(b.iat) || !Number.isInteger(b.exp)) {
		throw invalidField("payload", "has no whole-second iat and exp");
	}
	if (!Array.isArray(b.events) || b.events.length === 0 || b.events.length > MAX_EVENTS_PER_BATCH) {
		throw invalidField("payload", `must hold 1 to ${MAX_EVENTS_PER_BATCH} events`);
	}
	const events = b.events.map((raw: unknown, i) => {
		const e = (raw ?? {}) as Record<string, unknown>;
		const at =
			typeof e.at === "string" && ISO.test(e.at) ? (parseIsoInstant(e.at) ?? Number.NaN) : Number.NaN;
		if (
			typeof raw !== "object" ||
			!EVENTS.has(e.event as GrantEventName) ||
			typeof e.grant !== "string" ||
			e.grant.length === 0 ||
			e.grant.length > 64 ||
			typeof e.status !== "string" ||
			!STATUSES.has(e.status) ||
			Number.isNaN(at)
		) {
			throw invalidField("payload", `event ${i} is not {event, grant, status, at} with known values`);
		}
		return { event: e.event as GrantEventName, grant: e.grant, status: e.status, at };
	});
	return { sender: b.sender, audience: b.audience, iat: b.iat as number, exp: b.exp as number, events };
}

export async function acceptEventBatch(
	deps: IncomingDeps,
	envelope: SignedEnvelope,
): Promise<{ applied: number }> {
	const batch = decode(envelope.payload);
	const nowS = Math.floor(deps.now / 1000);
	// Refusals before any look-up: nobody makes this server fetch keys for a batch it would refuse.
	if (batch.audience !== deps.domain) {
		throw refused(`the batch is addressed to ${batch.audience}, not to this server (${deps.domain})`);
	}
	if (batch.iat > nowS + CLOCK_SKEW_S) throw refused("the batch is signed in the future");
	if (nowS - batch.iat >= BATCH_TTL_S || batch.exp <= nowS) {
		throw refused("the batch is more than five minutes old: batches are signed again at every attempt");
	}
	if (batch.sender === deps.domain) throw refused("the batch names this server as its sender");
	// An event from the future would outrank every later one for its answer (an event older than
	// the status recorded is ignored) and freeze it: beyond the clock skew it is refused.
	const future = batch.events.findIndex((e) => e.at > deps.now + CLOCK_SKEW_S * 1000);
	if (future >= 0) {
		throw invalidField("payload", `event ${future} has \`at\` more than ${CLOCK_SKEW_S} s in the future`);
	}

	const key = await resolvePeerKey(batch.sender, deps.peer);
	if (key.state !== "verified") {
		// The caller is unauthenticated: it learns that the key could not be had, not how this
		// server resolved or reached the sender (that goes to the log).
		throw new AppError("peer_key_unavailable", `${batch.sender}: ${PEER_KEY_UNAVAILABLE}`, {
			headers: { "retry-after": "30" },
			internal: `${batch.sender}: ${key.reason}`,
		});
	}
	if (!rsaVerifyHex(key.publicKey, envelope.payload, envelope.signature)) {
		throw refused(`the signature is not ${batch.sender}'s root key's`);
	}

	// Oldest first: a later event about the same answer then wins, whatever the order sent.
	const events = [...batch.events].sort((a, b) => a.at - b.at);
	return deps.db.transaction().execute(async (trx) => {
		const applied: GrantEventInput[] = [];
		for (const e of events) {
			const answer = await applyRemoteStatus(trx, batch.sender, e.grant, e.status, e.at, deps.now);
			// No such answer here, or one as new or newer was recorded: ignored.
			if (!answer) continue;
			applied.push({
				requestId: answer.request,
				responseId: answer.id,
				event: e.event,
				status: e.status,
				at: e.at,
				server: batch.sender,
			});
		}
		await enqueueGrantEvents(trx, applied, deps.now);
		return { applied: applied.length };
	});
}
