// The notice a share raises when it expires (issue 40 item 8): to the share's creator while a
// member, else the workspace's owner, naming whether its views ran out or its time did. Raised from the status
// change to `expired`, which every reader and the sweep write once (a conditional UPDATE), so one
// expiry is one notice however many nodes found it.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { notifyMaker } from "../notifications/service.ts";
import { capReached } from "./gates/open.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export async function notifyExpired(db: Db, linkId: string, now: number): Promise<void> {
	const link = await store.linkForNotice(db, linkId);
	if (!link) return;
	const reason = capReached(link) ? "views" : "time";
	const name = link.label || "untitled share";
	await notifyMaker(
		db,
		link.workspace,
		link.created_by,
		{
			kind: "link_expired",
			title: reason === "views" ? `Share used up: ${name}` : `Share expired: ${name}`,
			body:
				reason === "views"
					? `All ${link.max_views} views were taken; its address no longer opens.`
					: "It reached its expiry; its address no longer opens.",
			data: { link: link.id, label: link.label, reason, views: link.view_count, maxViews: link.max_views },
		},
		now,
	);
}
