// One error type, one code table (fastify's lib/errors.js habit). Every code the server can answer
// with is listed here with its status; the handler in problem.ts writes RFC 9457 problem+json.
// A test checks that each code appears in docs/api.md.

export const errorCodes = {
	// Generic request errors (our own; the spec leaves these names open).
	invalid_json: { status: 400, title: "The body is not valid JSON" },
	validation_failed: { status: 400, title: "The request does not match the schema" },
	bad_request: { status: 400, title: "The request cannot be processed" },
	filter_invalid: { status: 400, title: "The filter expression is not valid for this collection" },
	sort_invalid: { status: 400, title: "The sort list is not valid for this collection" },
	not_authenticated: { status: 401, title: "Authentication is required" },
	invalid_api_key: { status: 401, title: "No API key matches" },
	forbidden: { status: 403, title: "Not allowed" },
	not_found: { status: 404, title: "Not found" },
	method_not_allowed: { status: 405, title: "Method not allowed" },
	conflict: { status: 409, title: "Conflict" },
	link_status_invalid: { status: 409, title: "The share cannot change to that status" },
	link_gate_session_required: {
		status: 403,
		title: "Loosening a share's gates needs the owner's session, not an API key",
	},
	workspace_personal: { status: 409, title: "A personal workspace is deleted only with its account" },
	// Members and invitations (docs/api.md "Members and invitations"; the spec leaves these open).
	invitation_invalid: { status: 404, title: "The invitation is unknown" },
	invitation_expired: { status: 410, title: "The invitation has expired" },
	invitation_revoked: { status: 410, title: "The invitation was revoked" },
	invitation_used: { status: 410, title: "The invitation was already accepted" },
	member_exists: { status: 409, title: "The account is already a member of the workspace" },
	member_role_above_own: { status: 403, title: "A role above your own cannot be given or changed" },
	member_last_owner: { status: 409, title: "A workspace keeps at least one owner" },
	member_personal_owner: {
		status: 409,
		title: "The account a personal workspace belongs to stays its owner",
	},
	account_last_owner: {
		status: 409,
		title: "The account is the last owner of a shared workspace; hand it over or delete it first",
	},
	account_confirmation_invalid: {
		status: 401,
		title: "Deleting the account needs a fresh passkey confirmation of that account",
	},
	// Outgoing e-mail (docs/operations.md "Outgoing e-mail"; the spec leaves these open).
	mail_disabled: { status: 403, title: "This server does not send mail" },
	mail_address_invalid: { status: 400, title: "The e-mail address or header is not valid" },
	mail_rate_limited: { status: 429, title: "Too many mails from this account or to this address today" },
	mail_verification_invalid: { status: 400, title: "The verify link is unknown, spent, expired or stale" },
	// Vault export and import (docs/api.md "Vault export and import").
	import_invalid: { status: 400, title: "The import holds something the vault does not take" },
	import_too_large: { status: 413, title: "The import is larger than the server reads" },
	body_too_large: { status: 413, title: "The body is larger than allowed" },
	file_too_large: { status: 413, title: "The file is larger than the server accepts" },
	unsupported_media_type: { status: 415, title: "Unsupported content type" },
	range_not_satisfiable: { status: 416, title: "The requested byte range does not fit the file" },
	rate_limited: { status: 429, title: "Too many requests" },
	internal_error: { status: 500, title: "Internal server error" },
	service_unavailable: { status: 503, title: "Service unavailable" },

	// Spec codes, grouped as in the spec's error table.
	watermark_text_invalid: { status: 400, title: "The stamp text is not one line of 1 to 120 characters" },
	passkey_request_invalid: { status: 400, title: "The passkey request is malformed" },
	passkey_origin_invalid: { status: 400, title: "Passkey ceremonies must run at the server's own address" },
	passkey_ceremony_invalid: {
		status: 400,
		title: "The passkey ceremony is unknown, expired or already answered",
	},
	passkey_email_invalid: { status: 400, title: "The email address is not valid" },
	passkey_ticket_invalid: { status: 400, title: "The ticket is unknown, expired or spent" },
	passkey_verification_failed: { status: 401, title: "The passkey could not be verified" },
	passkey_grant_invalid: {
		status: 400,
		title: "The code is unknown, expired, spent or does not match the verifier",
	},
	passkey_email_taken: { status: 409, title: "An account with this email exists" },
	passkey_last: { status: 409, title: "The last passkey of an account cannot be removed" },
	signups_disabled: { status: 403, title: "Sign-ups are disabled on this server" },
	answer_signup_not_allowed: {
		status: 403,
		title: "This request does not let a responder without an account sign up here",
	},
	answer_signup_limit_reached: {
		status: 403,
		title: "This request's answer link has created all the accounts its requester allowed",
	},
	connection_client_invalid: { status: 400, title: "The client origin is not valid" },
	connection_redirect_invalid: { status: 400, title: "The redirect address is not on the client's origin" },
	connection_challenge_invalid: { status: 400, title: "The PKCE challenge is not valid" },
	connection_grant_invalid: { status: 400, title: "The connection code or verifier is not valid" },
	connection_not_connected: { status: 409, title: "There is no live connection to reuse" },
	connection_unauthorized: { status: 401, title: "The connection token is not valid" },
	connection_expired: { status: 401, title: "The connection has lapsed; connect again from the app" },
	connection_revoke_not_allowed: { status: 403, title: "The connection may not revoke links" },
	oidc_request_invalid: { status: 400, title: "The authorization request is not valid" },
	oidc_link_record_invalid: { status: 400, title: "The entry is not the person's" },
	api_key_vault_scope: { status: 400, title: "An API key cannot carry vault permissions" },
	api_key_scope_missing: { status: 403, title: "The API key lacks a scope this request needs" },
	api_key_workspace_mismatch: { status: 403, title: "The API key is bound to another workspace" },
	validation_callback_url_blocked: {
		status: 400,
		title: "The callback URL is not an allowed absolute http(s) URL",
	},
	grants_count_invalid: { status: 400, title: "Send 1 to 100 grants" },
	identity_fingerprint_invalid: { status: 400, title: "The fingerprint is not lowercase hex SHA-256" },
	link_password_required: { status: 401, title: "This share needs a password" },
	link_password_invalid: { status: 401, title: "The password is wrong" },
	file_download_invalid: {
		status: 401,
		title: "The download token is missing, spent, expired or for another file",
	},
	challenge_required: { status: 401, title: "A signed challenge is required" },
	challenge_invalid: { status: 401, title: "The challenge nonce is unknown, spent or for another resource" },
	signature_invalid: { status: 401, title: "The signature does not verify" },
	invalid_token: { status: 401, title: "The access token is not valid" },
	event_signature_invalid: { status: 401, title: "The event batch signature does not verify" },
	remote_identity_invalid: { status: 403, title: "The identity could not be verified with its server" },
	identity_revoked: { status: 403, title: "The identity is revoked" },
	attestation_identity_mismatch: { status: 403, title: "The offer is for another identity" },
	attestations_disabled: { status: 403, title: "Issuing attestations is disabled on this server" },
	link_hand_over_not_allowed: { status: 403, title: "The connection may not receive links" },
	request_account_required: { status: 401, title: "Answering a request needs an account on this server" },
	request_closed: { status: 404, title: "The request takes no more answers" },
	request_expired: { status: 404, title: "The request has expired" },
	link_paused: { status: 404, title: "Not found" },
	link_revoked: { status: 404, title: "Not found" },
	link_expired: { status: 404, title: "Not found" },
	link_not_found: { status: 404, title: "The share does not exist" },
	record_not_found: { status: 404, title: "The record does not exist" },
	archive_empty: { status: 404, title: "No file could go into the archive" },
	attestation_offer_expired: { status: 410, title: "The offer has expired" },
	attestation_offer_revoked: { status: 410, title: "The offer was revoked" },
	attestation_offer_claimed: { status: 410, title: "The offer was accepted by another identity" },
	file_not_watermarkable: { status: 415, title: "The file cannot be stamped" },
	remote_unreachable: { status: 502, title: "The other server could not be reached" },
	credential_invalid: { status: 502, title: "The credential the other server issued did not check out" },
	peer_key_unavailable: { status: 503, title: "The sender's key could not be fetched; retry later" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCodes;

export class AppError extends Error {
	readonly code: ErrorCode;
	readonly status: number;
	/** Extra members for the problem body (for example `scope` on `api_key_scope_missing`). */
	readonly extra: Record<string, unknown> | undefined;
	readonly headers: Record<string, string> | undefined;
	/** What the operator's log gets and the caller never sees (how a peer could not be reached). */
	readonly internal: string | undefined;

	constructor(
		code: ErrorCode,
		detail?: string,
		options: {
			extra?: Record<string, unknown>;
			headers?: Record<string, string>;
			internal?: string;
			/** Where the spec pairs one code with two statuses (`passkey_verification_failed`: 401 at
			 * login, 400 at registration), the call site names the other one. */
			status?: number;
		} = {},
	) {
		super(detail ?? errorCodes[code].title);
		this.name = "AppError";
		this.code = code;
		this.status = options.status ?? errorCodes[code].status;
		this.extra = options.extra;
		this.headers = options.headers;
		this.internal = options.internal;
	}
}

export function isAppError(e: unknown): e is AppError {
	return e instanceof AppError;
}
