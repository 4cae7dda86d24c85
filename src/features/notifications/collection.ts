// The `notifications` collection: the caller's own notifications about the active workspace (or
// about the account). Created by the server only (createNotification); a client lists them, marks
// them read with PATCH `{read: true}` and may delete them.
import { sql } from "kysely";
import { Type } from "typebox";
import type { NotificationTable } from "../../db/schema.ts";
import { iso, Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import * as store from "./store.ts";

export const Notification = Type.Object(
	{
		id: Type.String(),
		workspace: Nullable(Type.String(), "The workspace it is about; null when about the account."),
		kind: Type.String({
			description:
				'`request_answered`, `answer_revoked`, `callback_failed`, `link_expired`, `link_revoked`, `member_joined`, `identity_revoked`, `credential_revoked` or `mail_failed` (docs/api.md "Notifications").',
		}),
		title: Type.String(),
		body: Type.String(),
		data: Type.Record(Type.String(), Type.Unknown(), {
			description:
				"Ids and reasons, e.g. `{link, reason}` for `link_expired`; the id names what it is about. Never a vault value.",
		}),
		read: Type.Boolean(),
		created: Timestamp("When it was raised."),
		updated: Timestamp("Last change (marking read)."),
	},
	{ $id: "Notification", description: "An in-app notification (`notifications` collection)." },
);

const NotificationUpdate = Type.Object({ read: Type.Boolean() }, { additionalProperties: false });

const rule = (scope: string) => ({ scope, apiKeys: true });

export const notificationsCollection = defineCollection<NotificationTable, never, { read: boolean }>({
	name: "notifications",
	description: "The caller's notifications about the active workspace or the account.",
	schemas: { item: Notification, update: NotificationUpdate },
	query: {
		id: { type: "text", expr: sql.ref("notifications.id"), sort: true },
		kind: { type: "text", expr: sql.ref("notifications.kind"), sort: true },
		read: { type: "boolean", expr: sql.ref("notifications.read"), sort: true },
		created: { type: "date", expr: sql.ref("notifications.created"), sort: true },
		updated: { type: "date", expr: sql.ref("notifications.updated"), sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("notification:read"),
		view: rule("notification:read"),
		update: rule("notification:write"),
		delete: rule("notification:write"),
	},
	refusals: { create: "Notifications are raised by the server, never created through the API." },
	idColumn: "notifications.id",
	select: (db, caller) => store.selectNotifications(db, caller.accountId, caller.workspaceId),
	toItem: (row) => ({
		id: row.id,
		workspace: row.workspace,
		kind: row.kind,
		title: row.title,
		body: row.body,
		data: JSON.parse(row.data) as Record<string, unknown>,
		read: row.read === 1,
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		async update({ db, now }, row, input) {
			if ((input.read ? 1 : 0) !== row.read) await store.setRead(db, row.id, input.read, now);
		},
		async delete({ db }, row) {
			await store.deleteNotification(db, row.id);
		},
	},
});
