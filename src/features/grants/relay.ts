// The responder's half of a remote answer (`POST /api/requests/remote`): the answer is minted in
// the responder's own vault as a share handed out with a grant token, then relayed to the
// requester's server, reached through its DNS pin (PEER_OVERRIDES in development). When the other
// server refuses it, or cannot be asked, everything written for it is taken back.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Caller } from "../../http/auth.ts";
import { AppError, errorCodes } from "../../http/errors.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { fetchJson, isDomainName, type PeerOptions, resolvePeerKey } from "../../lib/peer.ts";
import { postPeerJson } from "../../lib/peer-client.ts";
import { type AnswerInput, keepMinted, plan } from "../answers/submit.ts";
import { invalidField } from "../collections/fields.ts";
import { workspaceIdentity } from "../identity/service.ts";
import { renewLink, takeBackLink } from "../shares/service.ts";
import { takeBackRecords } from "../vault/service.ts";
import type { TemplateItem } from "../vault/templates/collection.ts";
import * as store from "./store.ts";

export interface RelayInput extends AnswerInput {
	/** The requester's server (a domain). */
	server: string;
	/** The request's slug on that server. */
	slug: string;
}

export interface RelayDeps {
	db: Kysely<Database>;
	domain: string;
	peer: PeerOptions;
	now: number;
}

export interface RelayResult {
	ok: true;
	responseId: string;
	completed: boolean;
	updated: boolean;
	grantId: string;
	server: string;
}

const unreachable = (detail: string) => new AppError("remote_unreachable", detail);

export async function relayAnswer(deps: RelayDeps, caller: Caller, input: RelayInput): Promise<RelayResult> {
	const { db, now } = deps;
	if (caller.kind !== "session") throw new AppError("request_account_required");
	const server = input.server.toLowerCase();
	if (!isDomainName(server)) throw invalidField("server", "must be a domain name");
	if (server === deps.domain) throw invalidField("server", "is this server: answer the request here");

	// The identity proven to the requester's server must be one of the responder's workspace.
	let identity: { fingerprint: string; certificate: string; parentSignature: string } | undefined;
	if (input.identityId !== undefined) {
		const row = await workspaceIdentity(db, caller.workspaceId, input.identityId);
		if (!row) {
			throw invalidField("identityId", "is not an identity of your workspace");
		}
		identity = {
			fingerprint: row.fingerprint,
			certificate: row.certificate,
			parentSignature: row.parent_signature,
		};
	}

	const pin = await resolvePeerKey(server, deps.peer);
	if (pin.state !== "verified") throw unreachable(`${server}: ${pin.reason}`);
	const base = pin.base;
	let probe: { template?: TemplateItem[]; allowExtraFields?: boolean; label?: string };
	try {
		probe = (await fetchJson(`${base}/api/public/requests/${encodeURIComponent(input.slug)}`, {
			...deps.peer,
			timeoutMs: deps.peer.timeoutMs ?? 10_000,
		})) as typeof probe;
	} catch (err) {
		throw unreachable(`${server}: ${(err as Error).message}`);
	}
	const items = Array.isArray(probe?.template) ? probe.template : [];
	const p = await plan(db, caller.workspaceId, items, probe.allowExtraFields === true, input);

	// Written in the responder's vault first: the grant must resolve when the other server reads it.
	const token = randomToken();
	const linkId = newId();
	const { minted, keys } = await db.transaction().execute(async (trx) => {
		const { minted } = await keepMinted(trx, caller.workspaceId, p, new Map(), now);
		const keys = Object.fromEntries(
			p.order.flatMap((k) => {
				const id = minted.get(k) ?? p.linked.get(k);
				return id ? [[k, id]] : [];
			}),
		);
		await renewLink(
			trx,
			{
				id: linkId,
				workspace: caller.workspaceId,
				label: `Answer: ${String(probe.label ?? input.slug)} (${server})`.slice(0, 200),
				identity: identity && input.identityId ? input.identityId : null,
				created_by: caller.accountId,
			},
			[...new Set(Object.values(keys))],
			now,
		);
		await store.insertGrant(trx, {
			link: linkId,
			token_hash: sha256Hex(token),
			keys: JSON.stringify(keys),
			peer: server,
			request_slug: input.slug,
			created: now,
			updated: now,
		});
		return { minted: [...minted.values()], keys };
	});

	const takeBack = () =>
		db.transaction().execute(async (trx) => {
			// Removed as if never written: no grant event, no notification (nobody was told of it).
			await store.deleteGrant(trx, linkId);
			await takeBackLink(trx, linkId);
			await takeBackRecords(trx, minted);
		});

	let answer: { status: number; body: unknown };
	try {
		answer = await postPeerJson(
			`${base}/api/public/requests/${encodeURIComponent(input.slug)}/remote`,
			{
				server: deps.domain,
				grant: { id: linkId, token, keys: Object.keys(keys) },
				...(input.password !== undefined ? { password: input.password } : {}),
				...(input.identifier !== undefined ? { identifier: input.identifier } : {}),
				...(input.senderName !== undefined ? { senderName: input.senderName } : {}),
				...(identity ? { identity } : {}),
				...(input.challengeNonce !== undefined ? { challengeNonce: input.challengeNonce } : {}),
				...(input.challengeSignature !== undefined ? { challengeSignature: input.challengeSignature } : {}),
			},
			{ ...deps.peer, timeoutMs: deps.peer.timeoutMs ?? 10_000 },
		);
	} catch (err) {
		await takeBack();
		throw unreachable(`${server}: ${(err as Error).message}`);
	}
	const body = (answer.body ?? {}) as {
		ok?: unknown;
		responseId?: unknown;
		updated?: unknown;
		code?: unknown;
		detail?: unknown;
	};
	if (answer.status === 200 && body.ok === true && typeof body.responseId === "string") {
		return {
			ok: true,
			responseId: body.responseId,
			completed: true,
			updated: body.updated === true,
			grantId: linkId,
			server,
		};
	}
	await takeBack();
	// The other server's refusal, passed on with its code when it is one this server knows (a wrong
	// password, a missing challenge, ...); anything else is a server that could not be asked.
	const code = typeof body.code === "string" ? body.code : "";
	const detail =
		typeof body.detail === "string" ? body.detail.slice(0, 500) : `${server} answered ${answer.status}`;
	if (answer.status >= 400 && answer.status < 500 && Object.hasOwn(errorCodes, code)) {
		throw new AppError(code as keyof typeof errorCodes, `${server}: ${detail}`);
	}
	throw unreachable(`${server} answered ${answer.status}: ${detail}`);
}
