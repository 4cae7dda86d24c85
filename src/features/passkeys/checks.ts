import { AppError } from "../../http/errors.ts";
import { isValidEmail, normalizeEmail } from "../../lib/email.ts";
import { isS256Challenge } from "../../lib/oauth.ts";

/** Who the passkeys are for: the id is DOMAIN, the one origin browsers may run ceremonies at. */
export interface RelyingParty {
	id: string;
	name: string;
	origin: string;
}

/**
 * Ceremonies run at the server's own address only (`localhost` in development, never a loopback
 * IP): the Host must be the origin's host and a browser's Origin header the origin itself.
 */
export function checkOrigin(rp: RelyingParty, host: string | undefined, origin: string | undefined): void {
	const expected = new URL(rp.origin);
	const defaultPort = expected.protocol === "https:" ? "443" : "80";
	const hosts = [expected.host];
	if (expected.port === "") hosts.push(`${expected.hostname}:${defaultPort}`);
	const hostOk = host !== undefined && hosts.includes(host.toLowerCase());
	const originOk = origin === undefined || origin === rp.origin;
	if (!hostOk || !originOk) {
		throw new AppError(
			"passkey_origin_invalid",
			`Passkey ceremonies run at ${rp.origin} only, not at ${origin ?? host ?? "an unnamed host"}`,
		);
	}
}

/** A PKCE S256 challenge is base64url of a SHA-256 digest: 43 characters, no padding. */
export function checkPkceChallenge(challenge: string): string {
	if (!isS256Challenge(challenge)) {
		throw new AppError("passkey_request_invalid", "challenge must be a PKCE S256 challenge (43 base64url)");
	}
	return challenge;
}

/** A signup's email: normalised and well formed, else `passkey_email_invalid`. */
export function checkEmail(email: string | undefined): string {
	const normalized = normalizeEmail(email ?? "");
	if (!isValidEmail(normalized)) {
		throw new AppError("passkey_email_invalid", "Give a valid email address to sign up");
	}
	return normalized;
}

/** A name for an account or a passkey: 1 to 200 characters after trimming, one line. */
export function checkName(name: string | undefined): string | undefined {
	if (name === undefined) return undefined;
	const trimmed = name.trim();
	// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
	if (trimmed === "" || trimmed.length > 200 || /[\u0000-\u001f\u007f]/.test(trimmed)) {
		throw new AppError("passkey_request_invalid", "name must be one line of 1 to 200 characters");
	}
	return trimmed;
}

export interface ClientData {
	type: string;
	challenge: string;
	origin: string;
}

/**
 * Reads the browser's clientDataJSON before the ceremony is touched: unreadable is
 * `passkey_request_invalid`; made at another origin is `passkey_origin_invalid`. Neither spends it.
 */
export function checkClientData(rp: RelyingParty, encoded: string, type: string): ClientData {
	let data: unknown;
	try {
		data = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
	} catch {
		throw new AppError("passkey_request_invalid", "clientDataJSON is not base64url JSON");
	}
	const d = data as Partial<ClientData> | null;
	if (!d || typeof d !== "object" || typeof d.origin !== "string" || typeof d.challenge !== "string") {
		throw new AppError("passkey_request_invalid", "clientDataJSON lacks origin or challenge");
	}
	if (d.type !== type) throw new AppError("passkey_request_invalid", `clientDataJSON type must be ${type}`);
	if (d.origin !== rp.origin) {
		throw new AppError(
			"passkey_origin_invalid",
			`The credential was made at ${d.origin.slice(0, 200)}, not at ${rp.origin}`,
		);
	}
	return d as ClientData;
}
