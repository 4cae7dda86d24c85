// In-app notifications. Other features raise them (a failed callback delivery: kind
// `callback_failed`; an answer received or revoked; a share revoked or expired; a member joined; an
// identity or a credential revoked) with raiseNotice or notifyWorkspace; owners list them
// and mark them read through the `notifications` collection, and turn each kind off or on for their
// account, in-app and by mail (settings.ts). A notice names ids and reasons, never a vault value.
// A notice whose mail switch is on is kept in `notice_mails`, in the transaction that raises it;
// the mail worker (features/mail, loaded only when SMTP_URL is set) takes it from there.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { newId } from "../../lib/crypto.ts";
import { channelsOf } from "./settings.ts";
import * as store from "./store.ts";

export {
	changeNoticeSettings,
	NOTICE_KINDS,
	type NoticeChannels,
	type NoticeKind,
	noticeSettings,
} from "./settings.ts";

import type { NoticeKind } from "./settings.ts";

type Db = Kysely<Database> | Transaction<Database>;

export interface NewNotification {
	/** The recipient. */
	account: string;
	/** The workspace it is about; null for the account itself. */
	workspace: string | null;
	/** A short machine name: one of NOTICE_KINDS when raised by the server. */
	kind: string;
	title: string;
	body?: string;
	/** Ids and reasons a client may act on (and link to); never a vault value or a secret. */
	data?: Record<string, unknown>;
}

/** A notice the server raises: of a kind its recipient can turn off. */
export type Notice = NewNotification & { kind: NoticeKind };

/** Writes one notification, whatever the recipient's settings (features call raiseNotice). */
export async function createNotification(db: Db, input: NewNotification, now: number): Promise<string> {
	const id = newId();
	await store.insertNotification(db, {
		id,
		account: input.account,
		workspace: input.workspace,
		kind: input.kind.slice(0, 64),
		title: input.title.slice(0, 200),
		body: input.body ?? "",
		data: JSON.stringify(input.data ?? {}),
		read: 0,
		created: now,
		updated: now,
	});
	return id;
}

/**
 * Raises one notice in-app unless its recipient turned the kind off, and keeps it for mail when
 * they turned its mail on. Answers the in-app notification's id, or null.
 */
export async function raiseNotice(db: Db, input: Notice, now: number): Promise<string | null> {
	const on = await channelsOf(db, input.account, input.kind);
	if (on.mail) {
		await store.insertNoticeMail(db, {
			id: newId(),
			account: input.account,
			workspace: input.workspace,
			kind: input.kind,
			title: input.title.slice(0, 200),
			body: input.body ?? "",
			data: JSON.stringify(input.data ?? {}),
			created: now,
		});
	}
	return on.inApp ? createNotification(db, input, now) : null;
}

/** Notices waiting for mail, each taken once (the mail worker, features/mail). */
export function takeNoticeMails(db: Db, limit: number) {
	return store.takeNoticeMails(db, limit);
}

/**
 * A notice about a workspace to its owner of record and to `also` (the inviter, the identity's
 * creator…) while they are still members there; each person once.
 */
export async function notifyWorkspace(
	db: Db,
	workspaceId: string,
	notice: Omit<Notice, "account" | "workspace">,
	now: number,
	also: readonly (string | null | undefined)[] = [],
): Promise<void> {
	const owner = await store.workspaceOwner(db, workspaceId);
	if (!owner) return;
	const others = also.filter((a): a is string => typeof a === "string" && a !== owner);
	const members = others.length > 0 ? await store.membersAmong(db, workspaceId, others) : [];
	for (const account of new Set([owner, ...members])) {
		await raiseNotice(db, { ...notice, account, workspace: workspaceId }, now);
	}
}

/**
 * A notice about something a person made in a workspace (a share, a request, an identity): to that
 * person while still a member there, else to the workspace's owner of record.
 */
export async function notifyMaker(
	db: Db,
	workspaceId: string,
	maker: string | null | undefined,
	notice: Omit<Notice, "account" | "workspace">,
	now: number,
): Promise<void> {
	const member = maker ? await store.membersAmong(db, workspaceId, [maker]) : [];
	const account = member[0] ?? (await store.workspaceOwner(db, workspaceId));
	if (account) await raiseNotice(db, { ...notice, account, workspace: workspaceId }, now);
}

/**
 * The notifications about a workspace: all of them when it is deleted, or one account's when
 * it leaves (workspaces/). Runs in the caller's transaction.
 */
export async function deleteWorkspaceNotifications(
	db: Db,
	workspaceId: string,
	accountId?: string,
): Promise<void> {
	await store.deleteWorkspaceNotifications(db, workspaceId, accountId);
}
