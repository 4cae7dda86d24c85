// Hook for the `identity` relation on records (spec: "an identity relation on any record is
// ownership-checked: attaching an identity the caller does not own is refused").
//
// The identities feature fills this in with its ownership check. Until then no identity exists
// that a caller could own, so every non-empty identity is refused, naming the field.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../../db/schema.ts";
import type { AccountCaller } from "../../../http/auth.ts";
import { invalidField } from "../../collections/fields.ts";

export async function checkIdentityOwnership(
	_db: Kysely<Database> | Transaction<Database>,
	_caller: Pick<AccountCaller, "workspaceId" | "accountId">,
	_identityId: string,
): Promise<void> {
	throw invalidField("identity", "is not an identity of this workspace");
}
