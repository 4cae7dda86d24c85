// In-app notifications. Other features create them (a failed callback delivery: kind
// `callback_failed`; a revoked answer; a tool's revocation) with createNotification; owners list
// them and mark them read through the `notifications` collection.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { newId } from "../../lib/crypto.ts";
import * as store from "./store.ts";

export interface NewNotification {
	/** The recipient. */
	account: string;
	/** The workspace it is about; null for the account itself. */
	workspace: string | null;
	/** A short machine name, e.g. `callback_failed`. */
	kind: string;
	title: string;
	body?: string;
	/** Ids and reasons a client may act on; never a vault value or a secret. */
	data?: Record<string, unknown>;
}

export async function createNotification(
	db: Kysely<Database> | Transaction<Database>,
	input: NewNotification,
	now: number,
): Promise<string> {
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
 * The notifications about a workspace: all of them when it is deleted, or one account's when
 * it leaves (workspaces/). Runs in the caller's transaction.
 */
export async function deleteWorkspaceNotifications(
	db: Kysely<Database> | Transaction<Database>,
	workspaceId: string,
	accountId?: string,
): Promise<void> {
	await store.deleteWorkspaceNotifications(db, workspaceId, accountId);
}
