// Held credentials (spec "Held credential", `POST /api/credentials/claim`, claim rules): a person's
// identity accepts an offer of this server or of another (`origin`), with the challenge its device
// signed for that offer. The credential is kept only after checking that the attester signed it
// with a key its DNS-pinned root key certified and that it is bound to the key and the identity
// that asked; otherwise `credential_invalid` and nothing is kept (the offer stays acceptable by
// that identity). Accepting again replaces the kept copy.
import crypto from "node:crypto";
import { decodeJwt } from "jose";
import type { Kysely } from "kysely";
import type { CredentialTable, Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError, type ErrorCode, errorCodes } from "../../http/errors.ts";
import { newId } from "../../lib/crypto.ts";
import { isDomainName, type PeerOptions, peerBase } from "../../lib/peer.ts";
import { getPeerJson, postPeerJson } from "../../lib/peer-client.ts";
import { certificateView, workspaceIdentity } from "../identity/service.ts";
import { type ClaimOfferDeps, claimOffer } from "./service.ts";
import * as store from "./store.ts";
import { type AttesterSource, type Verdict, verifyPresentation } from "./verify.ts";

export interface HeldClaimInput {
	origin?: string | undefined;
	token: string;
	identityId: string;
	challengeNonce: string;
	challengeSignature: string;
}

export interface HeldDeps {
	db: Kysely<Database>;
	/** This server's own offers are claimed in-process. */
	local: ClaimOfferDeps;
	source: AttesterSource;
	peer: PeerOptions;
	now: number;
}

/** The offer's server: this one when `origin` is left out; http only for a PEER_OVERRIDES domain. */
export function offerServer(
	origin: string | undefined,
	local: string,
	peer: PeerOptions,
	field = "body.origin",
): { domain: string; base: string } | null {
	if (origin === undefined) return null;
	let url: URL;
	try {
		url = new URL(origin);
	} catch {
		throw new AppError("validation_failed", "origin must be the offer server's address", {
			extra: { field },
		});
	}
	const domain = url.hostname.toLowerCase();
	const overridden = domain in peer.peerOverrides;
	const plain = url.protocol === "http:";
	if (
		(url.protocol !== "https:" && !plain) ||
		(plain && !overridden) ||
		url.pathname !== "/" ||
		url.search !== "" ||
		url.username !== "" ||
		!isDomainName(domain)
	) {
		throw new AppError(
			"validation_failed",
			"origin must be https://<domain> (http only for a PEER_OVERRIDES domain)",
			{ extra: { field } },
		);
	}
	if (domain === local) return null;
	return { domain, base: overridden ? peerBase(domain, peer) : url.origin };
}

/** A refusal of the offer's server, passed on with its own code when it is one of ours. */
export function passOn(status: number, body: unknown): AppError {
	const code = (body as { code?: unknown })?.code;
	const detail = (body as { detail?: unknown })?.detail;
	if (typeof code === "string" && code in errorCodes && status >= 400 && status < 500) {
		return new AppError(code as ErrorCode, typeof detail === "string" ? detail : undefined, { status });
	}
	return new AppError("remote_unreachable", `the offer's server answered ${status}`);
}

/**
 * A GET to the offer's server (its offer view, a challenge for the claim), relayed for the
 * console, whose page cannot call another server: its refusals passed on with their codes, 502
 * `remote_unreachable` when it cannot be asked.
 */
export async function relayFromOfferServer(
	base: string,
	path: string,
	peer: PeerOptions,
): Promise<Record<string, unknown>> {
	let answer: { status: number; body: unknown };
	try {
		answer = await getPeerJson(`${base}${path}`, { ...peer, timeoutMs: 10_000 });
	} catch (err) {
		throw new AppError("remote_unreachable", (err as Error).message);
	}
	if (answer.status !== 200 || typeof answer.body !== "object" || answer.body === null)
		throw passOn(answer.status, answer.body);
	return answer.body as Record<string, unknown>;
}

export async function claimHeld(
	deps: HeldDeps,
	caller: AccountCaller,
	input: HeldClaimInput,
): Promise<CredentialTable> {
	const { db, now } = deps;
	const identity = await workspaceIdentity(db, caller.workspaceId, input.identityId);
	if (!identity) throw new AppError("not_found", "No such identity in this workspace");
	if (identity.status !== "active") throw new AppError("identity_revoked");
	const half = certificateView(identity);
	const body = {
		identity: { ...half, domainAtIssue: identity.domain_at_issue },
		challengeNonce: input.challengeNonce,
		challengeSignature: input.challengeSignature,
	};

	const remote = offerServer(input.origin, deps.local.domain, deps.peer);
	let credential: string;
	let attester: string;
	if (!remote) {
		({ credential, issuer: attester } = await claimOffer(deps.local, input.token, body));
	} else {
		let answer: { status: number; body: unknown };
		try {
			answer = await postPeerJson(
				`${remote.base}/api/attestations/offers/${encodeURIComponent(input.token)}/claim`,
				body,
				{ ...deps.peer, timeoutMs: 10_000 },
			);
		} catch (err) {
			throw new AppError("remote_unreachable", (err as Error).message);
		}
		if (answer.status !== 200) throw passOn(answer.status, answer.body);
		const got = answer.body as { credential?: unknown };
		if (typeof got?.credential !== "string")
			throw new AppError("credential_invalid", "the answer holds no credential");
		credential = got.credential;
		attester = remote.domain;
	}

	// Signed by a key tied to the attester's domain, about this identity, bound to its key.
	const verdict = await verifyPresentation(deps.source, { presentation: credential, held: true });
	const payload = readPayload(credential);
	const cnf = (payload?.cnf as { jwk?: { x?: unknown; y?: unknown } } | undefined)?.jwk;
	const key = crypto.createPublicKey(identity.public_key).export({ format: "jwk" });
	const holder = payload?.svc_holder as { fingerprint?: unknown; domain?: unknown } | undefined;
	const problems = [
		["spoofed", "dnsMissing", "invalid"].includes(verdict.state)
			? `the attester's signature: ${verdict.reason}`
			: "",
		verdict.claims === undefined ? "the attester's signature was not verified" : "",
		verdict.issuer !== attester ? `issued by ${verdict.issuer}, not ${attester}` : "",
		cnf?.x !== key.x || cnf?.y !== key.y ? "not bound to the identity's key" : "",
		holder?.fingerprint !== identity.fingerprint || holder?.domain !== deps.local.domain
			? "about another identity"
			: "",
	].filter((p) => p !== "");
	if (problems.length > 0) throw new AppError("credential_invalid", problems[0]);

	const ref = (payload?.status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)
		?.status_list;
	const row: CredentialTable = {
		id: newId(),
		account: caller.accountId,
		identity: identity.id,
		issuer: attester,
		status_ref: `${String(ref?.uri)}#${String(ref?.idx)}`,
		type: verdict.type,
		credential,
		claims: JSON.stringify(verdict.claims ?? {}),
		issued_at: (verdict.issuedAt ?? Math.floor(now / 1000)) * 1000,
		expires_at: verdict.expiresAt === undefined ? null : verdict.expiresAt * 1000,
		created: now,
		updated: now,
	};
	await store.upsertCredential(db, row, now);
	return store.credentialByRef(db, { identity: identity.id, issuer: attester, status_ref: row.status_ref });
}

function readPayload(credential: string): Record<string, unknown> | undefined {
	try {
		return decodeJwt(credential.split("~")[0] as string);
	} catch {
		return undefined;
	}
}

/** `GET /api/credentials/{id}/status`: the verify verdict of the kept credential, without key binding. */
export function heldStatus(source: AttesterSource, row: CredentialTable): Promise<Verdict> {
	return verifyPresentation(source, { presentation: row.credential, held: true });
}

export function credentialRecord(row: CredentialTable) {
	return {
		id: row.id,
		issuer: row.issuer,
		type: row.type,
		identity: row.identity,
		credential: row.credential,
		claims: JSON.parse(row.claims) as Record<string, unknown>,
		issuedAt: new Date(row.issued_at).toISOString(),
		expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
	};
}

/**
 * The claim, for the `credentials` collection's create: decorated on the app before the plugins
 * load (`app.credentialClaim`), filled in by the attestations plugin, which holds the key ring and
 * the peer options the claim needs.
 */
export interface CredentialClaimer {
	claim?: (caller: AccountCaller, input: HeldClaimInput) => Promise<CredentialTable>;
}

declare module "fastify" {
	interface FastifyInstance {
		credentialClaim: CredentialClaimer;
	}
}
