// Share and request passwords (design: scrypt, never returned, compared in constant time).
// Stored as `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>` so the cost can rise later while
// older hashes keep verifying. Hashing runs on libuv's thread pool, off the event loop.
import crypto from "node:crypto";

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** 128 * N * r bytes is what scrypt needs; leave headroom over Node's 32 MiB default. */
const MAX_MEM = 64 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		crypto.scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEM }, (err, key) =>
			err ? reject(err) : resolve(key),
		);
	});
}

export async function hashPassword(password: string): Promise<string> {
	const salt = crypto.randomBytes(SALT_BYTES);
	const key = await scrypt(password, salt, N, R, P);
	return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** False for a wrong password and for a stored value that is not one of our hashes. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
	const parts = stored.split("$");
	if (parts.length !== 6 || parts[0] !== "scrypt") return false;
	const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
	if (![n, r, p].every((v) => Number.isSafeInteger(v) && v > 0) || n > 2 ** 20 || r > 32 || p > 16)
		return false;
	const salt = Buffer.from(parts[4] as string, "base64url");
	const expected = Buffer.from(parts[5] as string, "base64url");
	if (expected.length !== KEY_LENGTH) return false;
	const actual = await scrypt(password, salt, n, r, p);
	return crypto.timingSafeEqual(actual, expected);
}
