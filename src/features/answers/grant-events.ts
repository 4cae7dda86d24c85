// The grant events of answers (spec "Events", "Grant events"): an answer is a share in the
// responder's workspace, so the shares feature's grant hooks tell this module when one pauses,
// resumes, is revoked, expires or is deleted, and when a record behind one changes. Each becomes an
// outbox row for the request's callback, in the transaction of the change.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { GrantEventName } from "../callbacks/service.ts";
import { enqueueGrantEvent, enqueueGrantEvents, type GrantEventInput } from "../callbacks/service.ts";
import { raiseNotice } from "../notifications/service.ts";
import {
	changeLinkStatus,
	expireLinks,
	type GrantHooks,
	grantsBeyond,
	type LinkStatusChange,
	type RecordsChange,
} from "../shares/service.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

const SWEEP_BATCH = 500;
/** How often the server process sweeps answers past their expiry (src/background.ts). */
export const ANSWER_SWEEP_MS = 60_000;

async function announce(db: Db, linkId: string, event: GrantEventName, status: string, now: number) {
	const answer = await store.answerOfLink(db, linkId);
	if (!answer) return;
	await enqueueGrantEvent(
		db,
		{ requestId: answer.request, responseId: answer.id, event, status, at: now },
		now,
	);
	if (event === "grant.revoked") await notifyRevoked(db, answer, now);
}

type AnswerOfLink = NonNullable<Awaited<ReturnType<typeof store.answerOfLink>>>;

/** The requester learns in-app of a revoked answer (the request's creator, else its workspace's owner). */
async function notifyRevoked(db: Db, answer: AnswerOfLink, now: number) {
	await raiseNotice(
		db,
		{
			account: answer.request_account ?? answer.request_owner,
			workspace: answer.request_workspace,
			kind: "answer_revoked",
			title: `An answer to "${answer.request_label}" was revoked`,
			body: "The responder revoked the answer; its values are no longer readable.",
			data: { request: answer.request, label: answer.request_label, responseId: answer.id },
		},
		now,
	);
}

/** An answer kept on another server was revoked there: the same in-app notice as a local one. */
export async function notifyAnswerRevoked(db: Db, answerId: string, now: number) {
	const answer = await store.answerOfLink(db, answerId);
	if (answer) await notifyRevoked(db, answer, now);
}

/** Pause and resume change an answer; revoking revokes it; reaching its expiry or view cap expires it. */
export async function onLinkStatus(db: Db, change: LinkStatusChange, now: number) {
	const event: GrantEventName =
		change.to === "revoked" ? "grant.revoked" : change.to === "expired" ? "grant.expired" : "grant.changed";
	await announce(db, change.link, event, change.to, now);
}

export async function onLinkDeleted(db: Db, linkId: string, now: number) {
	await announce(db, linkId, "grant.revoked", "revoked", now);
}

/**
 * A record change reaches every active answer resolving it, aliases and sections included:
 * `grant.changed`; a deletion that leaves an answer nothing revokes it, through the shares
 * transition table like any revocation (the revocation hook announces it).
 */
async function onRecordsChanged(hooks: GrantHooks, db: Db, change: RecordsChange, now: number) {
	const links = await store.answerLinksResolving(db, change.records);
	const changed: GrantEventInput[] = [];
	for (const link of links) {
		if (change.deleted && !(await grantsBeyond(db, link.id, change.records))) {
			const actor = { kind: "system", reason: "because the last entry it granted was deleted" } as const;
			await changeLinkStatus(db, link, "revoked", actor, now, hooks);
			continue;
		}
		changed.push({
			requestId: link.request,
			responseId: link.id,
			event: "grant.changed",
			status: "active",
			at: now,
		});
	}
	await enqueueGrantEvents(db, changed, now);
}

/** A deleted workspace takes its answers with it: each still standing is revoked. */
export async function onWorkspaceDeleted(db: Db, workspaceId: string, now: number) {
	for (const answer of await store.answersInWorkspace(db, workspaceId)) {
		if (answer.status === "active" || answer.status === "paused")
			await announce(db, answer.id, "grant.revoked", "revoked", now);
	}
}

export function registerAnswerHooks(hooks: GrantHooks) {
	hooks.onLinkStatus.push(onLinkStatus);
	hooks.onLinkDeleted.push(onLinkDeleted);
	hooks.onRecordsChanged.push((db, change, now) => onRecordsChanged(hooks, db, change, now));
}

/** Answers whose expiry passed with nobody reading them: expire them and announce it. */
export async function sweepExpiredAnswers(
	db: Kysely<Database>,
	hooks: GrantHooks,
	now: number,
): Promise<number> {
	const due = await store.expiredAnswerLinks(db, now, SWEEP_BATCH);
	return expireLinks(
		db,
		hooks,
		due.map((l) => l.id),
		now,
	);
}
