// Hook for the `identity` relation on records (spec: "an identity relation on any record is
// ownership-checked: attaching an identity the caller does not own is refused").
//
// The identities feature's check: the identity must belong to the caller's workspace; another
// workspace's or an unknown identity is refused alike (400 `validation_failed`, `body.identity`).
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../../db/schema.ts";
import type { AccountCaller } from "../../../http/auth.ts";
import { checkIdentityOwnership as checkOwnedIdentity } from "../../identity/service.ts";

export async function checkIdentityOwnership(
	db: Kysely<Database> | Transaction<Database>,
	caller: Pick<AccountCaller, "workspaceId" | "accountId">,
	identityId: string,
): Promise<void> {
	await checkOwnedIdentity(db, caller, identityId);
}
