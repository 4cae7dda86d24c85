// What other features use of grants: a sign-in share's grant token (OIDC), and the drain of grant
// events owed to other servers (the callbacks worker runs it beside its own deliveries).
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import * as store from "./store.ts";

export { drainPeerEvents, PEER_EVENTS_PER_PASS, type PeerEventDeps } from "./events-out.ts";
export { answerFile } from "./files.ts";
export { createRemoteReader } from "./remote-cache.ts";
export { grantStands } from "./resolve.ts";

/**
 * The grant a share is read through with a token (spec "Remote grant and bulk read"), given the
 * entries' keys and a fresh token hash: an earlier token of the share stops working.
 */
export async function setGrantToken(
	db: Kysely<Database> | Transaction<Database>,
	linkId: string,
	tokenHash: string,
	keys: Record<string, string>,
	now: number,
): Promise<void> {
	await store.upsertGrant(db, { link: linkId, token_hash: tokenHash, keys: JSON.stringify(keys) }, now);
}
