// The responder's half of a remote answer (`POST /api/requests/remote`): the answer is minted in
// the responder's own vault as a share handed out with a grant token, then relayed to the
// requester's server, reached through its DNS pin (PEER_OVERRIDES in development). When the other
// server refuses it, or cannot be asked, everything written for it is taken back.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller, Caller } from "../../http/auth.ts";
import { AppError, errorCodes } from "../../http/errors.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { fetchJson, isDomainName, type PeerOptions, resolvePeerKey } from "../../lib/peer.ts";
import { postPeerJson } from "../../lib/peer-client.ts";
import { type AnswerInput, keepMinted, plan } from "../answers/service.ts";
import { invalidField } from "../collections/fields.ts";
import { workspaceIdentity } from "../identity/service.ts";
import { renewShare, takeBackLink } from "../shares/service.ts";
import { takeBackRecords } from "../vault/service.ts";
import type { TemplateItem } from "../vault/templates/service.ts";
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

type IdentityHalf = { fingerprint: string; certificate: string; parentSignature: string };
type Probe = { template?: TemplateItem[]; allowExtraFields?: boolean; label?: string };

/**
 * The remote answer, step by step: the target is another server; the identity shown is one of the
 * responder's workspace; the request is read there; the answer is minted here; the other server
 * is told, and if it refuses or cannot be asked, what was minted is taken back.
 */
export async function relayAnswer(deps: RelayDeps, caller: Caller, input: RelayInput): Promise<RelayResult> {
	const { db } = deps;
	if (caller.kind !== "session") throw new AppError("request_account_required");
	const server = input.server.toLowerCase();
	if (!isDomainName(server)) throw invalidField("server", "must be a domain name");
	if (server === deps.domain) throw invalidField("server", "is this server: answer the request here");
	const identity = await identityShown(db, caller.workspaceId, input.identityId);

	const pin = await resolvePeerKey(server, deps.peer);
	if (pin.state !== "verified") throw unreachable(`${server}: ${pin.reason}`);
	const base = pin.base;
	const probe = await probeRequest(deps.peer, server, base, input.slug);
	const items = Array.isArray(probe?.template) ? probe.template : [];
	const p = await plan(db, caller.workspaceId, items, probe.allowExtraFields === true, input);

	// Written in the responder's vault first: the grant must resolve when the other server reads it.
	const token = randomToken();
	const linkId = newId();
	const label = `Answer: ${String(probe.label ?? input.slug)} (${server})`.slice(0, 200);
	const grant = { linkId, token, label, identityId: identity ? input.identityId : undefined };
	const { minted, keys } = await mintAnswer(deps, caller, p, grant, server, input.slug);
	const takeBack = () => takeBackAnswer(db, linkId, minted);

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
	const body = (answer.body ?? {}) as { ok?: unknown; responseId?: unknown; updated?: unknown };
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
	throw refusal(server, answer);
}

/** The identity proven to the requester's server must be one of the responder's workspace. */
async function identityShown(
	db: Kysely<Database>,
	workspaceId: string,
	identityId: string | undefined,
): Promise<IdentityHalf | undefined> {
	if (identityId === undefined) return undefined;
	const row = await workspaceIdentity(db, workspaceId, identityId);
	if (!row) {
		throw invalidField("identityId", "is not an identity of your workspace");
	}
	return {
		fingerprint: row.fingerprint,
		certificate: row.certificate,
		parentSignature: row.parent_signature,
	};
}

/** The request as the requester's server shows it publicly: its template and label. */
async function probeRequest(peer: PeerOptions, server: string, base: string, slug: string): Promise<Probe> {
	try {
		return (await fetchJson(`${base}/api/public/requests/${encodeURIComponent(slug)}`, {
			...peer,
			timeoutMs: peer.timeoutMs ?? 10_000,
		})) as Probe;
	} catch (err) {
		throw unreachable(`${server}: ${(err as Error).message}`);
	}
}

/** In one transaction: the records minted, the share of them, and its grant token for the peer. */
async function mintAnswer(
	deps: RelayDeps,
	caller: Pick<AccountCaller, "workspaceId" | "accountId">,
	p: Awaited<ReturnType<typeof plan>>,
	grant: { linkId: string; token: string; label: string; identityId: string | undefined },
	server: string,
	slug: string,
): Promise<{ minted: string[]; keys: Record<string, string> }> {
	const { now } = deps;
	return deps.db.transaction().execute(async (trx) => {
		const { minted } = await keepMinted(trx, caller.workspaceId, p, new Map(), now);
		const keys = Object.fromEntries(
			p.order.flatMap((k) => {
				const id = minted.get(k) ?? p.linked.get(k);
				return id ? [[k, id]] : [];
			}),
		);
		await renewShare(
			trx,
			grant.linkId,
			{
				id: grant.linkId,
				workspace: caller.workspaceId,
				label: grant.label,
				identity: grant.identityId ?? null,
				created_by: caller.accountId,
			},
			[...new Set(Object.values(keys))],
			now,
		);
		await store.insertGrant(trx, {
			link: grant.linkId,
			token_hash: sha256Hex(grant.token),
			keys: JSON.stringify(keys),
			peer: server,
			request_slug: slug,
			created: now,
			updated: now,
		});
		return { minted: [...minted.values()], keys };
	});
}

/** Removed as if never written: no grant event, no notification (nobody was told of it). */
function takeBackAnswer(db: Kysely<Database>, linkId: string, minted: readonly string[]) {
	return db.transaction().execute(async (trx) => {
		await store.deleteGrant(trx, linkId);
		await takeBackLink(trx, linkId);
		await takeBackRecords(trx, minted);
	});
}

/**
 * The other server's refusal, passed on with its code when it is one this server knows (a wrong
 * password, a missing challenge, ...); anything else is a server that could not be asked.
 */
function refusal(server: string, answer: { status: number; body: unknown }): AppError {
	const body = (answer.body ?? {}) as { code?: unknown; detail?: unknown };
	const code = typeof body.code === "string" ? body.code : "";
	const detail =
		typeof body.detail === "string" ? body.detail.slice(0, 500) : `${server} answered ${answer.status}`;
	if (answer.status >= 400 && answer.status < 500 && Object.hasOwn(errorCodes, code)) {
		return new AppError(code as keyof typeof errorCodes, `${server}: ${detail}`);
	}
	return unreachable(`${server} answered ${answer.status}: ${detail}`);
}

/** Another server's request as that server shows it, read through its DNS pin for the responder. */
export interface RemoteProbe {
	label: string;
	status: string;
	requiresPassword: boolean;
	requiresIdentifier: boolean;
	requireHandshake: boolean;
	allowExtraFields: boolean;
	identityScope: string;
	template: TemplateItem[];
	requester: { name: string; domain: string; identity?: { id: string; fingerprint: string; name: string } };
	server: { domain: string; fingerprint: string; origin: string };
}

const text = (v: unknown, max = 400) => (typeof v === "string" ? v.slice(0, max) : "");
const ITEM_TYPES = new Set(["text", "email", "phone", "date", "number", "url", "address", "file"]);

/** The TemplateItems of another server's probe that have the shape of one; the rest are left out. */
function remoteItems(value: unknown): TemplateItem[] {
	if (!Array.isArray(value)) return [];
	return value.slice(0, 200).flatMap((raw): TemplateItem[] => {
		const i = (raw ?? {}) as Record<string, unknown>;
		if (typeof i.key !== "string" || !/^[a-z0-9_-]{1,64}$/.test(i.key) || !ITEM_TYPES.has(String(i.type)))
			return [];
		const description = text(i.description, 500);
		return [
			{
				key: i.key,
				label: text(i.label, 200) || i.key,
				type: i.type as TemplateItem["type"],
				required: i.required === true,
				...(description ? { description } : {}),
			},
		];
	});
}

/**
 * `GET /api/requests/remote`: the request `slug` of the server `domain`, probed through that
 * server's DNS pin, so the responder sees who asks as this server verified it. `server` is the
 * pinned claim, not what the other server says of itself.
 */
export async function probeRemoteRequest(
	deps: Omit<RelayDeps, "db" | "now">,
	domain: string,
	slug: string,
): Promise<RemoteProbe> {
	const server = domain.toLowerCase();
	if (!isDomainName(server)) throw invalidField("server", "must be a domain name");
	if (server === deps.domain) throw invalidField("server", "is this server: answer the request here");
	const pin = await resolvePeerKey(server, deps.peer);
	if (pin.state !== "verified") throw unreachable(`${server}: ${pin.reason}`);
	const p = (await probeRequest(deps.peer, server, pin.base, slug)) as Record<string, unknown>;
	const requester = (p.requester ?? {}) as Record<string, unknown>;
	const who = (requester.identity ?? null) as Record<string, unknown> | null;
	return {
		label: text(p.label, 200),
		status: text(p.status, 16),
		requiresPassword: p.requiresPassword === true,
		requiresIdentifier: p.requiresIdentifier === true,
		requireHandshake: p.requireHandshake === true,
		allowExtraFields: p.allowExtraFields === true,
		identityScope: text(p.identityScope, 16),
		template: remoteItems(p.template),
		requester: {
			name: text(requester.name, 200),
			domain: server,
			...(who && typeof who.fingerprint === "string"
				? {
						identity: {
							id: text(who.id, 64),
							fingerprint: text(who.fingerprint, 64),
							name: text(who.name, 200),
						},
					}
				: {}),
		},
		server: { domain: server, fingerprint: pin.fingerprint, origin: pin.base },
	};
}
