// Shares (links), what they grant, their one-time tokens and their read log.
// Typed tables; the conventions (times, booleans, JSON) are in ../schema.ts.
import type { ShareStatus } from "../../lib/share-status.ts";

export interface LinkTable {
	id: string;
	workspace: string;
	slug: string;
	label: string;
	status: ShareStatus;
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
	/** `download` (bound to `record`), `archive`, or a data format of the share page (`csv`, `vcard`, `ical`). */
	kind: "download" | "archive" | FormatTokenKind;
	record: string | null;
	view: number;
	stamp_line: string | null;
	/** The fingerprint the resolve proved (handshake shares), for the read log. */
	reader: string | null;
	created: number;
	expires: number;
}

/** The data formats the share page offers with a one-time token (docs/api.md "Share page and formats"). */
export type FormatTokenKind = "csv" | "vcard" | "ical";

/** How a share was read: a view taken (`api`, `page`, `addressbook`), or a token of a view spent. */
export type ReadKind = "api" | "page" | "addressbook" | "file" | "archive" | FormatTokenKind;

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
