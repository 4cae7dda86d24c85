// The checks of `GET /oidc/authorize` as small named checks, run in the order the spec needs them
// (reading the two lists tells the gates): first the two that decide where a refusal may go (the
// client's origin, the redirect address on it); a refusal before they pass is shown on the page,
// never redirected. Every later refusal goes back to the service with `error`, `state` and `iss`
// (RFC 6749 4.1.2.1, RFC 9207).
import { AppLinkError, parseToolOrigin } from "../../lib/app-links.ts";
import { isRedirectOnOrigin, isS256Challenge } from "../../lib/oauth.ts";
import { KEY_PATTERN } from "../collections/fields.ts";

/** Optional scopes; `openid` is required. */
export const OPTIONAL_SCOPES = ["profile", "email", "svc_identity"] as const;
export type OptionalScope = (typeof OPTIONAL_SCOPES)[number];
export const MAX_KEYS = 20;
/** `state` and `nonce` are echoed into tokens and addresses: bounded. */
export const MAX_ECHO = 500;
/** A vault entry's key, as the vault spells keys. */
const KEY = new RegExp(KEY_PATTERN);

export interface AuthorizeRequest {
	clientId: string;
	redirectUri: string;
	scopes: OptionalScope[];
	state: string | undefined;
	nonce: string | undefined;
	codeChallenge: string;
	keys: string[];
}

export type Checked =
	| { kind: "ok"; request: AuthorizeRequest }
	/** Not tied to a checked origin and redirect address: a 400 page. */
	| { kind: "shown"; detail: string }
	/** Sent back to the service. */
	| { kind: "redirect"; redirectUri: string; state: string | undefined; error: string; detail: string };

/** The vault keys asked for in `claims`: `{"userinfo": {"svc_links": {"values": [keys]}}}`. */
function claimKeys(raw: string): string[] | string {
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw);
	} catch {
		return "claims must be a JSON object";
	}
	if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return "claims must be a JSON object";
	const userinfo = (parsed as { userinfo?: unknown }).userinfo;
	if (userinfo === undefined || userinfo === null) return [];
	if (typeof userinfo !== "object" || Array.isArray(userinfo)) return "claims.userinfo must be an object";
	const links = (userinfo as { svc_links?: unknown }).svc_links;
	if (links === undefined || links === null) return [];
	if (typeof links !== "object" || Array.isArray(links)) return "claims.userinfo.svc_links must be an object";
	const values = (links as { values?: unknown }).values;
	if (values === undefined) return [];
	if (!Array.isArray(values)) return "claims.userinfo.svc_links.values must be an array of keys";
	const keys: string[] = [];
	for (const v of values) {
		if (typeof v !== "string" || !KEY.test(v))
			return `claims.userinfo.svc_links.values: ${JSON.stringify(v)} is not a key`;
		if (!keys.includes(v)) keys.push(v);
	}
	if (keys.length > MAX_KEYS) return `claims asks for ${keys.length} keys; at most ${MAX_KEYS}`;
	return keys;
}

type Query = Record<string, unknown>;

/** What the checks found so far: each check that passes fills in its part. */
type Found = Partial<AuthorizeRequest>;

/** A check before the redirect address is known: its refusal is shown on the page. */
type PageCheck = (query: Query, found: Found, options: { allowLoopback: boolean }) => string | undefined;

/** A refusal sent back to the service: the OAuth error and its description. */
interface Refusal {
	error: string;
	detail: string;
}
type RequestCheck = (query: Query, found: Found) => Refusal | undefined;

const invalid = (detail: string): Refusal => ({ error: "invalid_request", detail });

/** One value of a parameter: a repeated parameter is malformed (RFC 6749 3.1). */
function single(query: Query, name: string): string | undefined | null {
	const v = query[name];
	if (v === undefined) return undefined;
	return typeof v === "string" ? v : null;
}

/** client_id: given once, the service's origin (a loopback origin only when DOMAIN is localhost). */
const checkClient: PageCheck = (query, found, options) => {
	const clientId = single(query, "client_id");
	if (!clientId) return "client_id is missing or given twice";
	try {
		parseToolOrigin(clientId, { allowLoopback: options.allowLoopback }, "client_id");
	} catch (err) {
		if (err instanceof AppLinkError) return `client_id ${err.message}`;
		throw err;
	}
	found.clientId = clientId;
	return undefined;
};

/** redirect_uri: given once, an absolute address on client_id's origin without credentials or fragment. */
const checkRedirectUri: PageCheck = (query, found) => {
	const redirectUri = single(query, "redirect_uri");
	if (!redirectUri) return "redirect_uri is missing or given twice";
	const clientId = found.clientId ?? "";
	if (!isRedirectOnOrigin(redirectUri, clientId)) {
		return `redirect_uri must be an absolute address on ${clientId}, without credentials or fragment`;
	}
	found.redirectUri = redirectUri;
	return undefined;
};

/** state: one value of at most 500 characters; once it passes, every later refusal echoes it. */
const checkState: RequestCheck = (query, found) => {
	const state = single(query, "state");
	if (state === null || (state !== undefined && state.length > MAX_ECHO)) {
		return invalid(`state must be one value of at most ${MAX_ECHO} characters`);
	}
	found.state = state;
	return undefined;
};

/** Request objects, by value or by reference, are not supported. */
const checkNoRequestObject: RequestCheck = (query) => {
	if (query.request !== undefined)
		return { error: "request_not_supported", detail: "request objects are not supported" };
	if (query.request_uri !== undefined)
		return { error: "request_uri_not_supported", detail: "request_uri is not supported" };
	return undefined;
};

/** response_type: the authorization code flow only. */
const checkResponseType: RequestCheck = (query) => {
	const responseType = single(query, "response_type");
	if (!responseType) return invalid("response_type is missing or given twice");
	if (responseType !== "code") {
		return {
			error: "unsupported_response_type",
			detail: "only the authorization code flow (response_type=code)",
		};
	}
	return undefined;
};

/** scope: `openid`, plus any of the optional scopes and nothing else. */
const checkScope: RequestCheck = (query, found) => {
	const scope = single(query, "scope");
	if (!scope) return invalid("scope is missing or given twice");
	const asked = scope.split(" ").filter((s) => s !== "");
	if (!asked.includes("openid")) return { error: "invalid_scope", detail: "scope must include openid" };
	const unknown = asked.filter((s) => s !== "openid" && !(OPTIONAL_SCOPES as readonly string[]).includes(s));
	if (unknown.length > 0) {
		return {
			error: "invalid_scope",
			detail: `unknown scope ${unknown.join(", ")}; offered: openid ${OPTIONAL_SCOPES.join(" ")}`,
		};
	}
	found.scopes = OPTIONAL_SCOPES.filter((s) => asked.includes(s));
	return undefined;
};

/** PKCE is required, with S256 (RFC 7636). */
const checkPkce: RequestCheck = (query, found) => {
	const method = single(query, "code_challenge_method");
	const challenge = single(query, "code_challenge");
	if (method !== "S256") return invalid("PKCE is required: code_challenge_method=S256");
	if (!challenge || !isS256Challenge(challenge)) {
		return invalid("code_challenge must be a PKCE S256 challenge (43 base64url characters)");
	}
	found.codeChallenge = challenge;
	return undefined;
};

/** nonce: optional, one value of 1 to 500 characters (it is echoed into the ID token). */
const checkNonce: RequestCheck = (query, found) => {
	const nonce = single(query, "nonce");
	if (nonce === null || (nonce !== undefined && (nonce.length === 0 || nonce.length > MAX_ECHO))) {
		return invalid(`nonce must be one value of 1 to ${MAX_ECHO} characters`);
	}
	found.nonce = nonce;
	return undefined;
};

/** claims: optional, once, asking for at most 20 vault keys through userinfo.svc_links.values. */
const checkClaims: RequestCheck = (query, found) => {
	const raw = single(query, "claims");
	if (raw === null) return invalid("claims is given twice");
	const keys = raw === undefined ? [] : claimKeys(raw);
	if (typeof keys === "string") return invalid(keys);
	found.keys = keys;
	return undefined;
};

/**
 * prompt=none always answers login_required (spec "OpenID Connect provider"): there is no provider
 * session. So it is the first check once the redirect address is known, before any fault of the
 * rest of the request (a missing PKCE challenge, an unknown scope, a repeated prompt) could answer
 * otherwise; `state` is echoed when it is one value of at most 500 characters.
 */
const checkPrompt: RequestCheck = (query, found) => {
	const values = [query.prompt].flat().filter((v): v is string => typeof v === "string");
	if (values.some((v) => v.split(" ").includes("none"))) {
		const state = single(query, "state");
		if (typeof state === "string" && state.length <= MAX_ECHO) found.state = state;
		return {
			error: "login_required",
			detail: "there is no provider session: the person signs in with a passkey each time",
		};
	}
	if (single(query, "prompt") === null) return invalid("prompt is given twice");
	return undefined;
};

/** Where a refusal may go, in order: until both pass, a refusal is shown on the page. */
export const PAGE_CHECKS: readonly PageCheck[] = [checkClient, checkRedirectUri];

/** The rest of the request, in order: a refusal goes back to the checked redirect address. */
export const REQUEST_CHECKS: readonly RequestCheck[] = [
	checkPrompt,
	checkState,
	checkNoRequestObject,
	checkResponseType,
	checkScope,
	checkPkce,
	checkNonce,
	checkClaims,
];

export function checkAuthorize(query: Query, options: { allowLoopback: boolean }): Checked {
	const found: Found = {};
	for (const check of PAGE_CHECKS) {
		const detail = check(query, found, options);
		if (detail !== undefined) return { kind: "shown", detail };
	}
	for (const check of REQUEST_CHECKS) {
		const refusal = check(query, found);
		if (refusal) {
			return { kind: "redirect", redirectUri: found.redirectUri ?? "", state: found.state, ...refusal };
		}
	}
	// Every check passed, and each filled in its part.
	return { kind: "ok", request: found as AuthorizeRequest };
}

/** The service's redirect address with the answer's parameters added (RFC 6749 4.1.2, RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
	const url = new URL(redirectUri);
	for (const [name, value] of Object.entries(params))
		if (value !== undefined) url.searchParams.set(name, value);
	return url.toString();
}
