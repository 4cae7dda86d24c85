// The OpenID Connect provider: requests, codes, tokens and the one link per person and service.
// Typed tables; the conventions (times, booleans, JSON) are in ../schema.ts.

/** An authorization request the sign-in page was opened for (fixed at GET /oidc/authorize). */
export interface OidcRequestTable {
	hash: string;
	client_id: string;
	redirect_uri: string;
	/** Space-separated optional scopes asked for; `openid` is implied. */
	scopes: string;
	state: string | null;
	nonce: string | null;
	code_challenge: string;
	/** JSON array of the vault keys asked for through `claims`. */
	keys: string;
	issuer: string;
	lang: string;
	/** Set once by the passkey sign-in; the consent spends the row. */
	ticket_hash: string | null;
	account: string | null;
	auth_time: number | null;
	created: number;
	expires: number;
}

export interface OidcCodeTable {
	hash: string;
	account: string;
	client_id: string;
	redirect_uri: string;
	code_challenge: string;
	scopes: string;
	nonce: string | null;
	issuer: string;
	auth_time: number;
	/** JSON object: requested key -> the person's record that answers it. */
	links: string;
	created: number;
	expires: number;
}

export interface OidcTokenTable {
	hash: string;
	account: string;
	client_id: string;
	scopes: string;
	issuer: string;
	link: string | null;
	/** JSON array of the keys the link answers for this service. */
	keys: string;
	created: number;
	expires: number;
}

/** The one sign-in link per person and service. */
export interface OidcLinkTable {
	account: string;
	client_id: string;
	link: string;
	updated: number;
}
