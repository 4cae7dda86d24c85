// The credential (spec "Credential content"): an SD-JWT VC (`dc+sd-jwt`) signed ES256 with the
// credential key, built by @sd-jwt/sd-jwt-vc. Always disclosed: `iss`, `vct`, `iat`, `exp` where
// set, `cnf.jwk` (the holder's identity key), `svc_holder` and `status` (the Token Status List
// reference: position and address). Every attested claim is its own disclosure, salted.
import crypto from "node:crypto";
import type { AttestationTable } from "../../db/schema.ts";
import { sdJwtLibrary } from "../../lib/sd-jwt.ts";
import type { SigningKey } from "../server/service.ts";

/** What an attested claim may be (service.ts checkClaims): the credential carries it as it is. */
export type ClaimValue = string | number | boolean;

/**
 * A disclosure's salt: 128 random bits, base64url (RFC 9901 recommends 128 bits). The library's
 * `generateSalt(16)` gives 16 hex characters, 64 bits, so it is not used.
 */
export function generateSalt(): string {
	return crypto.randomBytes(16).toString("base64url");
}

export function statusListUri(issuer: string): string {
	return `${issuer}/api/attestations/status`;
}

/** Signs with node:crypto: ES256 is ECDSA P-256 / SHA-256 in the JWS (r||s) form. */
function signerFor(key: SigningKey) {
	return async (data: string) =>
		crypto
			.sign("sha256", Buffer.from(data), { key: key.privateKey, dsaEncoding: "ieee-p1363" })
			.toString("base64url");
}

export async function issueCredential(
	row: AttestationTable,
	issuer: string,
	key: SigningKey,
): Promise<string> {
	if (!row.subject_key || !row.subject_fingerprint || row.issued_at === null) {
		throw new Error("an attestation without a holder cannot be issued");
	}
	const claims = JSON.parse(row.claims) as Record<string, ClaimValue>;
	const { SDJwtVcInstance, digest } = await sdJwtLibrary();
	const sdjwt = new SDJwtVcInstance({
		signer: signerFor(key),
		signAlg: "ES256",
		hasher: digest,
		hashAlg: "sha-256",
		saltGenerator: async () => generateSalt(),
	});
	const payload = {
		iss: issuer,
		vct: row.type,
		iat: Math.floor(row.issued_at / 1000),
		...(row.expires_at === null ? {} : { exp: Math.floor(row.expires_at / 1000) }),
		cnf: { jwk: JSON.parse(row.subject_key) as Record<string, unknown> },
		svc_holder: { fingerprint: row.subject_fingerprint, domain: row.subject_domain ?? "" },
		status: { status_list: { idx: row.position, uri: statusListUri(issuer) } },
		...claims,
	};
	return sdjwt.issue(payload, { _sd: Object.keys(claims) } as never, {
		header: { typ: "dc+sd-jwt", kid: key.kid },
	});
}
