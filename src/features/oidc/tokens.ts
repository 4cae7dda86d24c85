// The service's side of the provider (spec "OpenID Connect provider"): the code exchanged with its
// PKCE verifier for an ID token and an access token, and userinfo with the claims of the granted
// scopes and the sign-in's grant when it shared entries.
import { SignJWT } from "jose";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { verifierMatches } from "../../lib/oauth.ts";
import { accountById } from "../accounts/service.ts";
import { grantStands } from "../grants/service.ts";
import type { KeyRingCache, RootKey } from "../server/service.ts";
import {
	ACCESS_TOKEN_TTL_S,
	type Deps,
	grantTokenFor,
	ID_TOKEN_TTL_S,
	OAuthError,
	pairwiseSub,
} from "./protocol.ts";
import { shareEntries } from "./shared-entries.ts";
import * as store from "./store.ts";

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

/**
 * The claims of granted scopes. `email_verified` is true only for an address confirmed through a
 * mailed link (features/accounts/verification.ts, while the server has mail on).
 */
async function scopeClaims(
	db: Kysely<Database>,
	account: { id: string; name: string; email: string; email_verified_at: number | null },
	scopes: readonly string[],
): Promise<Record<string, string | boolean>> {
	const claims: Record<string, string | boolean> = {};
	if (scopes.includes("profile")) claims.name = account.name;
	if (scopes.includes("email")) {
		claims.email = account.email;
		claims.email_verified = account.email_verified_at !== null;
	}
	if (scopes.includes("svc_identity")) {
		const workspace = await store.personalWorkspace(db, account.id);
		const identity = workspace ? await store.primaryIdentity(db, workspace.id, account.id) : undefined;
		if (identity) claims.svc_identity = identity.fingerprint;
	}
	return claims;
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
	// Only a grant that still stands is listed: one revoked, expired or deleted since this access
	// token was issued, or re-tokened by a later sign-in, would answer `not_found` or `expired`.
	const grantToken = token.link ? grantTokenFor(accessToken) : undefined;
	if (token.link && grantToken && (await grantStands(deps.db, token.link, grantToken, deps.now))) {
		info.svc_links = {
			endpoint: `${token.issuer}/api/grants/resolve`,
			grants: [{ id: token.link, token: grantToken, keys: JSON.parse(token.keys) as string[] }],
		};
	}
	return info;
}
