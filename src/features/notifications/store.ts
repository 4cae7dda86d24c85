import type { Kysely, Transaction } from "kysely";
import type { Database, NotificationTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** The account's notifications about the given workspace or about the account itself. */
export function selectNotifications(db: Db, accountId: string, workspaceId: string) {
	return db
		.selectFrom("notifications")
		.selectAll("notifications")
		.where("notifications.account", "=", accountId)
		.where((eb) =>
			eb.or([eb("notifications.workspace", "=", workspaceId), eb("notifications.workspace", "is", null)]),
		);
}

export function insertNotification(db: Db, row: NotificationTable) {
	return db.insertInto("notifications").values(row).execute();
}

export function setRead(db: Db, id: string, read: boolean, now: number) {
	return db
		.updateTable("notifications")
		.set({ read: read ? 1 : 0, updated: now })
		.where("id", "=", id)
		.execute();
}

export function deleteNotification(db: Db, id: string) {
	return db.deleteFrom("notifications").where("id", "=", id).execute();
}

/** The notifications about a workspace, or only those of one account about it. */
export function deleteWorkspaceNotifications(db: Db, workspaceId: string, accountId?: string) {
	return db
		.deleteFrom("notifications")
		.where("workspace", "=", workspaceId)
		.$if(accountId !== undefined, (qb) => qb.where("account", "=", accountId as string))
		.execute();
}
