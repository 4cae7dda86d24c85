// The notice a revoked identity raises (issue 40 item 8): to the workspace's owner and the
// identity's creator while a member, naming who revoked it. Its standing is published as `revoked`
// from now on, so whoever relies on it should know.
import type { Kysely, Transaction } from "kysely";
import type { Database, IdentityTable } from "../../db/schema.ts";
import { notifyWorkspace } from "../notifications/service.ts";

type Db = Kysely<Database> | Transaction<Database>;

export async function notifyIdentityRevoked(db: Db, row: IdentityTable, by: string | null, now: number) {
	await notifyWorkspace(
		db,
		row.workspace,
		{
			kind: "identity_revoked",
			title: `Identity revoked: ${row.name}`,
			body: "Its standing now answers revoked; proofs made with it are refused.",
			data: { identity: row.id, name: row.name, fingerprint: row.fingerprint, ...(by ? { by } : {}) },
		},
		now,
		[row.account],
	);
}
