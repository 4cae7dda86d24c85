// What goes out: the callback outbox, grant events for other servers, and connected tools.
// Typed tables; the conventions (times, booleans, JSON) are in ../schema.ts.

/** The delivery columns every outbox shares: the lease and retry schedule of db/outbox.ts. */
export interface DeliveryColumns {
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

export interface OutboxTable extends DeliveryColumns {
	id: string;
	kind: "submission" | "grant_event";
	request: string;
	url: string;
	/** The JSON body, exactly as it is POSTed. */
	payload: string;
}

/** A grant event for the server a grant was handed to, sent in signed batches (migration 0015). */
export interface PeerEventTable extends DeliveryColumns {
	id: string;
	peer: string;
	grant_id: string;
	request_slug: string | null;
	event: string;
	status: string;
	at: number;
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

/** A mail waiting to be sent, sending, or kept a while after (migration 0023; a leased outbox). */
export interface MailOutboxTable extends DeliveryColumns {
	id: string;
	kind: "invitation" | "request_link" | "notice" | "ticket" | "verify";
	/** The account that sends it (whose notices, whose invitation); null for the operator's ticket. */
	account: string | null;
	recipient: string;
	language: string;
	template: string;
	/** JSON: what the template names (ids, labels), never a vault value. */
	params: string;
	/** The one link the mail carries, sealed with a key derived from the root key; cleared once finished. */
	secret: string | null;
	/** Fixed per row, so a receiver can tell a repeat after a crash mid-send. */
	message_id: string;
}

/** Mails counted per account or recipient and UTC day, for the rate limits. */
export interface MailCounterTable {
	scope: string;
	day: number;
	sent: number;
}
