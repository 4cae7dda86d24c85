// The read log (docs/api.md "Read log"): the `linkReads` collection lists, per share, every read
// that returned values: a resolve through the API, the share page or the addressbook (written in
// the statement or transaction that takes the view), a file, an archive, a data format downloaded
// from the opened page (under the page's view). Never a value, never the
// reader's address. Rows older than `READ_LOG_DAYS` days are swept.

import type { Kysely } from "kysely";
import { sql } from "kysely";
import { Type } from "typebox";
import type { Database, LinkReadTable } from "../../db/schema.ts";
import { iso, Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";

const KINDS = ["api", "page", "addressbook", "file", "archive", "csv", "vcard", "ical"] as const;

export const LinkRead = Type.Object(
	{
		id: Type.String(),
		link: Type.String({ description: "The share read (`links` id)." }),
		at: Timestamp("When it was read."),
		kind: Type.Union(
			KINDS.map((k) => Type.Literal(k)),
			{
				description:
					"`api` (POST /api/public/links/{slug}), `page` (/s/{slug} in any format), `addressbook` (/dav/s/{slug}/), `file` (a downloadToken spent), `archive` (an archiveToken spent), `csv`, `vcard`, `ical` (a format downloaded from the opened share page with its one-time token, under the page's view).",
			},
		),
		view: Type.Integer({
			description:
				"The view the read took; for `file`, `archive`, `csv`, `vcard` and `ical`, the view whose token it spent; 0 for a file read through a grant (a request's answer opened by its requester), which takes no view.",
		}),
		record: Nullable(Type.String(), "The file read (`file` reads); null otherwise."),
		readerFingerprint: Nullable(
			Type.String(),
			"The proven identity's fingerprint when the read made a handshake; null otherwise.",
		),
	},
	{ $id: "LinkRead", description: "One read of a share that returned values (`linkReads` collection)." },
);

const rule = { scope: "link:read", apiKeys: true };

export const linkReadsCollection = defineCollection<LinkReadTable, never, never>({
	name: "linkReads",
	description:
		"The read log of the active workspace's shares: one entry per read that returned values, newest first. Filter by share with `filter=link='<id>'`. Written by the server only; kept `READ_LOG_DAYS` days.",
	schemas: { item: LinkRead },
	query: {
		id: { type: "text", expr: sql.ref("link_reads.id"), sort: true },
		link: { type: "text", expr: sql.ref("link_reads.link") },
		at: { type: "date", expr: sql.ref("link_reads.at"), sort: true },
		kind: { type: "text", expr: sql.ref("link_reads.kind"), sort: true },
		view: { type: "integer", expr: sql.ref("link_reads.view"), sort: true },
		record: { type: "text", expr: sql.ref("link_reads.record"), nullable: true },
		readerFingerprint: { type: "text", expr: sql.ref("link_reads.reader"), nullable: true },
	},
	defaultSort: "-at",
	access: { list: rule, view: rule },
	refusals: {
		create: "The read log is written by the server, at each read.",
		update: "The read log is written by the server, at each read.",
		delete: "Read-log entries go after READ_LOG_DAYS days, or with their share.",
	},
	idColumn: "link_reads.id",
	select: (db, caller) =>
		db
			.selectFrom("link_reads")
			.where("link_reads.workspace", "=", caller.workspaceId)
			.selectAll("link_reads"),
	toItem: (row) => ({
		id: row.id,
		link: row.link,
		at: iso(row.at),
		kind: row.kind,
		view: row.view,
		record: row.record,
		readerFingerprint: row.reader,
	}),
	handlers: {},
});

/**
 * Deletes read-log rows older than `days` days. The log has no index on time alone (it would cost
 * every view a page): the sweep seeks each share's range of the (link, at) key instead.
 */
export function sweepReads(db: Kysely<Database>, days: number, now: number) {
	return db
		.deleteFrom("link_reads")
		.where("link", "in", db.selectFrom("links").select("id"))
		.where("at", "<", now - days * 86_400_000)
		.executeTakeFirst();
}
