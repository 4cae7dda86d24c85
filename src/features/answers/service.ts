// What other features ask of answers: a request's gates (gates.ts), the checks and writes of an
// answer's values (submit.ts) that a relayed answer shares, and the writes of `request_answers`
// rows that other features cause, each in the caller's transaction.

import type { Kysely, Transaction } from "kysely";
import type { Database, RequestAnswerTable } from "../../db/schema.ts";
import { notifyAnswerRevoked } from "./grant-events.ts";
import { notifyAnswered } from "./notices.ts";
import * as store from "./store.ts";

export type { RemoteReader, RemoteValue } from "./collected.ts";
export { localProof, type OpenRequest, passRequestGates, type RequestGateInput } from "./gates.ts";
export { ANSWER_SWEEP_MS, sweepExpiredAnswers } from "./grant-events.ts";
export { type AnswerInput, checkValue, keepMinted, MAX_VALUE_LENGTH, plan } from "./submit.ts";

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Records a peer's event on the remote answer it names (grants/events-in.ts), unless one as new
 * or newer was recorded: one conditional UPDATE, so a late or repeated event changes nothing.
 * An applied revocation of an answer not yet known as revoked notifies the requester in-app, as a
 * local answer's does (spec "Notifications"). The answer when it applied.
 */
export async function applyRemoteStatus(
	db: Db,
	server: string,
	grantId: string,
	status: string,
	at: number,
	now: number,
) {
	const before =
		status === "revoked"
			? await db
					.selectFrom("request_answers")
					.select("remote_status")
					.where("server", "=", server)
					.where("grant_id", "=", grantId)
					.executeTakeFirst()
			: undefined;
	const applied = await db
		.updateTable("request_answers")
		.set({ remote_status: status, remote_at: at })
		.where("server", "=", server)
		.where("grant_id", "=", grantId)
		.where((eb) => eb.or([eb("remote_at", "is", null), eb("remote_at", "<", at)]))
		.returning(["id", "request"])
		.executeTakeFirst();
	if (applied && status === "revoked" && before?.remote_status !== "revoked") {
		await notifyAnswerRevoked(db, applied.id, now);
	}
	return applied;
}

/** The answer a remote grant already gave (one per server and grant), to be kept in place. */
export function remoteAnswerOf(db: Db, server: string, grantId: string) {
	return db
		.selectFrom("request_answers")
		.select(["id", "created", "request"])
		.where("server", "=", server)
		.where("grant_id", "=", grantId)
		.executeTakeFirst();
}

/**
 * Writes a remote answer's row (grants/accept.ts): new, or the existing one updated with its id and
 * creation kept; the requester hears of it in-app as of a local answer.
 */
export async function keepRemoteAnswer(db: Db, row: RequestAnswerTable, exists: boolean): Promise<void> {
	await store.writeAnswer(db, row, exists);
	await notifyAnswered(db, row.id, exists, row.updated);
}

/** The row of an answer kept on the responder's server (answers/store.ts's `answerRow`). */
export function remoteAnswerRow(
	answer: Omit<Extract<Parameters<typeof store.answerRow>[0], { kind: "remote" }>, "kind">,
): RequestAnswerTable {
	return store.answerRow({ kind: "remote", ...answer });
}
