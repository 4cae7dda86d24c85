// Which notices an account wants (issue 40 item 8): each kind on or off, in-app. Every kind is on
// until its person turns it off; a row is kept only for a kind they changed.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** Every kind the server raises, in the order the console lists them. */
export const NOTICE_KINDS = [
	"request_answered",
	"answer_revoked",
	"callback_failed",
	"link_expired",
	"link_revoked",
	"member_joined",
	"identity_revoked",
	"credential_revoked",
] as const;

export type NoticeKind = (typeof NOTICE_KINDS)[number];

export type NoticeSettings = Record<NoticeKind, boolean>;

export async function inAppOff(db: Db, account: string, kind: NoticeKind): Promise<boolean> {
	return (await store.settingOf(db, account, kind))?.in_app === 0;
}

/** The account's choice for every kind (`true`: raised in-app). */
export async function noticeSettings(db: Db, account: string): Promise<NoticeSettings> {
	const rows = await store.settingsOf(db, account);
	const off = new Set(rows.filter((r) => r.in_app === 0).map((r) => r.kind));
	return Object.fromEntries(NOTICE_KINDS.map((k) => [k, !off.has(k)])) as NoticeSettings;
}

/** Sets the kinds named (the others stay as they are); answers every kind's setting after. */
export async function changeNoticeSettings(
	db: Kysely<Database>,
	account: string,
	changes: Partial<NoticeSettings>,
	now: number,
): Promise<NoticeSettings> {
	const named = NOTICE_KINDS.filter((k) => typeof changes[k] === "boolean");
	await db.transaction().execute(async (trx) => {
		for (const kind of named) await store.upsertSetting(trx, account, kind, changes[kind] === true, now);
	});
	return noticeSettings(db, account);
}
