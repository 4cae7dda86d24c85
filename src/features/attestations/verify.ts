// `POST /api/attestations/verify` (spec "Verify response", verdict meanings): a presentation checked
// along two chains. Attester: the issuer from `iss`, its root key tied to its domain by the `_svc`
// TXT record, the credential key certified by that root key, the signature, the status position.
// Holder: the key binding (`kb+jwt` over audience, nonce and the hash of exactly the disclosures
// presented) against `cnf.jwk`, and the word of the server that issued the holder's identity.
// Always a verdict, never an error: unreadable is `invalid`, a check that cannot complete is
// `unverified`, and without `audience` and `nonce` the verdict is never `verified`.
import crypto from "node:crypto";
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";
import {
	type AttesterKeys,
	type AttesterSource,
	attesterKeys,
	holderStanding,
	statusBit,
} from "./verify-lookups.ts";

export type { AttesterSource } from "./verify-lookups.ts";

export type VerdictState =
	| "verified"
	| "unverified"
	| "dnsMissing"
	| "spoofed"
	| "revoked"
	| "expired"
	| "invalid";

export interface Verdict {
	state: VerdictState;
	reason: string;
	issuer: string;
	issuerState: string;
	type: string;
	claims?: Record<string, unknown>;
	withheld: number;
	status: "valid" | "revoked" | "unknown";
	issuedAt?: number;
	expiresAt?: number;
	holder: { fingerprint: string; domain: string; state: string; status: string };
	keyBound: boolean;
}

/** Key-binding JWTs older than this, or this far in the future, are refused. */
const KB_MAX_AGE_S = 300;
const KB_SKEW_S = 60;

const PRECEDENCE: VerdictState[] = [
	"invalid",
	"dnsMissing",
	"spoofed",
	"revoked",
	"expired",
	"unverified",
	"verified",
];

class Verdicts {
	state: VerdictState = "verified";
	reason = "";
	/** Records a finding; the worst one decides the state, the first of it gives the reason. */
	hold(state: VerdictState, reason: string): void {
		if (PRECEDENCE.indexOf(state) < PRECEDENCE.indexOf(this.state)) {
			this.state = state;
			this.reason = reason;
		}
	}
}

const sha256b64u = (s: string) => crypto.createHash("sha256").update(s, "ascii").digest("base64url");

export interface VerifyInput {
	presentation: string;
	audience?: string | undefined;
	nonce?: string | undefined;
	/** A held credential's status: no key binding is asked for, so at best `unverified` (spec). */
	held?: boolean;
}

/** The presentation as read, and what the checks found so far. */
interface Checking {
	source: AttesterSource;
	input: VerifyInput;
	v: Verdicts;
	verdict: Verdict;
	/** The issuer JWT, its disclosures and the key-binding JWT (empty when none). */
	jwt: string;
	disclosures: string[];
	kb: string;
	/** Everything before the key-binding JWT, with its trailing `~`: what `sd_hash` covers. */
	presented: string;
	header: ReturnType<typeof decodeProtectedHeader>;
	payload: Record<string, unknown>;
	issuerUrl: URL;
	domain: string;
	claims: Record<string, unknown>;
	attester?: AttesterKeys;
	signed: boolean;
}

/** `next` goes on to the following check; `done` when the verdict cannot change any more. */
type Check = (c: Checking) => Promise<"next" | "done"> | "next" | "done";

/**
 * The checks after reading, in order: the verdict is the worst finding, so the order decides only
 * which reason is given and where a verification stops early.
 */
const CHECKS: readonly Check[] = [
	describeCredential,
	checkDisclosures,
	checkAttesterSignature,
	checkExpiry,
	checkStatusPosition,
	checkHolderStanding,
	checkKeyBinding,
];

export async function verifyPresentation(source: AttesterSource, input: VerifyInput): Promise<Verdict> {
	const v = new Verdicts();
	const verdict: Verdict = {
		state: "invalid",
		reason: "",
		issuer: "",
		issuerState: "unknown",
		type: "",
		withheld: 0,
		status: "unknown",
		holder: { fingerprint: "", domain: "", state: "unknown", status: "unknown" },
		keyBound: false,
	};
	const read = readPresentation(input.presentation);
	if ("invalid" in read) v.hold("invalid", read.invalid);
	else {
		const c: Checking = { source, input, v, verdict, ...read, claims: {}, signed: false };
		for (const check of CHECKS) if ((await check(c)) === "done") break;
	}
	return { ...verdict, state: v.state, reason: v.reason };
}

/** Reading: `<issuer JWT>~<disclosure>~…~[<kb JWT>]`, a `dc+sd-jwt` signed ES256 whose `iss` is an address. */
function readPresentation(
	presentation: string,
):
	| { invalid: string }
	| Pick<
			Checking,
			"jwt" | "disclosures" | "kb" | "presented" | "header" | "payload" | "issuerUrl" | "domain"
	  > {
	const parts = presentation.split("~");
	if (parts.length < 2) return { invalid: "not an SD-JWT: no ~ separator" };
	const jwt = parts[0] as string;
	let header: ReturnType<typeof decodeProtectedHeader>;
	let payload: Record<string, unknown>;
	try {
		header = decodeProtectedHeader(jwt);
		payload = decodeJwt(jwt);
	} catch {
		return { invalid: "the issuer JWT cannot be read" };
	}
	if (header.typ !== "dc+sd-jwt" || header.alg !== "ES256")
		return { invalid: "not a dc+sd-jwt signed ES256" };
	let issuerUrl: URL;
	try {
		issuerUrl = new URL(String(payload.iss));
	} catch {
		return { invalid: "iss is not an address" };
	}
	return {
		jwt,
		disclosures: parts.slice(1, -1),
		kb: parts[parts.length - 1] as string,
		presented: `${parts.slice(0, -1).join("~")}~`,
		header,
		payload,
		issuerUrl,
		domain: issuerUrl.hostname.toLowerCase(),
	};
}

/** What the credential says of itself, shown whatever the verdict: issuer, type, dates, holder. */
function describeCredential({ verdict, payload, domain }: Checking): "next" {
	verdict.issuer = domain;
	verdict.type = typeof payload.vct === "string" ? payload.vct : "";
	if (typeof payload.iat === "number") verdict.issuedAt = payload.iat;
	if (typeof payload.exp === "number") verdict.expiresAt = payload.exp;
	const holder = (payload.svc_holder ?? {}) as { fingerprint?: unknown; domain?: unknown };
	verdict.holder.fingerprint = typeof holder.fingerprint === "string" ? holder.fingerprint : "";
	verdict.holder.domain = typeof holder.domain === "string" ? holder.domain : "";
	return "next";
}

/** Disclosures: each readable, its digest one of those the issuer signed, none twice (RFC 9901). */
function checkDisclosures(c: Checking): "next" | "done" {
	const digests = new Set(Array.isArray(c.payload._sd) ? (c.payload._sd as unknown[]) : []);
	const presented = new Set<string>();
	for (const d of c.disclosures) {
		let decoded: unknown;
		try {
			decoded = JSON.parse(Buffer.from(d, "base64url").toString("utf8"));
		} catch {
			decoded = undefined;
		}
		if (!Array.isArray(decoded) || decoded.length !== 3 || typeof decoded[1] !== "string") {
			c.v.hold("invalid", "a disclosure cannot be read");
			return "done";
		}
		const digest = sha256b64u(d);
		if (!digests.has(digest)) {
			c.v.hold("invalid", `the disclosure of ${decoded[1]} is not one the issuer signed`);
			return "done";
		}
		if (presented.has(digest)) {
			c.v.hold("invalid", `the disclosure of ${decoded[1]} is presented twice`);
			return "done";
		}
		presented.add(digest);
		c.claims[decoded[1] as string] = decoded[2];
	}
	c.verdict.withheld = Math.max(0, digests.size - presented.size);
	return "next";
}

/** Attester chain: the pinned root key, the credential key it certified, the signature with it. */
async function checkAttesterSignature(c: Checking): Promise<"next"> {
	const { v } = c;
	const attester = await attesterKeys(c.domain, c.source);
	c.attester = attester;
	c.verdict.issuerState = attester.state;
	if (attester.state === "dnsMissing") v.hold("dnsMissing", attester.reason);
	else if (attester.state === "spoofed") v.hold("spoofed", attester.reason);
	else if (attester.state !== "verified")
		v.hold("unverified", `the attester could not be asked: ${attester.reason}`);
	if (attester.keys) {
		const jwk = typeof c.header.kid === "string" ? attester.keys.get(c.header.kid) : undefined;
		if (!jwk) v.hold("spoofed", "not signed by a key the attester's root key certified");
		else {
			try {
				await jwtVerify(c.jwt, await importJWK(jwk, "ES256"), {
					algorithms: ["ES256"],
					currentDate: new Date(c.source.now),
					clockTolerance: 1e9,
				});
				c.signed = true;
			} catch {
				v.hold("spoofed", "the signature does not verify with the attester's certified key");
			}
		}
	}
	if (c.signed) c.verdict.claims = c.claims;
	return "next";
}

/** `exp`: expired at or past it (only what the attester signed counts). */
function checkExpiry(c: Checking): "next" {
	if (c.signed && typeof c.payload.exp === "number" && c.payload.exp * 1000 <= c.source.now) {
		c.v.hold("expired", "past the credential's validity");
	}
	return "next";
}

/** The status position, on the attester's origin: a set bit is `revoked`. */
async function checkStatusPosition(c: Checking): Promise<"next"> {
	if (!c.signed) return "next";
	const ref = (c.payload.status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)
		?.status_list;
	const idx = typeof ref?.idx === "number" && Number.isInteger(ref.idx) && ref.idx >= 0 ? ref.idx : undefined;
	if (idx === undefined || typeof ref?.uri !== "string") {
		c.v.hold("invalid", "the credential names no status position");
		return "next";
	}
	const bit = await statusBit(c.source, c.domain, c.attester ?? {}, ref.uri, idx, c.issuerUrl.origin);
	if (bit.state === "set") {
		c.verdict.status = "revoked";
		c.v.hold("revoked", "the attester revoked the credential");
	} else if (bit.state === "clear") c.verdict.status = "valid";
	else if ("reason" in bit) c.v.hold("unverified", bit.reason);
	return "next";
}

/** Holder chain: the word of the server that issued the holder's identity on its standing. */
async function checkHolderStanding(c: Checking): Promise<"next"> {
	const { holder } = c.verdict;
	if (!holder.fingerprint || !holder.domain) {
		c.v.hold("invalid", "the credential names no holder");
		return "next";
	}
	const standing = await holderStanding(c.source, holder.domain, holder.fingerprint);
	holder.state = standing.state;
	holder.status = standing.status;
	if (standing.status === "revoked") c.v.hold("revoked", "the holder's identity was withdrawn");
	else if (standing.status !== "active") c.v.hold("unverified", `the holder's identity: ${standing.reason}`);
	return "next";
}

/**
 * Key binding, only for an audience and a nonce: signed by `cnf.jwk`, fresh, spent once. Without
 * them nothing proves the holder presented, so the verdict is never `verified` (spec).
 */
async function checkKeyBinding(c: Checking): Promise<"done"> {
	const { input, v } = c;
	if (input.held) {
		v.hold("unverified", "a held credential's status: no key binding was asked for");
		return "done";
	}
	if (input.audience === undefined || input.nonce === undefined) {
		v.hold("unverified", "no audience and nonce given: the holder's key was not checked");
		return "done";
	}
	if (c.kb === "") {
		v.hold("invalid", "no key binding JWT");
		return "done";
	}
	const bound = await keyBindingHolds(c.payload, c.kb, c.presented, input, c.source.now);
	if (!bound.ok) {
		v.hold("invalid", bound.reason);
		return "done";
	}
	if (!(await c.source.spendNonce(input.audience, input.nonce))) {
		v.hold("invalid", "this nonce was already presented for this audience");
		return "done";
	}
	c.verdict.keyBound = true;
	return "done";
}

async function keyBindingHolds(
	payload: Record<string, unknown>,
	kb: string,
	presented: string,
	input: { audience?: string | undefined; nonce?: string | undefined },
	now: number,
): Promise<{ ok: true } | { ok: false; reason: string }> {
	const cnf = (payload.cnf as { jwk?: JWK } | undefined)?.jwk;
	if (cnf?.kty !== "EC" || cnf.crv !== "P-256") return { ok: false, reason: "cnf.jwk is not a P-256 key" };
	let kbPayload: Record<string, unknown>;
	try {
		const header = decodeProtectedHeader(kb);
		if (header.typ !== "kb+jwt") return { ok: false, reason: "the key binding JWT is not typ kb+jwt" };
		const key = await importJWK({ kty: cnf.kty, crv: cnf.crv, x: cnf.x, y: cnf.y }, "ES256");
		kbPayload = (
			await jwtVerify(kb, key, { algorithms: ["ES256"], currentDate: new Date(now), clockTolerance: 1e9 })
		).payload as Record<string, unknown>;
	} catch {
		return { ok: false, reason: "the key binding is not signed by the key in cnf" };
	}
	if (kbPayload.aud !== input.audience)
		return { ok: false, reason: "the key binding is for another audience" };
	if (kbPayload.nonce !== input.nonce) return { ok: false, reason: "the key binding is for another nonce" };
	const iat = Number(kbPayload.iat);
	const nowS = Math.floor(now / 1000);
	if (!Number.isFinite(iat) || iat > nowS + KB_SKEW_S || iat < nowS - KB_MAX_AGE_S) {
		return { ok: false, reason: "the key binding is too old or from the future" };
	}
	if (kbPayload.sd_hash !== sha256b64u(presented)) {
		return { ok: false, reason: "the key binding does not cover exactly the disclosures presented" };
	}
	return { ok: true };
}
