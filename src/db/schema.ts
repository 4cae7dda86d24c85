// Typed tables (kysely's `user.table.ts` habit). Times are integer milliseconds since the epoch in
// both dialects so `updated` is exact and cheap to compare; booleans are 0/1 integers; JSON is text.

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
	created: number;
	updated: number;
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

export interface SectionTable {
	id: string;
	workspace: string;
	key: string;
	name: string;
	ordering: number;
	created: number;
	updated: number;
}

export interface RecordTable {
	id: string;
	workspace: string;
	/** Vault key, `[a-z0-9_-]{1,64}`; several records may share one. */
	key: string;
	name: string;
	kind: "value" | "file";
	value: string | null;
	section: string | null;
	hidden: number;
	/** Another value record of the same workspace whose current value this one resolves to. */
	alias: string | null;
	identity: string | null;
	/** Blob store key of a file record. */
	file_key: string | null;
	file_name: string | null;
	file_type: string | null;
	file_size: number | null;
	file_sha256: string | null;
	/** Starts at 1, bumped on every change. */
	version: number;
	created: number;
	updated: number;
}

export interface TemplateTable {
	id: string;
	workspace: string;
	name: string;
	/** JSON array of TemplateItem. */
	items: string;
	created: number;
	updated: number;
}

export interface NotificationTable {
	id: string;
	account: string;
	workspace: string | null;
	kind: string;
	title: string;
	body: string;
	/** JSON object. */
	data: string;
	read: number;
	created: number;
	updated: number;
}

export interface FileTokenTable {
	token_hash: string;
	account: string;
	workspace: string;
	via: "session" | "apiKey";
	created: number;
	expires: number;
}

export interface LinkTable {
	id: string;
	workspace: string;
	slug: string;
	label: string;
	status: "active" | "paused" | "revoked" | "expired";
	password_hash: string | null;
	max_views: number | null;
	view_count: number;
	expires_at: number | null;
	require_handshake: number;
	stamp: string | null;
	purpose: string;
	ref: string | null;
	identity: string | null;
	handed_over: number;
	sign_in_client: string | null;
	/** The connected tool whose proposal the share became; null once that connection is deleted. */
	connection: string | null;
	created_by: string | null;
	created: number;
	updated: number;
}

export interface LinkRecordTable {
	link: string;
	record: string;
	position: number;
}

export interface LinkSectionTable {
	link: string;
	section: string;
	position: number;
}

export interface LinkTokenTable {
	token_hash: string;
	link: string;
	kind: "download" | "archive";
	record: string | null;
	view: number;
	stamp_line: string | null;
	/** The fingerprint the resolve proved (handshake shares), for the read log. */
	reader: string | null;
	created: number;
	expires: number;
}

export type ReadKind = "api" | "page" | "addressbook" | "file" | "archive";

export interface LinkReadTable {
	id: string;
	link: string;
	workspace: string;
	at: number;
	kind: ReadKind;
	view: number;
	record: string | null;
	reader: string | null;
}

export interface RequestTable {
	id: string;
	workspace: string;
	/** The creator; null once their account is deleted. */
	account: string | null;
	slug: string;
	label: string;
	/** JSON array of TemplateItem. */
	items: string;
	/** The template the items were copied from, if any. */
	template: string | null;
	/** `open` or `closed`; `expired` is derived from `expires_at`. */
	status: "open" | "closed";
	password_hash: string | null;
	requires_identifier: number;
	require_handshake: number;
	allow_extra_fields: number;
	identity_scope: "any" | "from_root";
	identity: string | null;
	expires_at: number | null;
	callback_url: string | null;
	created: number;
	updated: number;
}

export interface RequestAnswerTable {
	/** The responder's link id (`responseId`). */
	id: string;
	request: string;
	/** The responder; null for an answer kept on another server. */
	account: string | null;
	workspace: string | null;
	/** Proven identity id, or a fingerprint for a remote answer; null when none was proven. */
	identity: string | null;
	identifier: string;
	sender_name: string;
	/** JSON object of values typed directly. */
	data: string;
	/** The responder's server for an answer kept there. */
	server: string | null;
	/** JSON object: template key -> id of the record minted from a typed value. */
	minted: string;
	/** JSON object: template key -> id of the responder's vault record linked for it. */
	entries: string;
	/** A remote answer: the grant's id on `server`, its token and its keys (JSON array); never a value. */
	grant_id: string | null;
	grant_token: string | null;
	grant_keys: string | null;
	/** A remote answer: the status the last applied signed event told, and that event's time. */
	remote_status: string | null;
	remote_at: number | null;
	created: number;
	updated: number;
}

export interface GrantTokenTable {
	/** The grant id: the link's id. */
	link: string;
	token_hash: string;
	/** JSON object: key -> id of the record that answers it. */
	keys: string;
	/** The server the grant was handed to; its events go there. */
	peer: string | null;
	request_slug: string | null;
	created: number;
	updated: number;
}

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

/** An authorization request the sign-in page was opened for (fixed at GET /oidc/authorize). */
export interface OidcRequestTable {
	hash: string;
	client_id: string;
	redirect_uri: string;
	/** Space-separated optional scopes asked for; `openid` is implied. */
	scopes: string;
	state: string | null;
	nonce: string | null;
	code_challenge: string;
	/** JSON array of the vault keys asked for through `claims`. */
	keys: string;
	issuer: string;
	lang: string;
	/** Set once by the passkey sign-in; the consent spends the row. */
	ticket_hash: string | null;
	account: string | null;
	auth_time: number | null;
	created: number;
	expires: number;
}

export interface OidcCodeTable {
	hash: string;
	account: string;
	client_id: string;
	redirect_uri: string;
	code_challenge: string;
	scopes: string;
	nonce: string | null;
	issuer: string;
	auth_time: number;
	/** JSON object: requested key -> the person's record that answers it. */
	links: string;
	created: number;
	expires: number;
}

export interface OidcTokenTable {
	hash: string;
	account: string;
	client_id: string;
	scopes: string;
	issuer: string;
	link: string | null;
	/** JSON array of the keys the link answers for this service. */
	keys: string;
	created: number;
	expires: number;
}

/** The one sign-in link per person and service. */
export interface OidcLinkTable {
	account: string;
	client_id: string;
	link: string;
	updated: number;
}

export interface OutboxTable {
	id: string;
	kind: "submission" | "grant_event";
	request: string;
	url: string;
	/** The JSON body, exactly as it is POSTed. */
	payload: string;
	state: "pending" | "sending" | "delivered" | "failed";
	attempts: number;
	next_attempt: number;
	lease: string | null;
	lease_until: number | null;
	last_status: number | null;
	last_error: string | null;
	created: number;
	updated: number;
}

/** A grant event for the server a grant was handed to, sent in signed batches (migration 0015). */
export interface PeerEventTable {
	id: string;
	peer: string;
	grant_id: string;
	request_slug: string | null;
	event: string;
	status: string;
	at: number;
	state: "pending" | "sending" | "delivered" | "failed";
	attempts: number;
	next_attempt: number;
	lease: string | null;
	lease_until: number | null;
	last_status: number | null;
	last_error: string | null;
	created: number;
	updated: number;
}

export interface ConnectionTable {
	id: string;
	workspace: string;
	/** The tool's origin. */
	client_id: string;
	client_name: string;
	allow_revoke: number;
	allow_hand_over: number;
	expires_at: number;
	created_by: string | null;
	created: number;
	updated: number;
}

export interface ConnectionTokenTable {
	token_hash: string;
	connection: string;
	created: number;
}

export interface ConnectionGrantTable {
	code_hash: string;
	connection: string;
	/** The PKCE S256 challenge the verifier must match. */
	challenge: string;
	/** The same challenge when the owner authorized with `poll`; null for an answer issued as a code. */
	poll_challenge: string | null;
	client_id: string;
	redirect_uri: string;
	created: number;
	expires: number;
}

export interface Database {
	server_keys: ServerKeyTable;
	accounts: AccountTable;
	workspaces: WorkspaceTable;
	members: MemberTable;
	invitations: InvitationTable;
	sessions: SessionTable;
	passkeys: PasskeyTable;
	passkey_ceremonies: PasskeyCeremonyTable;
	passkey_codes: PasskeyCodeTable;
	passkey_tickets: PasskeyTicketTable;
	api_keys: ApiKeyTable;
	identities: IdentityTable;
	identity_tombstones: IdentityTombstoneTable;
	challenges: ChallengeTable;
	sections: SectionTable;
	records: RecordTable;
	templates: TemplateTable;
	notifications: NotificationTable;
	file_tokens: FileTokenTable;
	requests: RequestTable;
	request_answers: RequestAnswerTable;
	outbox: OutboxTable;
	links: LinkTable;
	link_records: LinkRecordTable;
	link_sections: LinkSectionTable;
	link_tokens: LinkTokenTable;
	link_reads: LinkReadTable;
	connections: ConnectionTable;
	connection_tokens: ConnectionTokenTable;
	connection_grants: ConnectionGrantTable;
	grant_tokens: GrantTokenTable;
	peer_events: PeerEventTable;
	oidc_requests: OidcRequestTable;
	oidc_codes: OidcCodeTable;
	oidc_tokens: OidcTokenTable;
	oidc_links: OidcLinkTable;
	attestations: AttestationTable;
	status_entries: StatusEntryTable;
	verify_nonces: VerifyNonceTable;
	credentials: CredentialTable;
}
