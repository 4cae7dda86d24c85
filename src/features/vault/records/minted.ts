// Records minted for request answers (spec "Workspace behaviour": request-collected rows are minted
// server-side, never through the record-create endpoint): a value the responder typed becomes a
// value record of the responder's own workspace, kept, updated and dropped as they answer again.
import type { Kysely, Transaction } from "kysely";
import type { Database, RecordTable } from "../../../db/schema.ts";
import { newRecordRow } from "./rows.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** Mints a value record; answers its id. */
export async function mintValue(
	db: Db,
	workspaceId: string,
	item: { key: string; name: string; value: string },
	now: number,
): Promise<string> {
	const row = newRecordRow({ workspace: workspaceId, kind: "value", ...item }, now);
	await store.insertRecord(db, row);
	return row.id;
}

/**
 * Sets the value of a record minted before, when it is still there: answers whether the value
 * changed, or undefined when the record is gone (deleted by its owner since).
 */
export async function setMintedValue(
	db: Db,
	workspaceId: string,
	id: string,
	value: string,
	now: number,
): Promise<boolean | undefined> {
	const prior = await store.findRecord(db, workspaceId, id);
	if (!prior) return undefined;
	if (prior.value === value) return false;
	await store.updateRecord(db, id, { value }, now);
	return true;
}

/** Drops a minted record an answer no longer uses, unless the responder built aliases on it. */
export async function dropMinted(db: Db, id: string): Promise<void> {
	if (!(await store.hasAliases(db, id))) await store.deleteRecord(db, id);
}

/** The kinds of those of `ids` that are records of the workspace (an id elsewhere is absent). */
export function recordKinds(
	db: Db,
	workspaceId: string,
	ids: readonly string[],
): Promise<Pick<RecordTable, "id" | "kind">[]> {
	return ids.length === 0 ? Promise.resolve([]) : store.recordKinds(db, workspaceId, ids);
}
