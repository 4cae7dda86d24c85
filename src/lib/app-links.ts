// App links a tool or a service opens in the owner's app (spec "App links"): the proposal
// `svc://p`, the connection request `svc://connect`, the attestation offer `svc://a/<host>/<token>`,
// the presentation request `svc://present` and a service's sign-in `svc://signin`, and the check
// code both ends show. Used by the server, the console and the `svc` command line, so it runs in
// Node and in browsers and imports nothing but its parts: app-link-parts.ts (the shared grammar),
// credential-links.ts and signin-link.ts.
//
// Exported API:
//   parseProposalLink(link, options?)  -> Proposal           `svc://p?…`
//   parseConnectLink(link, options?)   -> ConnectRequest     `svc://connect?…`
//   parseToolOrigin(value, options?)   -> string             a tool origin, as `client` takes it
//   parseAuthLink(link)                -> AuthLink           `svc://auth?code=…&state=…`
//   parseOfferLink(link)               -> OfferLink          `svc://a/<host>/<token>`
//   parsePresentLink(link, options?)   -> PresentRequest     `svc://present?…`
//   parseSigninLink(link, options?)    -> SigninRequest      `svc://signin?…` (an OIDC authorization request)
//   parseAppLink(link, options?)       -> AppLink            any of these, by `kind` (`proposal`,
//                                                            `connect`, `auth`, `offer`, `present`, `signin`)
//   checkCode(challenge)               -> Promise<string>    `XXX-XXX`: upper-case hex of the
//                                                            first three bytes of SHA-256(challenge)
//   AppLinkError                       what every parse throws; `.parameter` names the part at fault
//                                      (`link` for the link as a whole), `.message` says why
//   options.allowLoopback              accept `http://localhost[:port]` and `http://127.0.0.1[:port]`
//                                      as tool origins (development; the server allows them when its
//                                      DOMAIN is `localhost`). Default false: `https://host[:port]`.
//
// Grammar (docs/api.md "App links"): parameters are percent-encoded (a space is `%20`; `+` is a
// plus sign), each at most once, none unknown, none empty; text is one line (no control
// characters) and lengths count characters (code points). A link with any invalid part is refused
// as a whole: the parse throws and returns nothing.
import {
	AppLinkError,
	type AppLinkOptions,
	CONTROL,
	checkChallenge,
	checkState,
	length,
	onOrigin,
	parseToolOrigin,
	readParams,
	required,
	text,
} from "./app-link-parts.ts";
import { type OfferLink, type PresentRequest, parseOfferLink, parsePresentLink } from "./credential-links.ts";
import { parseSigninLink, type SigninRequest } from "./signin-link.ts";

export { AppLinkError, type AppLinkOptions, parseToolOrigin } from "./app-link-parts.ts";
export { type OfferLink, type PresentRequest, parseOfferLink, parsePresentLink } from "./credential-links.ts";
export { parseSigninLink, type SigninRequest } from "./signin-link.ts";

/** `svc://p`: a tool proposes a share. Optional members are absent when the link leaves them out. */
export interface Proposal {
	label: string;
	/** Vault record keys, 1 to 50, no repeats, in the link's order. */
	keys: string[];
	/** The tool's name (a claim). */
	from?: string;
	template?: string;
	/** Expiry in days from creation, 1 to 365; absent: no expiry. */
	days?: number;
	/** Watermark text (trimmed). */
	stamp?: string;
	purpose?: "application";
	/** The tool's origin. */
	client?: string;
	/** Where the app sends the answer; on `client`'s origin. */
	redirect?: string;
	state?: string;
	ref?: string;
	/** PKCE S256 challenge of the tool's verifier. */
	challenge?: string;
	revokeReason?: string;
	linksReason?: string;
	/** The server origin the tool will poll for the answer (`/api/connect/token`). */
	poll?: string;
}

/** `svc://auth`: the passkey page hands a sign-in code back to the app. */
export interface AuthLink {
	kind: "auth";
	code: string;
	state: string;
}

export type AppLink =
	| ({ kind: "proposal" } & Proposal)
	| ({ kind: "connect" } & ConnectRequest)
	| AuthLink
	| OfferLink
	| PresentRequest
	| SigninRequest;

/** `svc://connect`: a tool asks to be connected. */
export interface ConnectRequest {
	/** The tool's origin. */
	client: string;
	/** The name the tool gives itself (a claim). */
	name: string;
	/** On `client`'s origin. */
	redirect: string;
	state: string;
	challenge: string;
}

const KEY = /^[a-z0-9_-]{1,64}$/;

const PROPOSAL_PARAMS = [
	"label",
	"keys",
	"from",
	"template",
	"days",
	"stamp",
	"purpose",
	"client",
	"redirect",
	"state",
	"ref",
	"challenge",
	"revoke_reason",
	"links_reason",
	"poll",
] as const;
const CONNECT_PARAMS = ["client", "name", "redirect", "state", "challenge"] as const;

/** Parses `svc://p?…` exactly as the spec's table says, or throws naming the parameter at fault. */
export function parseProposalLink(link: string, options: AppLinkOptions = {}): Proposal {
	const p = readParams(link, "p", PROPOSAL_PARAMS);
	const out: Proposal = { label: text(p, "label", 120, true) as string, keys: keys(p.get("keys")) };
	const from = text(p, "from", 40);
	if (from !== undefined) out.from = from;
	const template = text(p, "template", 80);
	if (template !== undefined) out.template = template;
	const days = p.get("days");
	if (days !== undefined) {
		if (!/^[1-9][0-9]{0,2}$/.test(days) || Number(days) > 365)
			throw new AppLinkError("days", "must be a whole number of days from 1 to 365");
		out.days = Number(days);
	}
	const stamp = p.get("stamp");
	if (stamp !== undefined) {
		const trimmed = stamp.trim();
		if (trimmed === "" || length(trimmed) > 120 || CONTROL.test(trimmed))
			throw new AppLinkError("stamp", "must be one line of 1 to 120 characters");
		out.stamp = trimmed;
	}
	const purpose = p.get("purpose");
	if (purpose !== undefined) {
		if (purpose !== "application") throw new AppLinkError("purpose", "must be `application`");
		if (out.stamp === undefined) throw new AppLinkError("purpose", "`application` requires `stamp`");
		out.purpose = "application";
	}
	const client = p.get("client");
	if (client !== undefined) out.client = parseToolOrigin(client, options);
	const redirect = p.get("redirect");
	if (redirect !== undefined) {
		if (out.client === undefined) throw new AppLinkError("redirect", "needs `client`");
		out.redirect = onOrigin("redirect", redirect, out.client);
	}
	const state = p.get("state");
	if (state !== undefined) {
		if (out.redirect === undefined) throw new AppLinkError("state", "needs `redirect`");
		out.state = checkState(state);
	}
	const ref = text(p, "ref", 80);
	if (ref !== undefined) out.ref = ref;
	const challenge = p.get("challenge");
	if (challenge !== undefined) {
		if (out.state === undefined) throw new AppLinkError("challenge", "needs `state`");
		out.challenge = checkChallenge(challenge);
	}
	const revokeReason = text(p, "revoke_reason", 120);
	if (revokeReason !== undefined) out.revokeReason = revokeReason;
	const linksReason = text(p, "links_reason", 120);
	if (linksReason !== undefined) out.linksReason = linksReason;
	const poll = p.get("poll");
	if (poll !== undefined) {
		if (out.client === undefined) throw new AppLinkError("poll", "needs `client`");
		out.poll = serverOrigin(poll, options);
	}
	return out;
}

/** Parses `svc://connect?…`: every parameter is required. Throws naming the parameter at fault. */
export function parseConnectLink(link: string, options: AppLinkOptions = {}): ConnectRequest {
	const p = readParams(link, "connect", CONNECT_PARAMS);
	const client = parseToolOrigin(required(p, "client"), options);
	return {
		client,
		name: text(p, "name", 40, true) as string,
		redirect: onOrigin("redirect", required(p, "redirect"), client),
		state: checkState(required(p, "state")),
		challenge: checkChallenge(required(p, "challenge")),
	};
}

/** Parses `svc://auth?code=…&state=…` (both required). Throws naming the parameter at fault. */
export function parseAuthLink(link: string): AuthLink {
	const p = readParams(link, "auth", ["code", "state"]);
	const code = required(p, "code");
	if (!/^[A-Za-z0-9_-]{16,256}$/.test(code))
		throw new AppLinkError("code", "must be 16 to 256 base64url characters");
	return { kind: "auth", code, state: checkState(required(p, "state")) };
}

/** Parses any app link this module knows, by its kind. */
export function parseAppLink(link: string, options: AppLinkOptions = {}): AppLink {
	const kind = typeof link === "string" ? /^svc:\/\/([a-z]+)(?=[/?]|$)/.exec(link)?.[1] : undefined;
	switch (kind) {
		case "p":
			return { kind: "proposal", ...parseProposalLink(link, options) };
		case "connect":
			return { kind: "connect", ...parseConnectLink(link, options) };
		case "auth":
			return parseAuthLink(link);
		case "a":
			return parseOfferLink(link);
		case "present":
			return parsePresentLink(link, options);
		case "signin":
			return parseSigninLink(link, options);
		default:
			throw new AppLinkError(
				"link",
				"is not an svc://p, svc://connect, svc://auth, svc://a, svc://present or svc://signin link",
			);
	}
}

/** The check code both ends show: upper-case hex of the first three bytes of SHA-256(challenge). */
export async function checkCode(challenge: string): Promise<string> {
	const digest = new Uint8Array(
		await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(challenge)),
	);
	const hex = Array.from(digest.subarray(0, 3), (b) => b.toString(16).padStart(2, "0"))
		.join("")
		.toUpperCase();
	return `${hex.slice(0, 3)}-${hex.slice(3)}`;
}

// --- the parts of the tool links (the rest: app-link-parts.ts) ---------------------------

function keys(value: string | undefined): string[] {
	if (value === undefined) throw new AppLinkError("keys", "is required");
	const list = value.split(",");
	if (list.length > 50) throw new AppLinkError("keys", "must name 1 to 50 record keys");
	for (const key of list) {
		if (!KEY.test(key)) throw new AppLinkError("keys", "each key must match [a-z0-9_-]{1,64}");
	}
	if (new Set(list).size !== list.length) throw new AppLinkError("keys", "names a key twice");
	return list;
}

/** `poll`: the owner's server origin, with the same shape rules as a tool origin. */
function serverOrigin(value: string, options: AppLinkOptions): string {
	return parseToolOrigin(value, options, "poll");
}
