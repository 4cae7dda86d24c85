// The notice a request raises when it is answered (issue 40 item 8): to the request's creator while
// a member of its workspace, else that workspace's owner, in the transaction that keeps the answer.
// A local answer and one relayed by another server raise the same notice; answering again says so.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { notifyMaker } from "../notifications/service.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export async function notifyAnswered(db: Db, answerId: string, updated: boolean, now: number): Promise<void> {
	const answer = await store.answerOfLink(db, answerId);
	if (!answer) return;
	const who = answer.sender_name || (answer.server ? `someone on ${answer.server}` : "someone");
	await notifyMaker(
		db,
		answer.request_workspace,
		answer.request_account,
		{
			kind: "request_answered",
			title: updated ? `Answer updated: ${answer.request_label}` : `New answer: ${answer.request_label}`,
			body: `${who} ${updated ? "changed their answer" : "answered"}.`,
			data: {
				request: answer.request,
				label: answer.request_label,
				responseId: answer.id,
				updated,
				...(answer.sender_name ? { senderName: answer.sender_name } : {}),
				...(answer.server ? { server: answer.server } : {}),
			},
		},
		now,
	);
}
