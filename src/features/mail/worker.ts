// The mail pass of the outbox loop (src/background.ts), run in every server process while mail
// is on: notices waiting for mail become mails (to a verified address only, within the caps), then
// due mails are claimed with the lease of db/outbox.ts (two nodes never both take one; the claim
// counts the attempt first) and sent. A 5xx reply fails the mail at once; anything else is retried
// on the callbacks' schedule (30 s doubling to 6 h, about a day and a half). A mail that fails for
// good tells its sender with an in-app `mail_failed` notice, in the transaction that records it and
// only while the claim still holds. A worker that died mid-send leaves a row whose lease lapses; it
// is taken again with the same Message-ID.
import type { Kysely } from "kysely";
import type { Dialect } from "../../db/index.ts";
import type { Database, MailOutboxTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import type { Lang } from "../../http/language.ts";
import { randomToken } from "../../lib/crypto.ts";
import { accountById } from "../accounts/service.ts";
import { type DrainResult, MAX_RETRIES, retryDelay } from "../callbacks/service.ts";
import { createNotification, takeNoticeMails } from "../notifications/service.ts";
import type { Sender } from "./sender.ts";
import { asLang, DAY_MS, type Mailer } from "./service.ts";
import * as store from "./store.ts";
import { render, type Template } from "./templates.ts";

export const LEASE_MS = 120_000;
const KEEP_FINISHED_MS = 7 * DAY_MS;
const CLAIM_BATCH = 10;
/** The most mails one pass takes (src/background.ts goes on at once after a full pass). */
export const MAIL_PER_PASS = 100;

export interface MailWorkerDeps {
	db: Kysely<Database>;
	dialect: Dialect;
	mailer: Mailer;
	sender: Sender;
	domain: string;
	from: string;
	log?: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
}

export async function drainMail(deps: MailWorkerDeps, now: number): Promise<DrainResult> {
	await queueNoticeMails(deps, now);
	const result: DrainResult = { delivered: 0, retrying: 0, failed: 0 };
	for (let taken = 0; taken < MAIL_PER_PASS; ) {
		const lease = randomToken(16);
		const rows = await store.claimDue(deps.db, deps.dialect, {
			now,
			lease,
			leaseUntil: now + LEASE_MS,
			limit: CLAIM_BATCH,
		});
		if (rows.length === 0) break;
		taken += rows.length;
		for (const row of rows) result[await attempt(deps, row, lease, now)]++;
	}
	await store.purgeFinished(deps.db, now - KEEP_FINISHED_MS);
	await store.purgeCounters(deps.db, Math.floor(now / DAY_MS) - 1);
	return result;
}

/** Notices whose mail switch was on become mails; each notice is taken once, by one worker. */
async function queueNoticeMails(deps: MailWorkerDeps, now: number): Promise<void> {
	for (let round = 0; round < 10; round++) {
		const more = await deps.db.transaction().execute(async (trx) => {
			const notices = await takeNoticeMails(trx, 20);
			for (const notice of notices) {
				const account = await accountById(trx, notice.account);
				// Only to an address its owner proved is theirs: no one can aim notices at a stranger.
				if (!account?.email_verified_at) continue;
				try {
					await deps.mailer.queue(
						trx,
						{
							kind: "notice",
							account: notice.account,
							to: account.email,
							language: asLang(account.language) ?? "en",
							template: "notice",
							params: { kind: notice.kind, title: notice.title, body: notice.body },
							link: `${deps.mailer.origin}/app/notifications`,
						},
						now,
					);
				} catch (err) {
					if (!(err instanceof AppError)) throw err;
					deps.log?.warn({ kind: notice.kind, code: err.code }, "notice mail not queued");
				}
			}
			return notices.length === 20;
		});
		if (!more) return;
	}
}

async function attempt(
	deps: MailWorkerDeps,
	row: MailOutboxTable,
	lease: string,
	now: number,
): Promise<keyof DrainResult> {
	const lang = (asLang(row.language) ?? "en") as Lang;
	const mail = render(
		row.template as Template,
		lang,
		JSON.parse(row.params) as Record<string, string>,
		deps.mailer.linkOf(row.secret),
		deps.domain,
	);
	const automatic = row.kind === "notice" || row.kind === "verify" || row.kind === "ticket";
	const sent = await deps.sender.send({
		// The sender line: the server's domain and MAIL_FROM, never a name a user typed.
		from: { name: deps.domain, address: deps.from },
		to: row.recipient,
		...mail,
		messageId: row.message_id,
		headers: automatic ? { "Auto-Submitted": "auto-generated" } : {},
	});
	const last = { last_status: sent.status === 0 ? null : sent.status, last_error: null, updated: now };
	if (sent.ok) {
		await store.finishMail(deps.db, row.id, lease, { ...last, state: "delivered", secret: null });
		return "delivered";
	}
	const detail = sent.detail.slice(0, 500);
	if (!sent.permanent && row.attempts <= MAX_RETRIES) {
		await store.finishMail(deps.db, row.id, lease, {
			...last,
			state: "pending",
			next_attempt: now + retryDelay(row.attempts),
			last_error: detail,
		});
		deps.log?.warn({ mail: row.id, status: sent.status, detail }, "mail not sent; will retry");
		return "retrying";
	}
	await deps.db.transaction().execute(async (trx) => {
		const landed = await store.finishMail(trx, row.id, lease, {
			...last,
			state: "failed",
			last_error: detail,
			secret: null,
		});
		// The claim lapsed and another worker owns the row: its outcome counts, not ours.
		if (!landed?.account) return;
		await createNotification(
			trx,
			{
				account: landed.account,
				workspace: null,
				kind: "mail_failed",
				title: `Mail to ${landed.recipient} was not delivered`,
				body: `The ${landed.kind.replace("_", " ")} mail to ${landed.recipient} failed after ${landed.attempts} attempt${landed.attempts === 1 ? "" : "s"}: ${detail}`,
				data: {
					mailId: landed.id,
					mail: landed.kind,
					recipient: landed.recipient,
					status: sent.status,
					detail,
					attempts: landed.attempts,
				},
			},
			now,
		);
	});
	return "failed";
}
