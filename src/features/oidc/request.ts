// The checks of `GET /oidc/authorize`, in the order the spec needs them: first the two that decide
// where a refusal may go (the client's origin, the redirect address on it); a refusal before they
// check out is shown on the page, never redirected. Every later refusal goes back to the service
// with `error`, `state` and `iss` (RFC 6749 4.1.2.1, RFC 9207).
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

type Query = Record<string, unknown>;

/** One value of a parameter: a repeated parameter is malformed (RFC 6749 3.1). */
function single(query: Query, name: string): string | undefined | null {
	const v = query[name];
	if (v === undefined) return undefined;
	return typeof v === "string" ? v : null;
}

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

export function checkAuthorize(query: Query, options: { allowLoopback: boolean }): Checked {
	const clientId = single(query, "client_id");
	if (!clientId) return { kind: "shown", detail: "client_id is missing or given twice" };
	try {
		parseToolOrigin(clientId, { allowLoopback: options.allowLoopback }, "client_id");
	} catch (err) {
		if (err instanceof AppLinkError) return { kind: "shown", detail: `client_id ${err.message}` };
		throw err;
	}
	const redirectUri = single(query, "redirect_uri");
	if (!redirectUri) return { kind: "shown", detail: "redirect_uri is missing or given twice" };
	if (!isRedirectOnOrigin(redirectUri, clientId)) {
		return {
			kind: "shown",
			detail: `redirect_uri must be an absolute address on ${clientId}, without credentials or fragment`,
		};
	}

	// From here a refusal goes back to the service. `state` goes back only when it is one bounded value.
	const rawState = single(query, "state");
	const state = typeof rawState === "string" && rawState.length <= MAX_ECHO ? rawState : undefined;
	const refuse = (error: string, detail: string): Checked => ({
		kind: "redirect",
		redirectUri,
		state,
		error,
		detail,
	});
	if (rawState === null || (typeof rawState === "string" && rawState.length > MAX_ECHO)) {
		return refuse("invalid_request", `state must be one value of at most ${MAX_ECHO} characters`);
	}
	if (query.request !== undefined)
		return refuse("request_not_supported", "request objects are not supported");
	if (query.request_uri !== undefined) {
		return refuse("request_uri_not_supported", "request_uri is not supported");
	}

	const responseType = single(query, "response_type");
	if (!responseType) return refuse("invalid_request", "response_type is missing or given twice");
	if (responseType !== "code") {
		return refuse("unsupported_response_type", "only the authorization code flow (response_type=code)");
	}

	const scope = single(query, "scope");
	if (!scope) return refuse("invalid_request", "scope is missing or given twice");
	const asked = scope.split(" ").filter((s) => s !== "");
	if (!asked.includes("openid")) return refuse("invalid_scope", "scope must include openid");
	const unknown = asked.filter((s) => s !== "openid" && !(OPTIONAL_SCOPES as readonly string[]).includes(s));
	if (unknown.length > 0) {
		return refuse(
			"invalid_scope",
			`unknown scope ${unknown.join(", ")}; offered: openid ${OPTIONAL_SCOPES.join(" ")}`,
		);
	}
	const scopes = OPTIONAL_SCOPES.filter((s) => asked.includes(s));

	const method = single(query, "code_challenge_method");
	const challenge = single(query, "code_challenge");
	if (method !== "S256") return refuse("invalid_request", "PKCE is required: code_challenge_method=S256");
	if (!challenge || !isS256Challenge(challenge)) {
		return refuse(
			"invalid_request",
			"code_challenge must be a PKCE S256 challenge (43 base64url characters)",
		);
	}

	const nonce = single(query, "nonce");
	if (nonce === null || (nonce !== undefined && (nonce.length === 0 || nonce.length > MAX_ECHO))) {
		return refuse("invalid_request", `nonce must be one value of 1 to ${MAX_ECHO} characters`);
	}

	const rawClaims = single(query, "claims");
	if (rawClaims === null) return refuse("invalid_request", "claims is given twice");
	const keys = rawClaims === undefined ? [] : claimKeys(rawClaims);
	if (typeof keys === "string") return refuse("invalid_request", keys);

	const prompt = single(query, "prompt");
	if (prompt === null) return refuse("invalid_request", "prompt is given twice");
	if (prompt?.split(" ").includes("none")) {
		return refuse(
			"login_required",
			"there is no provider session: the person signs in with a passkey each time",
		);
	}

	return {
		kind: "ok",
		request: {
			clientId,
			redirectUri,
			scopes,
			state,
			nonce: nonce ?? undefined,
			codeChallenge: challenge,
			keys,
		},
	};
}

/** The service's redirect address with the answer's parameters added (RFC 6749 4.1.2, RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
	const url = new URL(redirectUri);
	for (const [name, value] of Object.entries(params))
		if (value !== undefined) url.searchParams.set(name, value);
	return url.toString();
}
