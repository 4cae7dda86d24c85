// What the provider's steps share (spec "OpenID Connect provider"): the lifetimes, OAuth's error
// form, the issuer a Host names, the pairwise subject and the grant token derived from an access token.
import crypto from "node:crypto";
import type { Kysely } from "kysely";
import { type Config, publicOrigin } from "../../config.ts";
import type { Database } from "../../db/schema.ts";
import type { RootKey } from "../server/service.ts";

const MINUTE = 60_000;
/** The page's request: long enough to find a passkey and choose entries. */
export const REQUEST_TTL_MS = 15 * MINUTE;
/** The consent ticket, from the passkey sign-in to the person's answer. */
export const TICKET_TTL_MS = 10 * MINUTE;
/** An authorization code: the service exchanges it right after the redirect. */
export const CODE_TTL_MS = MINUTE;
export const ID_TOKEN_TTL_S = 600;
export const ACCESS_TOKEN_TTL_S = 3600;

export interface Deps {
	db: Kysely<Database>;
	now: number;
}

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
