// Small crypto helpers over node:crypto. Knows nothing of the app.
import crypto from "node:crypto";

/** base64url string of `bytes` random bytes from the CSPRNG (32 bytes = 256 bits by default). */
export function randomToken(bytes = 32): string {
	return crypto.randomBytes(bytes).toString("base64url");
}

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

// Ids come from a pool of CSPRNG bytes refilled 4 KiB at a time: one system call per couple of
// hundred ids instead of one each (a measurable share of a cheap request's CPU). Node's own
// randomUUID keeps such a cache too. The bytes are as random as randomBytes' own; each is used once.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function nextRandomByte(): number {
	if (poolAt >= pool.length) {
		pool = crypto.randomBytes(POOL_BYTES);
		poolAt = 0;
	}
	return pool[poolAt++] as number;
}

/** `length` characters of [a-z0-9], each uniform: bytes of 252 and above (7 * 36) are skipped. */
function randomChars(length: number): string {
	let out = "";
	while (out.length < length) {
		const b = nextRandomByte();
		if (b < 252) out += ID_ALPHABET[b % 36];
	}
	return out;
}

/** A record id: 20 characters of [a-z0-9] (about 103 bits). Not a secret, but never guessable. */
export function newId(): string {
	return randomChars(20);
}

/** A 12-character [a-z0-9] id for a request's log lines; unique enough, not a secret. */
export function requestId(): string {
	return randomChars(12);
}

export function sha256Hex(data: string | Uint8Array): string {
	return crypto.createHash("sha256").update(data).digest("hex");
}

/** Constant-time comparison of two strings (different lengths compare unequal without a shortcut on content). */
export function safeEqual(a: string, b: string): boolean {
	const ab = Buffer.from(a);
	const bb = Buffer.from(b);
	if (ab.length !== bb.length) {
		crypto.timingSafeEqual(ab, ab);
		return false;
	}
	return crypto.timingSafeEqual(ab, bb);
}

/** Lowercase hex SHA-256 of the key's SPKI DER: the fingerprint for the root key and identities alike. */
export function spkiFingerprint(key: crypto.KeyObject): string {
	return sha256Hex(key.export({ type: "spki", format: "der" }));
}

/** RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 bytes of `message`, hex. */
export function rsaSignHex(privateKey: crypto.KeyObject, message: string): string {
	return crypto.sign("sha256", Buffer.from(message, "utf8"), privateKey).toString("hex");
}

export function rsaVerifyHex(publicKey: crypto.KeyObject, message: string, signatureHex: string): boolean {
	if (!/^(?:[0-9a-f]{2})+$/i.test(signatureHex)) return false;
	return crypto.verify("sha256", Buffer.from(message, "utf8"), publicKey, Buffer.from(signatureHex, "hex"));
}

/** A `{payload, signature}` pair: payload is base64url JSON whose first member is `type`. */
export interface SignedEnvelope {
	payload: string;
	signature: string;
}

export function signEnvelope(
	privateKey: crypto.KeyObject,
	type: string,
	body: Record<string, unknown>,
): SignedEnvelope {
	// `type` first and never overridden by the body: the separator that keeps one signed
	// statement from passing for another, so no endpoint becomes a signing oracle.
	const { type: _ignored, ...rest } = body;
	const payload = Buffer.from(JSON.stringify({ type, ...rest }), "utf8").toString("base64url");
	return { payload, signature: rsaSignHex(privateKey, payload) };
}

export function openEnvelope(
	publicKey: crypto.KeyObject,
	envelope: SignedEnvelope,
	type: string,
): Record<string, unknown> | undefined {
	if (!rsaVerifyHex(publicKey, envelope.payload, envelope.signature)) return undefined;
	let body: unknown;
	try {
		body = JSON.parse(Buffer.from(envelope.payload, "base64url").toString("utf8"));
	} catch {
		return undefined;
	}
	if (!body || typeof body !== "object" || (body as { type?: unknown }).type !== type) return undefined;
	return body as Record<string, unknown>;
}
