// The grammar every app link shares (spec "App links"; src/lib/app-links.ts lists the links):
// parameters percent-encoded (a space is `%20`; `+` is a plus sign), each at most once, none
// unknown, none empty; text one line; lengths in characters (code points); origins written exactly
// as their serialisation. Imports nothing, so it runs in Node and in browsers.

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

export const STATE = /^[A-Za-z0-9._~-]{1,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
export const MAX_LINK = 16_384;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type Params = Map<string, string>;

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

export function readParams(link: string, kind: string, allowed: readonly string[]): Params {
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

export function required(p: Params, name: string): string {
	const value = p.get(name);
	if (value === undefined) throw new AppLinkError(name, "is required");
	return value;
}

export function text(p: Params, name: string, max: number, isRequired = false): string | undefined {
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

export function checkState(value: string): string {
	if (!STATE.test(value)) throw new AppLinkError("state", "must be 1 to 128 of [A-Za-z0-9._~-]");
	return value;
}

export function checkChallenge(value: string): string {
	if (!CHALLENGE.test(value))
		throw new AppLinkError("challenge", "must be a PKCE S256 challenge (43 base64url characters)");
	return value;
}

export function length(value: string): number {
	return Array.from(value).length;
}

/** A lower-case DNS name of 1 to 253 characters (`localhost` and `127.0.0.1` are names here too). */
export function isDomain(value: string): boolean {
	return value.length <= 253 && value.split(".").every((label) => DOMAIN_LABEL.test(label));
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

/** An absolute http(s) address on `origin`, without credentials or fragment. */
export function onOrigin(parameter: string, value: string, origin: string): string {
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
