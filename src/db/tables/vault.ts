// The vault: sections, records, templates, file tokens; and the notifications of a workspace.
// Typed tables; the conventions (times, booleans, JSON) are in ../schema.ts.

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

/** An account's choice for one notice kind; no row: the default (raised in-app). */
export interface NotificationSettingTable {
	account: string;
	kind: string;
	in_app: number;
	/** 1: also by e-mail (off by default; only while the server has mail on). */
	mail: number;
	updated: number;
}

/** A notice whose mail switch was on, waiting for the mail worker (migration 0023). */
export interface NoticeMailTable {
	id: string;
	account: string;
	workspace: string | null;
	kind: string;
	title: string;
	body: string;
	data: string;
	created: number;
}

export interface FileTokenTable {
	token_hash: string;
	account: string;
	workspace: string;
	via: "session" | "apiKey";
	created: number;
	expires: number;
}
