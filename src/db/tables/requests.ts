// Requests, their answers, and the grant tokens answers and remote grants are read with.
// Typed tables; the conventions (times, booleans, JSON) are in ../schema.ts.

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
	/** 1: a responder without an account may sign up here to answer (answer-only account). */
	allow_answer_signup: number;
	/** At most this many answer-only accounts may be created through this request (1 to 1000). */
	answer_signup_limit: number;
	/** Answer-only accounts created through this request so far (taken by a conditional update). */
	answer_signups: number;
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
