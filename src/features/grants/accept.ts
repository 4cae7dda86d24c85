// The requester's half of a remote answer (`POST /api/public/requests/{slug}/remote`), called by
// the responder's server. Every gate of a local answer runs (answers' `passRequestGates`: request
// status, password, identifier, proven identity, here vouched for by the relaying server), then the grant is read once with its token to confirm it resolves and its
// values are checked against the template. Only the grant's address (server and id), token and
// keys are kept, never its values; the submission callback carries the values as read now.
import type { Kysely } from "kysely";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { newId } from "../../lib/crypto.ts";
import {
	isDomainName,
	PEER_UNREACHABLE,
	type PeerKey,
	type PeerOptions,
	resolvePeerKey,
} from "../../lib/peer.ts";
import { postPeerJson } from "../../lib/peer-client.ts";
import {
	checkValue,
	keepRemoteAnswer,
	passRequestGates,
	remoteAnswerOf,
	remoteAnswerRow,
} from "../answers/service.ts";
import { enqueueGrantEvent, enqueueSubmission } from "../callbacks/service.ts";
import { verifyChallenge } from "../challenges/service.ts";
import { invalidField } from "../collections/fields.ts";
import { fetchPeerStanding, verifyPeerIdentity } from "../identity/service.ts";
import type { TemplateItem } from "../vault/templates/service.ts";
import type { GrantValue } from "./resolve.ts";

export interface RemoteAnswerInput {
	server: string;
	grant: { id: string; token: string; keys?: string[] | undefined };
	password?: string | undefined;
	identifier?: string | undefined;
	senderName?: string | undefined;
	identity?: { fingerprint: string; certificate: string; parentSignature: string } | undefined;
	challengeNonce?: string | undefined;
	challengeSignature?: string | undefined;
}

export interface AcceptDeps {
	db: Kysely<Database>;
	peer: PeerOptions;
	now: number;
}

/** Answered to an unauthenticated caller: the detail only in the log. */
const unreachable = (detail: string) =>
	new AppError("remote_unreachable", `The responder's server ${PEER_UNREACHABLE}`, { internal: detail });

/** Reads grants of `base` with their tokens (bulk read); throws remote_unreachable when it cannot. */
export async function readRemoteGrants(
	base: string,
	grants: { id: string; token: string; etag?: string }[],
	peer: PeerOptions,
): Promise<
	{
		id: string;
		status: string;
		etag?: string;
		maxAge?: number;
		notModified?: boolean;
		values?: GrantValue[];
	}[]
> {
	let answer: { status: number; body: unknown };
	try {
		answer = await postPeerJson(
			`${base}/api/grants/resolve`,
			{ grants },
			{ ...peer, timeoutMs: peer.timeoutMs ?? 10_000 },
		);
	} catch (err) {
		throw unreachable((err as Error).message);
	}
	const items = (answer.body as { items?: unknown })?.items;
	if (answer.status !== 200 || !Array.isArray(items) || items.length !== grants.length) {
		throw unreachable(`${base}/api/grants/resolve answered ${answer.status}`);
	}
	return items;
}

/** The values against the template: required items present, typed values of the item's type. */
function checkTemplate(
	items: TemplateItem[],
	allowExtra: boolean,
	values: GrantValue[],
): Record<string, string> {
	const byKey = new Map(items.map((i) => [i.key, i]));
	const data: Record<string, string> = {};
	const seen = new Set<string>();
	for (const v of values) {
		const item = byKey.get(v.key);
		if (!item && !allowExtra) throw invalidField(`grant.keys.${v.key}`, "is not asked for by this request");
		seen.add(v.key);
		if (item?.type === "file") {
			if (v.type !== "file") throw invalidField(`grant.keys.${v.key}`, "must be a file");
			continue;
		}
		if (v.type !== "value" || typeof v.value !== "string")
			throw invalidField(`grant.keys.${v.key}`, "must be a value");
		data[v.key] = checkValue(v.key, item?.type ?? "text", v.value, `grant.keys.${v.key}`);
	}
	for (const item of items) {
		if (item.required && !seen.has(item.key)) throw invalidField(`grant.keys.${item.key}`, "is required");
	}
	return data;
}

/** The relaying server, asked as itself, and the identity it vouched for (when one was wanted). */
interface RemoteProof {
	server: string;
	pin: Extract<PeerKey, { state: "verified" }>;
	fingerprint?: string | undefined;
}

/**
 * The proven-identity gate of a remote answer, and the relaying server it needs either way: named
 * by a domain, asked as itself (its DNS pin); an identity it issued, signing this request's
 * challenge, and active by its word.
 */
function remoteProof(deps: AcceptDeps, slug: string, input: RemoteAnswerInput) {
	return async (wanted: boolean): Promise<RemoteProof> => {
		const server = input.server.toLowerCase();
		if (!isDomainName(server)) throw invalidField("server", "must be a domain name");
		if (wanted && (!input.challengeNonce || !input.challengeSignature))
			throw new AppError("challenge_required");
		if (wanted && !input.identity) {
			throw new AppError("remote_identity_invalid", "A proven identity needs the identity its server issued");
		}
		const pin = await resolvePeerKey(server, deps.peer);
		if (pin.state === "unreachable") throw unreachable(`${server}: ${pin.reason}`);
		if (pin.state !== "verified") throw unreachable(`${server} cannot be asked as itself: ${pin.reason}`);
		if (!wanted || !input.identity) return { server, pin };
		// Issued by the relaying server: the certificate is the one fingerprinted and its pinned root signed it.
		const issued = await verifyPeerIdentity(server, input.identity, deps.peer, pin);
		if (issued.state === "unreachable") throw unreachable(`${server}: ${issued.reason}`);
		if (issued.state !== "verified") throw new AppError("remote_identity_invalid", issued.reason);
		// It signed this request's challenge (issued here; spent on sight, right or wrong).
		await verifyChallenge(
			deps.db,
			{
				scope: "request",
				slug,
				nonce: input.challengeNonce,
				signature: input.challengeSignature,
				publicKey: issued.publicKey.export({ type: "spki", format: "pem" }).toString(),
			},
			deps.now,
		);
		// And that server reports it active.
		const standing = await fetchPeerStanding(server, issued.fingerprint, deps.peer, pin);
		if (standing.state === "unreachable") throw unreachable(`${server}: ${standing.reason}`);
		if (standing.state !== "verified") throw new AppError("remote_identity_invalid", standing.reason);
		if (standing.status === "revoked") throw new AppError("identity_revoked");
		if (standing.status !== "active") {
			throw new AppError("remote_identity_invalid", `${server} does not vouch for this identity`);
		}
		return { server, pin, fingerprint: issued.fingerprint };
	};
}

export async function acceptRemoteAnswer(deps: AcceptDeps, slug: string, input: RemoteAnswerInput) {
	const { db, now } = deps;
	const gates = await passRequestGates(db, slug, input, now, remoteProof(deps, slug, input));
	const { request, identifier } = gates;
	const { server, pin, fingerprint } = gates.proof;

	// The grant read once with its token: it must resolve, and its values must answer the template.
	const [item] = await readRemoteGrants(
		pin.base,
		[{ id: input.grant.id, token: input.grant.token }],
		deps.peer,
	);
	if (item?.status !== "active" || !Array.isArray(item.values)) {
		throw invalidField("grant", `does not resolve on ${server} (${item?.status ?? "no answer"})`);
	}
	const items = JSON.parse(request.items) as TemplateItem[];
	const data = checkTemplate(items, request.allow_extra_fields === 1, item.values);
	const keys = item.values.map((v) => v.key);
	const senderName = (input.senderName ?? "").trim().slice(0, 200);

	const result = await db
		.transaction()
		.execute(async (trx) => {
			const existing = await remoteAnswerOf(trx, server, input.grant.id);
			if (existing && existing.request !== request.id) {
				throw invalidField("grant", "already answers another request");
			}
			const id = existing?.id ?? newId();
			// Never the values: they stay on the responder's server.
			const row = remoteAnswerRow({
				id,
				request: request.id,
				identity: fingerprint ?? null,
				identifier,
				sender_name: senderName,
				server,
				grant_id: input.grant.id,
				grant_token: input.grant.token,
				grant_keys: JSON.stringify(keys),
				created: existing?.created ?? now,
				updated: now,
			});
			await keepRemoteAnswer(trx, row, existing !== undefined);
			await enqueueSubmission(
				trx,
				{
					requestId: request.id,
					responseId: id,
					...(fingerprint && request.require_handshake === 1 ? { identity: fingerprint } : {}),
					identifier,
					senderName,
					data,
					server,
				},
				now,
			);
			if (existing) {
				await enqueueGrantEvent(
					trx,
					{
						requestId: request.id,
						responseId: id,
						event: "grant.changed",
						status: "active",
						at: now,
						server,
					},
					now,
				);
			}
			return { id, updated: existing !== undefined };
		})
		.catch((err: unknown) => {
			if (isUniqueViolation(err))
				throw new AppError("conflict", "This grant was answered at the same time; send it again");
			throw err;
		});
	return { ok: true as const, responseId: result.id, completed: true, updated: result.updated };
}
