// The notice an accepted invitation raises (issue 40 item 8): "someone joined" to the workspace's
// owner of record and to whoever sent the invitation, in the transaction that adds the member, so
// one acceptance is one notice even when two are tried at once.
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { accountById } from "../accounts/service.ts";
import { notifyWorkspace } from "../notifications/service.ts";

export interface Joined {
	invitation: string;
	workspace: string;
	workspaceName: string;
	role: string;
	invitedBy: string | null;
}

export async function notifyJoined(
	trx: Transaction<Database>,
	joined: Joined,
	accountId: string,
	now: number,
): Promise<void> {
	const account = await accountById(trx, accountId);
	const who = account ? account.name || account.email : "Someone";
	await notifyWorkspace(
		trx,
		joined.workspace,
		{
			kind: "member_joined",
			title: `${who} joined ${joined.workspaceName}`,
			body: `They accepted an invitation as ${joined.role}.`,
			data: {
				member: accountId,
				name: account?.name ?? "",
				email: account?.email ?? "",
				role: joined.role,
				invitation: joined.invitation,
			},
		},
		now,
		[joined.invitedBy],
	);
}
