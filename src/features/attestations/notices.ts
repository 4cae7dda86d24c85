// The notices a revoked credential raises (issue 40 item 8), in the transaction that sets its
// status-list bit: to the issuing workspace (the attestation's creator while a member, else the
// owner), and to every person on this server who holds it (their identity's workspace). Only an
// issued credential (status `active` before) has holders; a withdrawn offer raises nothing.
import type { Kysely, Transaction } from "kysely";
import type { AttestationTable, Database } from "../../db/schema.ts";
import { notifyMaker, raiseNotice } from "../notifications/service.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export async function notifyCredentialRevoked(
	db: Db,
	before: AttestationTable,
	statusList: string,
	now: number,
): Promise<void> {
	if (before.status !== "active") return;
	const name = before.label || before.type;
	await notifyMaker(
		db,
		before.workspace,
		before.created_by,
		{
			kind: "credential_revoked",
			title: `Credential revoked: ${name}`,
			body: `The credential issued to ${before.subject_name || "its identity"} no longer verifies.`,
			data: { attestation: before.id, type: before.type, label: before.label, as: "issuer" },
		},
		now,
	);
	for (const held of await store.heldAt(db, `${statusList}#${before.position}`)) {
		await raiseNotice(
			db,
			{
				account: held.account,
				workspace: held.workspace,
				kind: "credential_revoked",
				title: `Your credential was revoked: ${held.type}`,
				body: `Its issuer revoked the credential held by ${held.identity_name}; it no longer verifies.`,
				data: { credential: held.id, identity: held.identity, type: held.type, as: "holder" },
			},
			now,
		);
	}
}
