// The app links of held credentials (spec "App links", "Attestations"): the attestation offer
// `svc://a/<host>/<token>` and a service's presentation request `svc://present?…`. Parsed by the
// console and the `svc` command line alike; a link with any invalid part is refused whole.
import {
	AppLinkError,
	type AppLinkOptions,
	CONTROL,
	checkState,
	isDomain,
	length,
	MAX_LINK,
	onOrigin,
	parseToolOrigin,
	readParams,
	required,
} from "./app-link-parts.ts";

/** `svc://a/<host>/<token>`: an attestation offer kept on `host`. */
export interface OfferLink {
	kind: "offer";
	/** The offer server's host as the link names it: a lower-case domain or loopback, optional port. */
	host: string;
	/** The one-time offer token (43 base64url characters). */
	token: string;
}

/** `svc://present`: a service asks for a presentation of a held credential. */
export interface PresentRequest {
	kind: "present";
	/** The service's origin: the key binding's audience. */
	clientId: string;
	/** Where the app posts `{presentation, state}`; on `clientId`'s origin. */
	responseUri: string;
	nonce: string;
	state?: string;
	/** The credential type asked for (`vct`); absent: any. */
	type?: string;
	/** Attesting domains accepted; absent: any. */
	issuers?: string[];
	/** Claims that start ticked; the person may untick any. Absent: none. */
	claims: string[];
}

const PRESENT_PARAMS = ["client_id", "response_uri", "nonce", "state", "type", "issuers", "claims"] as const;
const NONCE = /^[A-Za-z0-9._~-]{8,256}$/;
const OFFER_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const CLAIM_NAME = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Parses `svc://a/<host>/<token>`: `host` a lower-case domain (or `localhost`, `127.0.0.1`) with an
 * optional port, `token` 43 base64url characters, nothing before, between or after.
 */
export function parseOfferLink(link: string): OfferLink {
	if (typeof link !== "string" || link.length > MAX_LINK || !link.startsWith("svc://a/"))
		throw new AppLinkError("link", "is not an svc://a link");
	const parts = link.slice("svc://a/".length).split("/");
	if (parts.length !== 2) throw new AppLinkError("link", "must be svc://a/<host>/<token>");
	const [host, token] = parts as [string, string];
	const [name, port, ...more] = host.split(":");
	const portOk = port === undefined || (/^[1-9][0-9]{0,4}$/.test(port) && Number(port) <= 65535);
	if (more.length > 0 || !portOk || !isDomain(name ?? "")) {
		throw new AppLinkError("host", "must be a lower-case domain name with an optional port");
	}
	if (!OFFER_TOKEN.test(token)) throw new AppLinkError("token", "must be 43 base64url characters");
	return { kind: "offer", host, token };
}

/**
 * Parses `svc://present?…` as the spec says: `client_id`, `response_uri` (on client_id's origin)
 * and `nonce` required; `state`, `type`, `issuers`, `claims` optional. Throws naming the part at
 * fault; a link with any invalid part is refused whole.
 */
export function parsePresentLink(link: string, options: AppLinkOptions = {}): PresentRequest {
	const p = readParams(link, "present", PRESENT_PARAMS);
	const clientId = parseToolOrigin(required(p, "client_id"), options, "client_id");
	const out: PresentRequest = {
		kind: "present",
		clientId,
		responseUri: onOrigin("response_uri", required(p, "response_uri"), clientId),
		nonce: required(p, "nonce"),
		claims: [],
	};
	if (!NONCE.test(out.nonce)) throw new AppLinkError("nonce", "must be 8 to 256 of [A-Za-z0-9._~-]");
	const state = p.get("state");
	if (state !== undefined) out.state = checkState(state);
	const type = p.get("type");
	if (type !== undefined) {
		if (length(type) > 255 || /\s/.test(type) || CONTROL.test(type))
			throw new AppLinkError("type", "must be 1 to 255 characters without spaces");
		out.type = type;
	}
	const issuers = p.get("issuers");
	if (issuers !== undefined) {
		const list = issuers.split(",");
		if (list.length > 20 || !list.every(isDomain))
			throw new AppLinkError("issuers", "must be 1 to 20 comma-separated lower-case domain names");
		if (new Set(list).size !== list.length) throw new AppLinkError("issuers", "names a domain twice");
		out.issuers = list;
	}
	const claims = p.get("claims");
	if (claims !== undefined) {
		const list = claims.split(",");
		if (list.length > 100 || !list.every((c) => CLAIM_NAME.test(c)))
			throw new AppLinkError("claims", "must be 1 to 100 comma-separated names of [A-Za-z0-9_]{1,64}");
		if (new Set(list).size !== list.length) throw new AppLinkError("claims", "names a claim twice");
		out.claims = list;
	}
	return out;
}
