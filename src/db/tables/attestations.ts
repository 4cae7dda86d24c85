// Attestations issued, credentials held, key-binding nonces and status-list positions.
// Typed tables; the conventions (times, booleans, JSON) are in ../schema.ts.

export interface AttestationTable {
	id: string;
	workspace: string;
	type: string;
	/** JSON object: name -> text, number or boolean. */
	claims: string;
	label: string;
	expires_at: number | null;
	offer_expires_at: number;
	status: "offered" | "active" | "revoked";
	token_hash: string;
	position: number;
	subject_fingerprint: string | null;
	subject_domain: string | null;
	subject_name: string | null;
	/** JSON: the holder's public JWK. */
	subject_key: string | null;
	issued_at: number | null;
	created_by: string | null;
	created: number;
	updated: number;
}

/** A credential one of the person's identities accepted (`credentials` collection). */
export interface CredentialTable {
	id: string;
	account: string;
	identity: string;
	issuer: string;
	/** `<status list uri>#<idx>`: which attestation of the issuer it is. */
	status_ref: string;
	type: string;
	/** The SD-JWT with every disclosure. */
	credential: string;
	/** JSON object of every claim. */
	claims: string;
	issued_at: number;
	expires_at: number | null;
	created: number;
	updated: number;
}

/** An (audience, nonce) pair a presentation's key binding was accepted for. */
export interface VerifyNonceTable {
	hash: string;
	expires: number;
}

/** A status-list position; no foreign key, so a set bit outlives its attestation. */
export interface StatusEntryTable {
	position: number;
	attestation: string | null;
	revoked: number;
	created: number;
	updated: number;
}
