// The rows and parameters of a share's public queries (public-queries.ts).
import { type Kysely, PostgresAdapter } from "kysely";
import type { Database, LinkTable, LinkTokenTable, ReadKind, RecordTable } from "../../../db/schema.ts";

/** A link with what its public pages show of the sharer. */
export type PublicLinkRow = Omit<
	LinkTable,
	"created_by" | "created" | "updated" | "sign_in_client" | "connection"
> & {
	sharer_name: string;
	identity_name: string | null;
	identity_fingerprint: string | null;
};

/** A record a share grants, with its alias's current value and how it is granted. */
export type GrantedRecordRow = Omit<RecordTable, "workspace" | "identity"> & {
	target_value: string | null;
	/** 0: named by the link; 1: through a section it names. */
	via: number;
	/** Position of the naming row (link order): the record's, or its section's. */
	pos: number;
};

/**
 * A row of the grants in one statement (`grantsQuery`): a record (`via` 0 or 1) as
 * GrantedRecordRow with its section on its row (`section_*`), or (`via` 2) a section the link
 * names that holds no record, in `section` and `section_*` with `pos` its place among them.
 */
export type GrantRow = GrantedRecordRow & {
	section_key: string | null;
	section_name: string | null;
	section_ordering: number | null;
	section_created: number | null;
};

export interface GrantedSectionRow {
	id: string;
	key: string;
	name: string;
	ordering: number;
	/** Position among the sections the link names; null for a section only holding a granted record. */
	named_pos: number | null;
	created: number;
}

/** The open resolve's row: the view taken and what the share grants. */
export interface OpenResolveRow {
	id: string;
	workspace: string;
	slug: string;
	label: string;
	purpose: string;
	identity: string | null;
	stamp: string | null;
	view_count: number;
	status: LinkTable["status"];
	records: GrantedRecordRow[];
	sections: GrantedSectionRow[];
}

export interface SpentToken {
	link: string;
	kind: LinkTokenTable["kind"];
	record: string | null;
	view: number;
	stamp_line: string | null;
	reader: string | null;
	expires: number;
}

/** A view to take and the read it is: `readId` names the read-log row. */
export type ViewParams = {
	id: string;
	now: number;
	readId: string;
	kind: ReadKind;
	reader: string | null;
};

export interface TakenView {
	view_count: number;
	status: LinkTable["status"];
}

/** The read-log rows of the views a statement takes, in view order: their ids and times. */
export type LoggedViews = { readIds: string[]; ats: number[] };

/** An open read (`resolveOpen`): its read-log id and its time. */
export interface OpenRead {
	readId: string;
	now: number;
}

/** One read-log row (docs/api.md "Read log"): never a value, never the reader's address. */
export type ReadParams = {
	readId: string;
	id: string;
	workspace: string;
	now: number;
	kind: ReadKind;
	view: number;
	record: string | null;
	reader: string | null;
};

/** A placeholder (`param`) or a column of an enclosing query, compared against. */
// biome-ignore lint/suspicious/noExplicitAny: both stand for a value of the compared column's type
export type Operand = any;

/** At most this many probes share one read of a share (PostgreSQL), or shares' reads are kept (SQLite). */
export const MAX_SHARED_READ = 256;

export function onPostgres(db: Kysely<Database>): boolean {
	return db.getExecutor().adapter instanceof PostgresAdapter;
}
