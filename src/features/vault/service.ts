// The vault as other features reach it: what goes with a deleted workspace or a departing member,
// and records taken back. Each runs in the caller's transaction; the rules stay with the caller
// (workspaces/service.ts, workspaces/membership.ts, grants/relay.ts).
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import * as files from "./files/store.ts";
import * as records from "./records/store.ts";
import * as sections from "./sections/store.ts";
import * as templates from "./templates/store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** A file of the workspace, for stamping a copy (stamping/). */
export { findWorkspaceFile } from "./files/service.ts";
export { hiddenForMembers } from "./records/hidden.ts";
export { dropMinted, mintValue, recordKinds, setMintedValue } from "./records/minted.ts";
export { currentValue, fileMeta, type StoredFile, storedFile } from "./records/reader.ts";

/** The blob keys of the workspace's files, to remove once its rows are gone and committed. */
export function workspaceFileKeys(db: Db, workspaceId: string): Promise<string[]> {
	return records.workspaceFileKeys(db, workspaceId);
}

/** The workspace's records, sections and templates, in that order. */
export async function deleteWorkspaceVault(db: Db, workspaceId: string): Promise<void> {
	await records.deleteWorkspaceRecords(db, workspaceId);
	await sections.deleteWorkspaceSections(db, workspaceId);
	await templates.deleteWorkspaceTemplates(db, workspaceId);
}

/** The file tokens minted in the workspace, or (for a departing member) only that account's. */
export async function deleteFileTokens(db: Db, workspaceId: string, accountId?: string): Promise<void> {
	await files.deleteWorkspaceTokens(db, workspaceId, accountId);
}

/** Records minted for something that did not happen (a remote answer the other server refused). */
export async function takeBackRecords(db: Db, ids: readonly string[]): Promise<void> {
	if (ids.length > 0) await records.deleteRecordsById(db, ids);
}

/** A whole vault read out and written in (the transfer feature's export and import). */
export {
	type ContentEntry,
	type ContentSection,
	type ContentTemplate,
	checkContents,
	insertContents,
	NAME_MAX,
	type Refusal,
	readContents,
	sectionKeys,
	TEMPLATE_NAME_MAX,
	VALUE_MAX,
	type VaultContents,
} from "./contents.ts";
export { TEMPLATE_ITEM_TYPES, TEMPLATE_MAX_ITEMS, type TemplateItem } from "./templates/service.ts";
