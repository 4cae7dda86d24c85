// `svc://signin?…` (spec "App links": "starts an OIDC sign-in through the app"): a service that
// does not know which server a person uses hands its authorization request to the person's app,
// and the app opens its own server's `/oidc/authorize` with it. The parameters are the
// authorization request's (docs/api.md "The sign-in"); the answer comes back to `redirect_uri`
// with `iss` naming the server (RFC 9207), which tells the service where to redeem the code.
// Checked here as the provider checks them, and refused whole naming the part at fault, so the
// app never opens a request the provider would turn down. Imports only the shared grammar.
import {
	AppLinkError,
	type AppLinkOptions,
	CONTROL,
	length,
	onOrigin,
	parseToolOrigin,
	readParams,
	required,
} from "./app-link-parts.ts";

/** The authorization request `svc://signin` carries, parameter names as OpenID Connect has them. */
export interface SigninRequest {
	kind: "signin";
	/** Every parameter, as the link gave it (decoded), to be sent to `/oidc/authorize` as it is. */
	params: Record<string, string>;
	/** The service's origin. */
	clientId: string;
	redirectUri: string;
	/** The requested scopes, in order. */
	scopes: string[];
}

const SIGNIN_PARAMS = [
	"client_id",
	"redirect_uri",
	"response_type",
	"scope",
	"code_challenge",
	"code_challenge_method",
	"state",
	"nonce",
	"prompt",
	"claims",
	"ui_locales",
] as const;
const SCOPES = new Set(["openid", "profile", "email", "svc_identity"]);
const VAULT_KEY = /^[a-z0-9_-]{1,64}$/;

function oneLine(value: string, name: string, max: number): string {
	if (length(value) > max || CONTROL.test(value))
		throw new AppLinkError(name, `must be one line of at most ${max} characters`);
	return value;
}

/**
 * Parses `svc://signin?client_id=…&redirect_uri=…&response_type=code&scope=openid…&code_challenge=…
 * &code_challenge_method=S256[&state][&nonce][&prompt][&claims][&ui_locales]`. Throws naming the
 * part at fault.
 */
export function parseSigninLink(link: string, options: AppLinkOptions = {}): SigninRequest {
	const p = readParams(link, "signin", SIGNIN_PARAMS);
	const clientId = parseToolOrigin(required(p, "client_id"), options, "client_id");
	const redirectUri = onOrigin("redirect_uri", required(p, "redirect_uri"), clientId);
	if (required(p, "response_type") !== "code") throw new AppLinkError("response_type", "must be `code`");
	const scopes = required(p, "scope").split(" ");
	if (!scopes.includes("openid")) throw new AppLinkError("scope", "must include openid");
	const unknown = scopes.find((s) => !SCOPES.has(s));
	if (unknown !== undefined)
		throw new AppLinkError(
			"scope",
			"must be openid plus any of profile, email, svc_identity, one space apart",
		);
	if (!/^[A-Za-z0-9_-]{43}$/.test(required(p, "code_challenge")))
		throw new AppLinkError("code_challenge", "must be a PKCE S256 challenge (43 base64url characters)");
	if (required(p, "code_challenge_method") !== "S256")
		throw new AppLinkError("code_challenge_method", "must be `S256`");
	const state = p.get("state");
	if (state !== undefined) oneLine(state, "state", 500);
	const nonce = p.get("nonce");
	if (nonce !== undefined) oneLine(nonce, "nonce", 500);
	const prompt = p.get("prompt");
	if (prompt !== undefined) oneLine(prompt, "prompt", 100);
	const locales = p.get("ui_locales");
	if (locales !== undefined) oneLine(locales, "ui_locales", 100);
	const claims = p.get("claims");
	if (claims !== undefined) checkClaims(claims);
	return { kind: "signin", params: Object.fromEntries(p), clientId, redirectUri, scopes };
}

/** `claims`: a JSON object; `userinfo.svc_links.values`, when given, at most 20 vault keys. */
function checkClaims(value: string): void {
	if (value.length > 4000) throw new AppLinkError("claims", "must be at most 4000 characters");
	let parsed: unknown;
	try {
		parsed = JSON.parse(value);
	} catch {
		throw new AppLinkError("claims", "must be a JSON object");
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
		throw new AppLinkError("claims", "must be a JSON object");
	const links = (parsed as { userinfo?: { svc_links?: { values?: unknown } } }).userinfo?.svc_links;
	if (links === undefined) return;
	const values = links?.values;
	if (
		!Array.isArray(values) ||
		!values.every((v) => typeof v === "string" && VAULT_KEY.test(v)) ||
		new Set(values).size > 20
	)
		throw new AppLinkError("claims", "userinfo.svc_links.values must be at most 20 vault keys");
}
