// Kysely queries of the mail feature: the leased `mail_outbox` (through db/outbox.ts, the lease
// callbacks and grant events take) and the per-day `mail_counters`.
import { type Kysely, sql, type Transaction } from "kysely";
import type { Dialect } from "../../db/index.ts";
import * as outbox from "../../db/outbox.ts";
import type { Database, MailOutboxTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function insertMail(db: Db, row: MailOutboxTable) {
	return db.insertInto("mail_outbox").values(row).execute();
}

/**
 * Counts one mail against `scope`'s cap for `day` with one conditional upsert: the row is made at 1
 * or raised by one only while below the cap, so two nodes cannot both take the last one. False
 * when the cap was reached.
 */
export async function takeOne(db: Db, scope: string, day: number, cap: number): Promise<boolean> {
	const row = await db
		.insertInto("mail_counters")
		.values({ scope, day, sent: 1 })
		.onConflict((oc) =>
			oc
				.columns(["scope", "day"])
				.doUpdateSet({ sent: sql<number>`mail_counters.sent + 1` })
				.where("mail_counters.sent", "<", cap),
		)
		.returning("sent")
		.executeTakeFirst();
	return row !== undefined;
}

export function purgeCounters(db: Db, beforeDay: number) {
	return db.deleteFrom("mail_counters").where("day", "<", beforeDay).execute();
}

/** Claims due mails (db/outbox.ts); a lapsed claim is taken again (the Message-ID stays the same). */
export function claimDue(db: Kysely<Database>, dialect: Dialect, input: outbox.ClaimInput) {
	return outbox.claimDue(db, dialect, "mail_outbox", input);
}

/** Records an attempt's outcome only while the claim `lease` still holds; answers the row, or undefined. */
export async function finishMail(
	db: Db,
	id: string,
	lease: string,
	outcome: outbox.Outcome<"mail_outbox"> & { secret?: null },
): Promise<MailOutboxTable | undefined> {
	const { secret, ...rest } = outcome;
	const [landed] = await outbox.finishClaimed(db, "mail_outbox", [id], lease, rest);
	// The one link a finished mail carried is no longer kept.
	if (landed && secret === null) {
		await db.updateTable("mail_outbox").set({ secret: null }).where("id", "=", id).execute();
	}
	return landed;
}

export function purgeFinished(db: Db, before: number) {
	return outbox.purgeFinished(db, "mail_outbox", before);
}

export function findMail(db: Db, id: string) {
	return db.selectFrom("mail_outbox").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Takes back one counted mail (a refusal by the other cap counts nothing). */
export function giveBack(db: Db, scope: string, day: number) {
	return db
		.updateTable("mail_counters")
		.set({ sent: sql<number>`sent - 1` })
		.where("scope", "=", scope)
		.where("day", "=", day)
		.execute();
}
