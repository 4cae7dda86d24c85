// Extension points for what watches shares and the records behind them (the requests feature
// turns these into grant events for answer-born shares). Kept per app, like workspace hooks.
// Every hook runs inside the transaction of the change it reports, so what it writes (an outbox
// row) commits or rolls back with the change; a hook that throws rolls the change back.
import type { Kysely, Transaction } from "kysely";
import type { Database, LinkTable } from "../../db/schema.ts";
import { notifyExpired } from "./notices.ts";

type Db = Kysely<Database> | Transaction<Database>;
export type LinkStatus = LinkTable["status"];

export interface LinkStatusChange {
	link: string;
	from: LinkStatus;
	to: LinkStatus;
}

export interface RecordsChange {
	/** The records whose value or file changed, or that were deleted. */
	records: string[];
	deleted: boolean;
}

export interface GrantHooks {
	/** A share moved from one status to another (paused, resumed, revoked, expired). */
	onLinkStatus: ((db: Db, change: LinkStatusChange, now: number) => Promise<unknown>)[];
	/** A share is about to be deleted (its rows still exist). */
	onLinkDeleted: ((db: Db, linkId: string, now: number) => Promise<unknown>)[];
	/** Records changed or are about to be deleted (their grant rows still exist). */
	onRecordsChanged: ((db: Db, change: RecordsChange, now: number) => Promise<unknown>)[];
}

export function createGrantHooks(): GrantHooks {
	return { onLinkStatus: [], onLinkDeleted: [], onRecordsChanged: [] };
}

export async function runLinkStatus(
	hooks: GrantHooks | undefined,
	db: Db,
	change: LinkStatusChange,
	now: number,
) {
	if (change.from === change.to) return;
	// Every move to `expired` passes here once (its write is conditional): the owner hears of it.
	if (change.to === "expired") await notifyExpired(db, change.link, now);
	for (const hook of hooks?.onLinkStatus ?? []) await hook(db, change, now);
}

export async function runLinkDeleted(hooks: GrantHooks | undefined, db: Db, linkId: string, now: number) {
	for (const hook of hooks?.onLinkDeleted ?? []) await hook(db, linkId, now);
}

export async function runRecordsChanged(
	hooks: GrantHooks | undefined,
	db: Db,
	change: RecordsChange,
	now: number,
) {
	if (change.records.length === 0) return;
	for (const hook of hooks?.onRecordsChanged ?? []) await hook(db, change, now);
}

declare module "fastify" {
	interface FastifyInstance {
		grantHooks: GrantHooks;
	}
}
