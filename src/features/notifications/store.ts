import type { Kysely, Transaction } from "kysely";
import type { Database, NoticeMailTable, NotificationTable } from "../../db/schema.ts";

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

/** The workspace's owner of record: whom notices "to the workspace's owner" go to. */
export async function workspaceOwner(db: Db, workspaceId: string): Promise<string | undefined> {
	const row = await db
		.selectFrom("workspaces")
		.select("owner")
		.where("id", "=", workspaceId)
		.executeTakeFirst();
	return row?.owner;
}

/** Which of `accounts` are members of the workspace. */
export async function membersAmong(
	db: Db,
	workspaceId: string,
	accounts: readonly string[],
): Promise<string[]> {
	const rows = await db
		.selectFrom("members")
		.select("account")
		.where("workspace", "=", workspaceId)
		.where("account", "in", [...accounts])
		.execute();
	return rows.map((r) => r.account);
}

export function settingOf(db: Db, account: string, kind: string) {
	return db
		.selectFrom("notification_settings")
		.select(["in_app", "mail"])
		.where("account", "=", account)
		.where("kind", "=", kind)
		.executeTakeFirst();
}

export function settingsOf(db: Db, account: string) {
	return db
		.selectFrom("notification_settings")
		.select(["kind", "in_app", "mail"])
		.where("account", "=", account)
		.execute();
}

export function upsertSetting(
	db: Db,
	account: string,
	kind: string,
	on: { inApp: boolean; mail: boolean },
	now: number,
) {
	const set = { in_app: on.inApp ? 1 : 0, mail: on.mail ? 1 : 0, updated: now };
	return db
		.insertInto("notification_settings")
		.values({ account, kind, ...set })
		.onConflict((oc) => oc.columns(["account", "kind"]).doUpdateSet(set))
		.execute();
}

export function insertNoticeMail(db: Db, row: NoticeMailTable) {
	return db.insertInto("notice_mails").values(row).execute();
}

/**
 * Takes up to `limit` notices waiting for mail, each removed by the statement that returns it, so
 * two workers never take one.
 */
export function takeNoticeMails(db: Db, limit: number) {
	const oldest = db.selectFrom("notice_mails").select("id").orderBy("created").orderBy("id").limit(limit);
	return db.deleteFrom("notice_mails").where("id", "in", oldest).returningAll().execute();
}
