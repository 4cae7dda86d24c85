// Connected tools (spec "Connections", "Connection" states), the module other parts of the app
// import: the owner authorizes a tool and the tool redeems the answer for a token (connect.ts); the
// tool reads the status of the shares its proposals became and revokes them when allowed
// (tool-access.ts); the owner manages the connection (here). A connection's own rules: connection.ts.
import type { Kysely } from "kysely";
import type { ConnectionTable, Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { invalidField } from "../collections/fields.ts";
import { isLive } from "./connection.ts";
import * as store from "./store.ts";

export {
	type AuthorizeInput,
	authorize,
	type ConnectionGrant,
	checkClient,
	redeem,
	type TokenInput,
} from "./connect.ts";
export {
	CONNECTION_TTL_MS,
	type ConnectionPolicy,
	type ConnectionSummary,
	connectionSummary,
	GRANT_TTL_MS,
	isLive,
} from "./connection.ts";
export { connectionFor, describe, revokeLink, type ToolLink, toolLink } from "./tool-access.ts";

/** Deletes a connection (by its tool, or the owner revoking it): tokens go, shares stay unnamed. */
export async function disconnect(db: Kysely<Database>, connectionId: string): Promise<void> {
	await store.deleteConnection(db, connectionId);
}

/** `POST /api/connections/{id}/permissions`: a field left out stays. */
export async function setPermissions(
	db: Kysely<Database>,
	caller: AccountCaller,
	id: string,
	input: { allowRevoke?: boolean; allowHandOver?: boolean },
	now: number,
): Promise<{ allowRevoke: boolean; allowHandOver: boolean }> {
	const changes: Partial<ConnectionTable> = { updated: now };
	if (input.allowRevoke !== undefined) changes.allow_revoke = input.allowRevoke ? 1 : 0;
	if (input.allowHandOver !== undefined) changes.allow_hand_over = input.allowHandOver ? 1 : 0;
	const result = await store.updatePermissions(db, caller.workspaceId, id, changes);
	if (!result) throw new AppError("not_found", "No connection of this workspace has that id");
	return { allowRevoke: result.allow_revoke === 1, allowHandOver: result.allow_hand_over === 1 };
}

/**
 * For a share created for a tool (`links` create with `connection`): the workspace's live
 * connection, and with `handedOver` one allowed to receive shares.
 */
export async function connectionForShare(
	db: Kysely<Database>,
	workspaceId: string,
	id: string,
	handOver: boolean,
	now: number,
): Promise<ConnectionTable> {
	const connection = await store.findInWorkspace(db, workspaceId, id);
	if (!connection) throw invalidField("connection", "must name a connection of this workspace");
	if (!isLive(connection, now)) {
		throw new AppError("connection_not_connected", "The connection has lapsed; connect the tool again");
	}
	if (handOver && connection.allow_hand_over !== 1) {
		throw new AppError("link_hand_over_not_allowed", "The owner has not allowed this tool to receive shares");
	}
	return connection;
}

/**
 * A member leaves a workspace (workspaces/membership.ts `depart`): the tools they connected there
 * go, and (cascading) their tokens and open answers; shares those tools proposed stay with the
 * workspace, no longer tied to a tool. Runs in the departure's transaction.
 */
export async function deleteConnectionsOf(
	db: Kysely<Database>,
	workspaceId: string,
	accountId: string,
): Promise<void> {
	await db
		.deleteFrom("connections")
		.where("workspace", "=", workspaceId)
		.where("created_by", "=", accountId)
		.execute();
}
