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

export interface Database {
	server_keys: ServerKeyTable;
	accounts: AccountTable;
	workspaces: WorkspaceTable;
	members: MemberTable;
	sessions: SessionTable;
	passkeys: PasskeyTable;
}
