// The authorization page's steps (spec "OpenID Connect provider", "Authorization rules"): the
// checked request kept for the page, a passkey sign-in that yields a one-time consent ticket, and
// the person's answer, which yields a one-time code for the scopes kept and the entries chosen.
import type { OidcCodeTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { spendLoginCode } from "../passkeys/service.ts";
import {
	type AuthorizeRequest,
	OPTIONAL_SCOPES,
	type OptionalScope,
	redirectWith,
} from "./authorize-checks.ts";
import { CODE_TTL_MS, type Deps, REQUEST_TTL_MS, TICKET_TTL_MS } from "./protocol.ts";
import * as store from "./store.ts";

/** Keeps a checked authorization request for the page; answers the handle the page carries. */
export async function openRequest(
	deps: Deps,
	request: AuthorizeRequest,
	issuer: string,
	lang: string,
): Promise<string> {
	const handle = randomToken(32);
	await store.sweep(deps.db, deps.now);
	await store.insertRequest(deps.db, {
		hash: sha256Hex(handle),
		client_id: request.clientId,
		redirect_uri: request.redirectUri,
		scopes: request.scopes.join(" "),
		state: request.state ?? null,
		nonce: request.nonce ?? null,
		code_challenge: request.codeChallenge,
		keys: JSON.stringify(request.keys),
		issuer,
		lang,
		ticket_hash: null,
		account: null,
		auth_time: null,
		created: deps.now,
		expires: deps.now + REQUEST_TTL_MS,
	});
	return handle;
}

const invalidRequest = (detail: string) => new AppError("oidc_request_invalid", detail);

export interface ConsentData {
	ticket: string;
	expiresAt: string;
	client: string;
	account: { name: string; email: string };
	/** Each optional scope asked for, with what it would reveal. */
	scopes: { scope: OptionalScope; reveals: Record<string, string | boolean> }[];
	/** Each requested key with the person's entries under it. */
	keys: { key: string; entries: { id: string; name: string; type: "value" | "file"; hidden: boolean }[] }[];
}

/**
 * `POST /oidc/authorize/session`: the page's passkey code (spent, right or wrong) signs the person
 * in for this one request; the request takes one ticket, and the answer lists what consent decides.
 */
export async function signIn(
	deps: Deps,
	input: { request: string; code: string; verifier: string },
): Promise<ConsentData> {
	const { db, now } = deps;
	const hash = sha256Hex(input.request);
	const request = await store.openRequest(db, hash, now);
	if (!request) throw invalidRequest("The sign-in request is unknown, expired or already signed in to");
	const account = await spendLoginCode(db, { code: input.code, verifier: input.verifier }, now);
	const ticket = randomToken(32);
	const expires = Math.min(request.expires, now + TICKET_TTL_MS);
	const set = await store.setTicket(
		db,
		hash,
		{ ticket_hash: sha256Hex(ticket), account: account.id, auth_time: now, expires },
		now,
	);
	if (!set) throw invalidRequest("The sign-in request was signed in to already");

	const workspace = await store.personalWorkspace(db, account.id);
	const scopes = request.scopes
		.split(" ")
		.filter((s): s is OptionalScope => (OPTIONAL_SCOPES as readonly string[]).includes(s));
	const identity = workspace ? await store.primaryIdentity(db, workspace.id, account.id) : undefined;
	const reveals: Record<OptionalScope, Record<string, string | boolean>> = {
		profile: { name: account.name },
		email: { email: account.email, email_verified: account.email_verified_at !== null },
		svc_identity: identity ? { svc_identity: identity.fingerprint } : {},
	};
	const keys = JSON.parse(request.keys) as string[];
	const entries = workspace ? await store.entriesWithKeys(db, workspace.id, keys) : [];
	return {
		ticket,
		expiresAt: new Date(expires).toISOString(),
		client: request.client_id,
		account: { name: account.name, email: account.email },
		scopes: scopes.map((scope) => ({ scope, reveals: reveals[scope] })),
		keys: keys.map((key) => ({
			key,
			entries: entries
				.filter((e) => e.key === key)
				.map((e) => ({ id: e.id, name: e.name, type: e.kind, hidden: e.hidden === 1 })),
		})),
	};
}

/**
 * `POST /oidc/authorize/consent`: the ticket is spent first (right or wrong). Declining answers
 * `access_denied`; approving answers a one-time code for the scopes kept and the entries chosen.
 */
export async function consent(
	deps: Deps,
	input: { ticket: string; approve: boolean; scopes: string[]; links: Record<string, string> },
): Promise<{ redirect: string }> {
	const { db, now } = deps;
	const request = await store.spendTicket(db, sha256Hex(input.ticket));
	if (!request || request.expires <= now || !request.account || request.auth_time === null) {
		throw invalidRequest("The consent ticket is unknown, expired or already used");
	}
	const back = (params: Record<string, string | undefined>) => ({
		redirect: redirectWith(request.redirect_uri, {
			...params,
			state: request.state ?? undefined,
			iss: request.issuer,
		}),
	});
	if (!input.approve) {
		return back({ error: "access_denied", error_description: "The person declined the sign-in" });
	}

	const asked = request.scopes.split(" ").filter((s) => s !== "");
	const extra = input.scopes.filter((s) => !asked.includes(s));
	if (extra.length > 0) throw invalidRequest(`scopes ${extra.join(", ")} were not asked for`);
	const keys = JSON.parse(request.keys) as string[];
	const unasked = Object.keys(input.links).filter((k) => !keys.includes(k));
	if (unasked.length > 0) throw invalidRequest(`links answers keys not asked for: ${unasked.join(", ")}`);
	const chosen = Object.entries(input.links);
	if (chosen.length > 0) {
		const workspace = await store.personalWorkspace(db, request.account);
		const ids = [...new Set(chosen.map(([, id]) => id))];
		const found = workspace ? await store.recordsOf(db, workspace.id, ids) : [];
		if (found.length !== ids.length) {
			throw new AppError("oidc_link_record_invalid", "Each linked entry must be one of your own entries");
		}
	}

	const code = randomToken(32);
	const row: OidcCodeTable = {
		hash: sha256Hex(code),
		account: request.account,
		client_id: request.client_id,
		redirect_uri: request.redirect_uri,
		code_challenge: request.code_challenge,
		scopes: asked.filter((s) => input.scopes.includes(s)).join(" "),
		nonce: request.nonce,
		issuer: request.issuer,
		auth_time: request.auth_time,
		links: JSON.stringify(Object.fromEntries(chosen)),
		created: now,
		expires: now + CODE_TTL_MS,
	};
	await store.insertCode(db, row);
	return back({ code });
}
