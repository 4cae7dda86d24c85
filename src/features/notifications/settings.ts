// Which notices an account wants (issue 40 item 8; issue 41 for mail): each kind on or off in-app,
// and each kind on or off by e-mail. In-app is on and mail off until the person changes it; a row
// is kept only for a kind they changed.
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

export interface NoticeChannels {
	inApp: NoticeSettings;
	mail: NoticeSettings;
}

/** How one kind reaches its account: in-app (default on) and by mail (default off). */
export async function channelsOf(db: Db, account: string, kind: NoticeKind) {
	const row = await store.settingOf(db, account, kind);
	return { inApp: row?.in_app !== 0, mail: row?.mail === 1 };
}

/** The account's choice for every kind, in-app and by mail. */
export async function noticeSettings(db: Db, account: string): Promise<NoticeChannels> {
	const rows = new Map((await store.settingsOf(db, account)).map((r) => [r.kind, r]));
	const each = (pick: (kind: NoticeKind) => boolean) =>
		Object.fromEntries(NOTICE_KINDS.map((k) => [k, pick(k)])) as NoticeSettings;
	return {
		inApp: each((k) => rows.get(k)?.in_app !== 0),
		mail: each((k) => rows.get(k)?.mail === 1),
	};
}

/** Sets the kinds named (the others stay as they are); answers every kind's setting after. */
export async function changeNoticeSettings(
	db: Kysely<Database>,
	account: string,
	changes: { inApp?: Partial<NoticeSettings> | undefined; mail?: Partial<NoticeSettings> | undefined },
	now: number,
): Promise<NoticeChannels> {
	const named = NOTICE_KINDS.filter(
		(k) => typeof changes.inApp?.[k] === "boolean" || typeof changes.mail?.[k] === "boolean",
	);
	await db.transaction().execute(async (trx) => {
		for (const kind of named) {
			const was = await channelsOf(trx, account, kind);
			const inApp = changes.inApp?.[kind] ?? was.inApp;
			const mail = changes.mail?.[kind] ?? was.mail;
			await store.upsertSetting(trx, account, kind, { inApp, mail }, now);
		}
	});
	return noticeSettings(db, account);
}
