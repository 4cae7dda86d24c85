// Entries a person shares at sign-in (spec "OpenID Connect provider"): one share per person and
// service, kept by the shares feature's rule of renewing (renewShare) and read by the service with
// a grant token it receives at userinfo only. This feature keeps only the (person, service) slot.
import type { Kysely } from "kysely";
import type { Database, OidcCodeTable } from "../../db/schema.ts";
import { newId, sha256Hex } from "../../lib/crypto.ts";
import { setGrantToken } from "../grants/service.ts";
import { renewShare } from "../shares/service.ts";
import * as store from "./store.ts";

/**
 * Makes the chosen entries the person's one share for the service: kept while it stands, made
 * again when it no longer does, its entries replaced by these, its grant given a fresh token.
 * Entries deleted since the consent are left out; nothing left, nothing shared.
 */
export async function shareEntries(
	db: Kysely<Database>,
	code: OidcCodeTable,
	grantToken: string,
	now: number,
): Promise<{ link: string; keys: string[] } | undefined> {
	const chosen = Object.entries(JSON.parse(code.links) as Record<string, string>);
	if (chosen.length === 0) return undefined;
	const workspace = await store.personalWorkspace(db, code.account);
	if (!workspace) return undefined;
	const ids = chosen.map(([, id]) => id);
	const found = new Set((await store.recordsOf(db, workspace.id, ids)).map((r) => r.id));
	const keys = Object.fromEntries(chosen.filter(([, id]) => found.has(id)));
	const records = [...new Set(Object.values(keys))];
	if (records.length === 0) return undefined;

	// Two sign-ins of one person to one service at once: the one that loses the slot runs again and
	// finds the winner's share.
	for (let attempt = 1; ; attempt++) {
		try {
			return await linkEntries(db, code, workspace.id, records, keys, grantToken, now);
		} catch (err) {
			if (!(err instanceof SlotTaken) || attempt >= 3) throw err;
		}
	}
}

class SlotTaken extends Error {}

async function linkEntries(
	db: Kysely<Database>,
	code: OidcCodeTable,
	workspace: string,
	records: string[],
	keys: Record<string, string>,
	grantToken: string,
	now: number,
): Promise<{ link: string; keys: string[] }> {
	return db.transaction().execute(async (trx) => {
		// Writing the slot first holds it until this transaction ends: a second sign-in of the same
		// person to the same service waits here and then sees this one's share.
		// Without a slot to hold, a slot another sign-in makes meanwhile is not read here: claiming
		// one below then fails, and the retry holds it.
		const held = await store.touchSlot(trx, code.account, code.client_id, now);
		const slot = held ? await store.slotLink(trx, code.account, code.client_id) : undefined;
		// A share that no longer stands (revoked, expired, deleted) stays as it is; a new one is made.
		const share = await renewShare(
			trx,
			slot,
			{
				id: newId(),
				workspace,
				created_by: code.account,
				label: `Sign-in: ${new URL(code.client_id).host}`,
				sign_in_client: code.client_id,
			},
			records,
			now,
		);
		if (share.id !== slot) {
			const claimed = slot
				? await store.replaceSignInLink(trx, code.account, code.client_id, slot, share.id, now)
				: await store.claimSignInLink(trx, code.account, code.client_id, share.id, now);
			if (!claimed) throw new SlotTaken();
		}
		await setGrantToken(trx, share.id, sha256Hex(grantToken), keys, now);
		return { link: share.id, keys: Object.keys(keys) };
	});
}
