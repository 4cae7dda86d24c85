// Server keys, accounts, workspaces and their members, sessions, passkeys, API keys and identities.
// Typed tables; the conventions (times, booleans, JSON) are in ../schema.ts.

export interface ServerKeyTable {
	name: string;
	private_pem: string;
	public_pem: string;
	certificate_pem: string | null;
	created: number;
}

export interface AccountTable {
	id: string;
	email: string;
	name: string;
	/** 1: made by an answer-only sign-up; its sessions hold the responder's scopes only. */
	answer_only: number;
	/** The request an answer-only account signed up to answer (null otherwise). */
	signup_request: string | null;
	signup_at: number | null;
	/** When the address was verified through a mailed link; null: not verified (migration 0023). */
	email_verified_at: number | null;
	/** The language mails to this account are written in (`en`, `de`); null: not chosen. */
	language: string | null;
	created: number;
	updated: number;
}

/** A one-time link that verifies an account's address (256 bits, kept hashed, 24 h). */
export interface EmailVerificationTable {
	token_hash: string;
	account: string;
	email: string;
	expires: number;
	created: number;
}

export interface WorkspaceTable {
	id: string;
	name: string;
	owner: string;
	personal: number;
	created: number;
	updated: number;
}

export interface MemberTable {
	id: string;
	workspace: string;
	account: string;
	role: string;
	created: number;
	updated: number;
}

export interface InvitationTable {
	id: string;
	workspace: string;
	/** SHA-256 hex of the one-time token; the token itself is never stored. */
	token_hash: string;
	email: string;
	role: string;
	status: "open" | "accepted" | "revoked";
	invited_by: string | null;
	accepted_by: string | null;
	expires_at: number;
	created: number;
	updated: number;
}

export interface SessionTable {
	id: string;
	token_hash: string;
	account: string;
	created: number;
	expires: number;
	last_used: number;
}

export interface PasskeyTable {
	id: string;
	account: string;
	name: string;
	/** base64url WebAuthn credential id. */
	credential_id: string;
	/** base64url COSE public key. */
	public_key: string;
	counter: number;
	/** JSON array of transports. */
	transports: string;
	device_type: string;
	backed_up: number;
	created: number;
	updated: number;
	last_used: number | null;
}

export interface PasskeyCeremonyTable {
	/** SHA-256 of the ceremony handle (`session`) given to the browser. */
	hash: string;
	kind: "login" | "register" | "confirm";
	challenge: string;
	pkce_challenge: string | null;
	account: string | null;
	email: string | null;
	name: string | null;
	ticket_hash: string | null;
	/** Registration begun from an invitation: the invitation accepted when it finishes. */
	invitation_hash: string | null;
	/** Registration begun as an answer-only sign-up: the request (id) it answers. */
	answer_request: string | null;
	created: number;
	expires: number;
}

export interface PasskeyCodeTable {
	hash: string;
	account: string;
	pkce_challenge: string;
	created: number;
	expires: number;
}

export interface PasskeyTicketTable {
	hash: string;
	account: string | null;
	email: string | null;
	created: number;
	expires: number;
}

export interface ApiKeyTable {
	id: string;
	workspace: string;
	/** The creator; the key stops working when they leave the workspace. */
	account: string;
	name: string;
	/** SHA-256 hex of the plaintext token; the plaintext is never stored. */
	key_hash: string;
	/** JSON array of permission names granted at creation. */
	permissions: string;
	/** JSON array of the scopes they expanded to, fixed at creation. */
	scopes: string;
	expires_at: number | null;
	created: number;
	updated: number;
	last_used: number | null;
}

export interface IdentityTable {
	id: string;
	workspace: string;
	/** The creator; null once their account is deleted (the identity stays with the workspace). */
	account: string | null;
	name: string;
	/** SPKI PEM of the P-256 key generated on the owner's device. */
	public_key: string;
	/** Lowercase hex SHA-256 of the SPKI DER. */
	fingerprint: string;
	/** X.509 certificate (PEM) issued by the server's CA. */
	certificate: string;
	parent_signature: string;
	domain_at_issue: string;
	status: "active" | "revoked";
	created: number;
	updated: number;
	revoked_at: number | null;
}

export interface IdentityTombstoneTable {
	fingerprint: string;
	identity_id: string;
	status: "revoked";
	workspace: string;
	deleted_at: number;
}

export interface ChallengeTable {
	/** SHA-256 hex of the nonce. */
	nonce_hash: string;
	scope: string;
	/** SHA-256 hex of the slug (for `attestation`, of the offer token): slugs are secrets too. */
	slug_hash: string;
	/** For `attestation`: the identity id the nonce was asked for. */
	identity: string | null;
	expires: number;
	spent: number;
	created: number;
}
