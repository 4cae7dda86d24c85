// Extension points other features register into, kept per app (tests build many apps in one process).
//
// onWorkspaceDeleted: called inside the one transaction that deletes a workspace, before its rows
// go, so a feature can revoke and tombstone what it issued for it (identities) or delete what has
// no cascade. A hook that throws rolls the whole deletion back. Register with
//   app.workspaceHooks.onWorkspaceDeleted.push((trx, workspaceId, now) => ...)
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";

export type WorkspaceDeletedHook = (
	trx: Transaction<Database>,
	workspaceId: string,
	now: number,
) => Promise<unknown>;

/** Called inside the transaction that deletes an account, before its rows go (attestations it issued). */
export type AccountDeletedHook = (
	trx: Transaction<Database>,
	accountId: string,
	now: number,
) => Promise<unknown>;

export interface WorkspaceHooks {
	onWorkspaceDeleted: WorkspaceDeletedHook[];
	onAccountDeleted: AccountDeletedHook[];
}

export function createWorkspaceHooks(): WorkspaceHooks {
	return { onWorkspaceDeleted: [], onAccountDeleted: [] };
}

declare module "fastify" {
	interface FastifyInstance {
		workspaceHooks: WorkspaceHooks;
	}
}
