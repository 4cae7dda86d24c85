// The provider's flow (spec "OpenID Connect provider"): an authorization request fixed at the page,
// a passkey sign-in that yields a one-time consent ticket, a consent that yields a one-time code,
// the code exchanged with its PKCE verifier for an ID token and an access token, and userinfo.
// Entries a person shares become one link per person and service, read with a grant token the
// service receives at userinfo only.
import crypto from "node:crypto";
import { SignJWT } from "jose";
import type { Kysely } from "kysely";
import { type Config, publicOrigin } from "../../config.ts";
import type { Database, OidcCodeTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { verifierMatches } from "../../lib/oauth.ts";
import { accountById } from "../accounts/service.ts";
import { spendLoginCode } from "../passkeys/service.ts";
import type { KeyRingCache } from "../server/certified-keys.ts";
import type { RootKey } from "../server/root-key.ts";
import { createLink, effectiveStatus } from "../shares/lifecycle.ts";
import { replaceGrants } from "../shares/store.ts";
import { type AuthorizeRequest, OPTIONAL_SCOPES, type OptionalScope, redirectWith } from "./request.ts";
import * as store from "./store.ts";

const MINUTE = 60_000;
/** The page's request: long enough to find a passkey and choose entries. */
export const REQUEST_TTL_MS = 15 * MINUTE;
/** The consent ticket, from the passkey sign-in to the person's answer. */
export const TICKET_TTL_MS = 10 * MINUTE;
/** An authorization code: the service exchanges it right after the redirect. */
export const CODE_TTL_MS = MINUTE;
export const ID_TOKEN_TTL_S = 600;
export const ACCESS_TOKEN_TTL_S = 3600;

/** An OAuth error (RFC 6749 5.2, RFC 6750 3.1): answered as `{error, error_description}`. */
export class OAuthError extends Error {
	constructor(
		readonly error: string,
		readonly description: string,
		readonly status = 400,
	) {
		super(description);
		this.name = "OAuthError";
	}
}

/**
 * The issuer for a request's Host (spec): a `localhost` Host answers as `http://localhost:<port>`,
 * any other Host as the configured domain.
 */
export function issuerFor(config: Pick<Config, "domain" | "port">, host: string | undefined): string {
	const m = /^localhost(?::(\d{1,5}))?$/i.exec(host ?? "");
	if (m) return `http://localhost:${m[1] ?? config.port}`;
	return publicOrigin(config);
}

/** The pairwise subject: an HMAC of the person and the service's origin under a key of this server. */
export function pairwiseSub(rootKey: RootKey, accountId: string, clientId: string): string {
	const key = Buffer.from(
		crypto.hkdfSync(
			"sha256",
			rootKey.privateKey.export({ type: "pkcs8", format: "der" }),
			Buffer.alloc(0),
			"svc oidc pairwise subject v1",
			32,
		),
	);
	return crypto.createHmac("sha256", key).update(`${accountId}\n${clientId}`).digest("base64url");
}

/** The grant token a service receives for a sign-in's link, derived from that sign-in's access token. */
export function grantTokenFor(accessToken: string): string {
	return Buffer.from(
		crypto.hkdfSync("sha256", accessToken, Buffer.alloc(0), "svc oidc grant token v1", 32),
	).toString("base64url");
}

export interface Deps {
	db: Kysely<Database>;
	now: number;
}

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
		email: { email: account.email, email_verified: false },
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

export interface TokenForm {
	grant_type?: string | undefined;
	code?: string | undefined;
	client_id?: string | undefined;
	redirect_uri?: string | undefined;
	code_verifier?: string | undefined;
}

export interface TokenAnswer {
	access_token: string;
	token_type: "Bearer";
	expires_in: number;
	id_token: string;
	scope: string;
}

/**
 * `POST /oidc/token`: the code is spent the moment it is presented; client, redirect address and
 * verifier must be the authorization request's. Entries the person chose become (or update) the
 * person's one link for the service, with a fresh grant token.
 */
export async function exchange(
	deps: Deps & { rootKey: RootKey; keys: KeyRingCache },
	form: TokenForm,
): Promise<TokenAnswer> {
	const { db, now } = deps;
	if (!form.grant_type) throw new OAuthError("invalid_request", "grant_type is missing");
	if (form.grant_type !== "authorization_code") {
		throw new OAuthError("unsupported_grant_type", "only grant_type=authorization_code");
	}
	if (!form.code) throw new OAuthError("invalid_request", "code is missing");
	const code = await store.spendCode(db, sha256Hex(form.code));
	for (const name of ["client_id", "redirect_uri", "code_verifier"] as const) {
		if (!form[name]) throw new OAuthError("invalid_request", `${name} is missing`);
	}
	if (!code) throw new OAuthError("invalid_grant", "the code is unknown or already used");
	if (code.expires <= now) throw new OAuthError("invalid_grant", "the code has expired");
	if (code.client_id !== form.client_id) throw new OAuthError("invalid_grant", "client_id is not the code's");
	if (code.redirect_uri !== form.redirect_uri) {
		throw new OAuthError("invalid_grant", "redirect_uri is not the authorization request's");
	}
	if (!verifierMatches(code.code_challenge, form.code_verifier ?? "")) {
		throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
	}
	const account = await accountById(db, code.account);
	if (!account) throw new OAuthError("invalid_grant", "the account no longer exists");

	const accessToken = randomToken(32);
	const shared = await shareEntries(db, code, grantTokenFor(accessToken), now);
	await store.insertToken(db, {
		hash: sha256Hex(accessToken),
		account: account.id,
		client_id: code.client_id,
		scopes: code.scopes,
		issuer: code.issuer,
		link: shared?.link ?? null,
		keys: JSON.stringify(shared?.keys ?? []),
		created: now,
		expires: now + ACCESS_TOKEN_TTL_S * 1000,
	});

	const scopes = code.scopes.split(" ").filter((s) => s !== "");
	const claims = await scopeClaims(db, account, scopes);
	const ring = await deps.keys.get();
	const iat = Math.floor(now / 1000);
	const idToken = await new SignJWT({
		...claims,
		auth_time: Math.floor(code.auth_time / 1000),
		...(code.nonce ? { nonce: code.nonce } : {}),
	})
		.setProtectedHeader({ alg: "RS256", kid: ring.current.kid, typ: "JWT" })
		.setIssuer(code.issuer)
		.setAudience(code.client_id)
		.setSubject(pairwiseSub(deps.rootKey, account.id, code.client_id))
		.setIssuedAt(iat)
		.setExpirationTime(iat + ID_TOKEN_TTL_S)
		.sign(ring.current.privateKey);
	return {
		access_token: accessToken,
		token_type: "Bearer",
		expires_in: ACCESS_TOKEN_TTL_S,
		id_token: idToken,
		scope: ["openid", ...scopes].join(" "),
	};
}

/** The claims of granted scopes. `email_verified` is false: this server never mails anyone. */
async function scopeClaims(
	db: Kysely<Database>,
	account: { id: string; name: string; email: string },
	scopes: readonly string[],
): Promise<Record<string, string | boolean>> {
	const claims: Record<string, string | boolean> = {};
	if (scopes.includes("profile")) claims.name = account.name;
	if (scopes.includes("email")) {
		claims.email = account.email;
		claims.email_verified = false;
	}
	if (scopes.includes("svc_identity")) {
		const workspace = await store.personalWorkspace(db, account.id);
		const identity = workspace ? await store.primaryIdentity(db, workspace.id, account.id) : undefined;
		if (identity) claims.svc_identity = identity.fingerprint;
	}
	return claims;
}

/**
 * Makes the chosen entries the person's one link for the service: found (unless revoked) or made,
 * its entries replaced by these, its grant given a fresh token. Entries deleted since the consent
 * are left out; nothing left, nothing shared.
 */
async function shareEntries(
	db: Kysely<Database>,
	code: OidcCodeTable,
	grantToken: string,
	now: number,
): Promise<{ link: string; keys: string[] } | undefined> {
	const chosen = Object.entries(JSON.parse(code.links) as Record<string, string>);
	if (chosen.length === 0) return undefined;
	const workspace = await store.personalWorkspace(db, code.account);
	if (!workspace) return undefined;
	const found = new Set(
		(
			await store.recordsOf(
				db,
				workspace.id,
				chosen.map(([, id]) => id),
			)
		).map((r) => r.id),
	);
	const keys = Object.fromEntries(chosen.filter(([, id]) => found.has(id)));
	const records = [...new Set(Object.values(keys))];
	if (records.length === 0) return undefined;

	// Two sign-ins of one person to one service at once: the one that loses the slot runs again and
	// finds the winner's link.
	for (let attempt = 1; ; attempt++) {
		try {
			return await linkEntries(db, code, workspace.id, records, keys, grantToken, now);
		} catch (err) {
			if (!(err instanceof SlotTaken) || attempt >= 3) throw err;
		}
	}
}

class SlotTaken extends Error {}

async function linkEntries(
	db: Kysely<Database>,
	code: OidcCodeTable,
	workspace: string,
	records: string[],
	keys: Record<string, string>,
	grantToken: string,
	now: number,
): Promise<{ link: string; keys: string[] }> {
	return db.transaction().execute(async (trx) => {
		// Writing the slot first holds it until this transaction ends: a second sign-in of the same
		// person to the same service waits here and then sees this one's link.
		// Without a slot to hold, a slot another sign-in makes meanwhile is not read here: claiming
		// one below then fails, and the retry holds it.
		const held = await store.touchSlot(trx, code.account, code.client_id, now);
		const slot = held ? await store.signInSlot(trx, code.account, code.client_id) : undefined;
		const link = slot?.link;
		let id: string;
		if (link && link.status !== "revoked" && effectiveStatus(link, now) !== "expired") {
			id = link.id;
			await replaceGrants(trx, id, records, []);
			await trx.updateTable("links").set({ updated: now }).where("id", "=", id).execute();
		} else {
			// None yet, or the person revoked or deleted it: a new link for the service.
			id = await createLink(
				trx,
				{
					workspace,
					created_by: code.account,
					label: `Sign-in: ${new URL(code.client_id).host}`,
					sign_in_client: code.client_id,
				},
				{ records, sections: [] },
				now,
			);
			const claimed = slot
				? await store.replaceSignInLink(trx, code.account, code.client_id, slot.linkId, id, now)
				: await store.claimSignInLink(trx, code.account, code.client_id, id, now);
			if (!claimed) throw new SlotTaken();
		}
		await store.setGrant(trx, id, sha256Hex(grantToken), keys, now);
		return { link: id, keys: Object.keys(keys) };
	});
}

export interface UserInfo {
	sub: string;
	[claim: string]: unknown;
}

/** `/oidc/userinfo`: the claims of the granted scopes, and the sign-in's grant when it shared entries. */
export async function userinfo(
	deps: Deps & { rootKey: RootKey },
	accessToken: string | undefined,
): Promise<UserInfo> {
	if (!accessToken) throw new OAuthError("invalid_token", "no access token was sent", 401);
	const token = await store.liveToken(deps.db, sha256Hex(accessToken), deps.now);
	if (!token) throw new OAuthError("invalid_token", "the access token is unknown or expired", 401);
	const account = await accountById(deps.db, token.account);
	if (!account) throw new OAuthError("invalid_token", "the account no longer exists", 401);
	const scopes = token.scopes.split(" ").filter((s) => s !== "");
	const info: UserInfo = {
		sub: pairwiseSub(deps.rootKey, account.id, token.client_id),
		...(await scopeClaims(deps.db, account, scopes)),
	};
	if (token.link) {
		info.svc_links = {
			endpoint: `${token.issuer}/api/grants/resolve`,
			grants: [
				{ id: token.link, token: grantTokenFor(accessToken), keys: JSON.parse(token.keys) as string[] },
			],
		};
	}
	return info;
}
