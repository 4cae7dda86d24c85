// Deleting an account (docs/api.md "Deleting an account"), by the person after a passkey
// confirmation or by the operator (`svc admin delete-account`). One transaction, so a crash half-way
// leaves the account whole:
//   1. refused (`account_last_owner`, naming the workspaces) while the account is the last owner of
//      a workspace that is not its personal one: hand it over or delete it first;
//   2. its personal workspace goes by the workspace deletion rules (records, files, templates,
//      members, API keys, shares; identities tombstoned so they verify as revoked);
//   3. it leaves every other workspace like a member leaving (its API keys there revoked); what it
//      made there (records, shares, identities, requests) stays with the workspace;
//   4. the account row goes, and with it (foreign keys) sessions, passkeys, codes, tickets, keys
//      and notifications; an open ceremony of the account is removed explicitly.
// The file blobs of the personal workspace are removed after the commit.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import type { BlobStore } from "../../lib/blob-store.ts";
import { endCeremoniesOf } from "../passkeys/service.ts";
import * as workspaces from "../workspaces/service.ts";
import * as store from "./store.ts";

export interface DeletionDeps {
	db: Kysely<Database>;
	blobs: BlobStore;
	hooks: workspaces.WorkspaceHooks;
}

export async function deleteAccount(deps: DeletionDeps, accountId: string, now: number): Promise<void> {
	const keys = await deps.db.transaction().execute(async (trx) => {
		if (!(await store.lockAccount(trx, accountId))) throw new AppError("not_found", "No such account");
		const memberships = await workspaces.membershipsOf(trx, accountId);
		const personal = (m: (typeof memberships)[number]) => m.personal === 1 && m.owner === accountId;

		const stuck: { id: string; name: string }[] = [];
		for (const m of memberships) {
			if (personal(m) || m.role !== "owner") continue;
			await workspaces.lockWorkspace(trx, m.id);
			if ((await workspaces.countOwners(trx, m.id)) <= 1) stuck.push({ id: m.id, name: m.name });
		}
		if (stuck.length > 0) {
			throw new AppError(
				"account_last_owner",
				`The account is the last owner of ${stuck.map((w) => JSON.stringify(w.name)).join(", ")}: hand it over or delete it first`,
				{ extra: { workspaces: stuck } },
			);
		}

		const blobKeys: string[] = [];
		for (const m of memberships) {
			if (personal(m)) blobKeys.push(...(await workspaces.deleteWorkspaceIn(trx, deps.hooks, m.id, now)));
			else await workspaces.depart(trx, m.id, accountId, now);
		}
		for (const hook of deps.hooks.onAccountDeleted) await hook(trx, accountId, now);
		// Ceremonies name the account without a foreign key: removed with it.
		await endCeremoniesOf(trx, accountId);
		await store.deleteAccountRow(trx, accountId);
		return blobKeys;
	});
	await workspaces.removeBlobs(deps.blobs, keys);
}
