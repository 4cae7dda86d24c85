// Identity keys on this device: ECDSA P-256 made here with node:crypto, the private half written
// to a 0600 file in the device's folder and never sent anywhere (spec "What the service does" 5).
// Challenges are signed as the server checks them: ECDSA SHA-256 over the nonce's UTF-8 bytes,
// IEEE P1363 r||s, base64url (docs/api.md "Challenges").
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { configDir, readJson, removeFile, writeJson } from "./config-dir.ts";
import { CliError, EXIT } from "./errors.ts";

export interface StoredIdentity {
	/** The identity's id on its server; empty until the server certified it. */
	id: string;
	name: string;
	server: string;
	fingerprint: string;
	/** PKCS#8 PEM: the private half, which stays here. */
	privateKey: string;
	/** SPKI PEM. */
	publicKey: string;
	certificate: string;
	created: string;
}

const dir = () => path.join(configDir(), "identities");
const fileOf = (fingerprint: string) => path.join(dir(), `${fingerprint}.json`);

/** Lowercase hex SHA-256 of the key's SPKI DER (the project's fingerprint). */
export function fingerprintOf(publicKey: crypto.KeyObject): string {
	return crypto
		.createHash("sha256")
		.update(publicKey.export({ type: "spki", format: "der" }))
		.digest("hex");
}

export function generateIdentityKey(): { privateKey: crypto.KeyObject; publicKey: crypto.KeyObject } {
	return crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
}

export function saveIdentity(identity: StoredIdentity): void {
	writeJson(fileOf(identity.fingerprint), identity);
}

export function forgetIdentity(fingerprint: string): boolean {
	return removeFile(fileOf(fingerprint));
}

export function storedIdentities(server?: string): StoredIdentity[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir());
	} catch {
		return [];
	}
	return names
		.filter((n) => /^[0-9a-f]{64}\.json$/.test(n))
		.map((n) => readJson<StoredIdentity>(path.join(dir(), n)))
		.filter((i): i is StoredIdentity => i !== undefined && (server === undefined || i.server === server));
}

/** The key on this device for `ref`: an id, a fingerprint (or its first 8+ characters) or a name. */
export function findIdentity(server: string, ref: string): StoredIdentity {
	const mine = storedIdentities(server).filter((i) => i.id !== "");
	const lower = ref.toLowerCase();
	const matches = mine.filter(
		(i) =>
			i.id === ref ||
			i.fingerprint === lower ||
			(lower.length >= 8 && /^[0-9a-f]+$/.test(lower) && i.fingerprint.startsWith(lower)) ||
			i.name === ref,
	);
	if (matches.length === 1) return matches[0] as StoredIdentity;
	if (matches.length > 1) {
		throw new CliError(
			`${ref} names ${matches.length} identities on this device; give the id or fingerprint`,
			EXIT.usage,
		);
	}
	throw new CliError(
		`no identity key for ${ref} on this device for ${server} (\`svc identity list\` shows them)`,
		EXIT.notFound,
	);
}

/** Signs a challenge nonce with the identity's key: base64url r||s. */
export function signChallenge(identity: StoredIdentity, nonce: string): string {
	const key = crypto.createPrivateKey(identity.privateKey);
	return crypto
		.sign("sha256", Buffer.from(nonce, "utf8"), { key, dsaEncoding: "ieee-p1363" })
		.toString("base64url");
}
