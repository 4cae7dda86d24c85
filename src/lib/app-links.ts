// App links a tool opens in the owner's app (spec "App links"): the proposal `svc://p` and the
// connection request `svc://connect`, and the check code both ends show. Used by the server, the
// console and the `svc` command line, so it runs in Node and in browsers and imports nothing.
//
// Exported API:
//   parseProposalLink(link, options?)  -> Proposal           `svc://p?…`
//   parseConnectLink(link, options?)   -> ConnectRequest     `svc://connect?…`
//   parseToolOrigin(value, options?)   -> string             a tool origin, as `client` takes it
//   parseAuthLink(link)                -> AuthLink           `svc://auth?code=…&state=…`
//   parseAppLink(link, options?)       -> AppLink            any of the three, by `kind`
//                                                            (`proposal`, `connect`, `auth`)
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

export class AppLinkError extends Error {
	/** The parameter at fault, e.g. `keys`; `link` when the link as a whole is not one. */
	readonly parameter: string;
	constructor(parameter: string, message: string) {
		super(message);
		this.name = "AppLinkError";
		this.parameter = parameter;
	}
}

export interface AppLinkOptions {
	/** Accept `http://localhost` and `http://127.0.0.1` (any port) as tool origins. */
	allowLoopback?: boolean;
}

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

export type AppLink = ({ kind: "proposal" } & Proposal) | ({ kind: "connect" } & ConnectRequest) | AuthLink;

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
const STATE = /^[A-Za-z0-9._~-]{1,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const MAX_LINK = 16_384;

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

/** Parses any app link this module knows, by its kind (`svc://p`, `svc://connect`, `svc://auth`). */
export function parseAppLink(link: string, options: AppLinkOptions = {}): AppLink {
	const kind = typeof link === "string" ? /^svc:\/\/([a-z]+)(?=[/?]|$)/.exec(link)?.[1] : undefined;
	switch (kind) {
		case "p":
			return { kind: "proposal", ...parseProposalLink(link, options) };
		case "connect":
			return { kind: "connect", ...parseConnectLink(link, options) };
		case "auth":
			return parseAuthLink(link);
		default:
			throw new AppLinkError("link", "is not an svc://p, svc://connect or svc://auth link");
	}
}

/**
 * A tool origin: `https://host[:port]`, or with `allowLoopback` `http://localhost[:port]` or
 * `http://127.0.0.1[:port]`; lower case, no path, query, fragment or credentials. Returns it as
 * written (which is then its serialised origin).
 */
export function parseToolOrigin(value: string, options: AppLinkOptions = {}, parameter = "client"): string {
	const origin = originOf(parameter, value);
	if (origin.protocol === "https:") return value;
	if (options.allowLoopback && origin.protocol === "http:" && isLoopbackHost(origin.hostname)) return value;
	throw new AppLinkError(
		parameter,
		options.allowLoopback
			? "must be https://host[:port], http://localhost[:port] or http://127.0.0.1[:port]"
			: "must be https://host[:port]",
	);
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

// --- the parts -------------------------------------------------------------------------------

type Params = Map<string, string>;

function readParams(link: string, kind: string, allowed: readonly string[]): Params {
	if (typeof link !== "string" || link.length > MAX_LINK)
		throw new AppLinkError("link", `is not an svc://${kind} link`);
	const prefix = `svc://${kind}`;
	const rest = link.startsWith(prefix) ? link.slice(prefix.length) : undefined;
	// `svc://p?…`, also written `svc://p/?…`; nothing else may follow the kind.
	const query =
		rest === undefined
			? undefined
			: rest.startsWith("/?")
				? rest.slice(2)
				: rest.startsWith("?")
					? rest.slice(1)
					: rest === "" || rest === "/"
						? ""
						: undefined;
	if (query === undefined) throw new AppLinkError("link", `is not an svc://${kind} link`);
	if (query.includes("#")) throw new AppLinkError("link", "must not carry a fragment");
	const params: Params = new Map();
	if (query === "") return params;
	for (const part of query.split("&")) {
		const eq = part.indexOf("=");
		const rawName = eq < 0 ? part : part.slice(0, eq);
		const name = decode("link", rawName);
		if (!allowed.includes(name)) throw new AppLinkError(name || "link", "is not a parameter of this link");
		if (params.has(name)) throw new AppLinkError(name, "is given more than once");
		const value = decode(name, eq < 0 ? "" : part.slice(eq + 1));
		if (value === "") throw new AppLinkError(name, "is empty");
		params.set(name, value);
	}
	return params;
}

function decode(parameter: string, raw: string): string {
	try {
		return decodeURIComponent(raw);
	} catch {
		throw new AppLinkError(parameter, "is not percent-encoded UTF-8");
	}
}

function required(p: Params, name: string): string {
	const value = p.get(name);
	if (value === undefined) throw new AppLinkError(name, "is required");
	return value;
}

function text(p: Params, name: string, max: number, isRequired = false): string | undefined {
	const value = p.get(name);
	if (value === undefined) {
		if (isRequired) throw new AppLinkError(name, "is required");
		return undefined;
	}
	if (length(value) > max) throw new AppLinkError(name, `must be at most ${max} characters`);
	if (CONTROL.test(value)) throw new AppLinkError(name, "must be one line without control characters");
	if (value.trim() === "") throw new AppLinkError(name, "is empty");
	return value;
}

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

function checkState(value: string): string {
	if (!STATE.test(value)) throw new AppLinkError("state", "must be 1 to 128 of [A-Za-z0-9._~-]");
	return value;
}

function checkChallenge(value: string): string {
	if (!CHALLENGE.test(value))
		throw new AppLinkError("challenge", "must be a PKCE S256 challenge (43 base64url characters)");
	return value;
}

function length(value: string): number {
	return Array.from(value).length;
}

function isLoopbackHost(hostname: string): boolean {
	return hostname === "localhost" || hostname === "127.0.0.1";
}

/** An origin written exactly as its serialisation: scheme, host, optional port, nothing else. */
function originOf(parameter: string, value: string): URL {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new AppLinkError(parameter, "is not an origin");
	}
	if ((url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== value)
		throw new AppLinkError(parameter, "must be an origin: scheme://host[:port] with no path");
	return url;
}

/** `poll`: the owner's server origin, with the same shape rules as a tool origin. */
function serverOrigin(value: string, options: AppLinkOptions): string {
	return parseToolOrigin(value, options, "poll");
}

/** An absolute http(s) address on `origin`, without credentials or fragment. */
function onOrigin(parameter: string, value: string, origin: string): string {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new AppLinkError(parameter, "is not an absolute address");
	}
	if (url.origin !== origin) throw new AppLinkError(parameter, `must be on ${origin}`);
	if (url.username !== "" || url.password !== "" || url.hash !== "" || value.length > 2000)
		throw new AppLinkError(parameter, "must carry no credentials or fragment, at most 2000 characters");
	return value;
}
