// The rules of vault records: value records and file records, sections and aliases within the
// workspace, the identity relation, and file blobs that stay consistent with their rows (the blob
// is written first under a fresh key; the row follows in a transaction; a replaced or deleted
// blob goes only after the row change committed; anything left over is swept).
import type { Kysely } from "kysely";
import { isForeignKeyViolation } from "../../../db/errors.ts";
import type { Database, RecordTable } from "../../../db/schema.ts";
import type { AccountCaller } from "../../../http/auth.ts";
import { AppError } from "../../../http/errors.ts";
import { seesHidden } from "../../../http/permissions.ts";
import type { BlobStore } from "../../../lib/blob-store.ts";
import { invalidField } from "../../collections/fields.ts";
import type { StoredUpload } from "../../collections/registry.ts";
import { type GrantHooks, runRecordsChanged } from "../../shares/service.ts";
import { checkIdentityOwnership } from "./identity-check.ts";
import { newRecordRow } from "./rows.ts";
import * as store from "./store.ts";

export interface RecordInput {
	key?: string;
	name?: string;
	value?: string;
	section?: string | null;
	hidden?: boolean;
	alias?: string | null;
	identity?: string | null;
}

interface Deps {
	db: Kysely<Database>;
	blobs: BlobStore;
	caller: AccountCaller;
	now: number;
	grantHooks?: GrantHooks;
}

/** Changes that alter what a share or grant reading the record returns. */
const VALUE_CHANGES: readonly (keyof store.RecordChanges)[] = ["value", "alias", "file_key"];

export async function createRecord(
	deps: Deps,
	input: RecordInput & { key: string },
	upload?: StoredUpload,
): Promise<string> {
	const { db, caller, now } = deps;
	const alias = input.alias ?? null;
	const identity = input.identity || null;
	if (upload) {
		if (input.value !== undefined) throw invalidField("value", "is not taken by a file record");
		if (alias !== null) throw invalidField("alias", "is not taken by a file record");
	} else if (alias !== null && input.value !== undefined) {
		throw invalidField("value", "is not taken by an alias: it resolves to its target's value");
	}
	refuseHiding(caller, input);
	const name = (input.name ?? (upload ? upload.name : input.key)).trim();
	if (name === "") throw invalidField("name", "must not be blank");
	await checkRelations(deps, { section: input.section ?? null, alias, identity });

	const row = newRecordRow(
		{
			workspace: caller.workspaceId,
			key: input.key,
			name,
			kind: upload ? "file" : "value",
			value: upload ? null : alias !== null ? "" : (input.value ?? ""),
			section: input.section ?? null,
			hidden: input.hidden ? 1 : 0,
			alias,
			identity,
			file_key: upload?.key ?? null,
			file_name: upload?.name ?? null,
			file_type: upload?.type ?? null,
			file_size: upload?.size ?? null,
			file_sha256: upload?.sha256 ?? null,
		},
		now,
	);
	await relationRace(() => db.transaction().execute((trx) => store.insertRecord(trx, row)));
	return row.id;
}

export async function updateRecord(
	deps: Deps,
	row: RecordTable,
	input: RecordInput,
	upload?: StoredUpload,
): Promise<void> {
	const { db, blobs, now } = deps;
	refuseHiding(deps.caller, input);
	const changes: store.RecordChanges = {};
	if (input.key !== undefined && input.key !== row.key) changes.key = input.key;
	if (input.name !== undefined) {
		const name = input.name.trim();
		if (name === "") throw invalidField("name", "must not be blank");
		if (name !== row.name) changes.name = name;
	}
	if (input.hidden !== undefined && (input.hidden ? 1 : 0) !== row.hidden)
		changes.hidden = input.hidden ? 1 : 0;
	if (input.section !== undefined && input.section !== row.section) changes.section = input.section;
	const identity = input.identity === "" ? null : input.identity;
	if (identity !== undefined && identity !== row.identity) changes.identity = identity;

	if (row.kind === "file") {
		if (input.value !== undefined) throw invalidField("value", "is not taken by a file record");
		if (input.alias !== undefined && input.alias !== null)
			throw invalidField("alias", "is not taken by a file record");
		if (upload) {
			changes.file_key = upload.key;
			changes.file_name = upload.name;
			changes.file_type = upload.type;
			changes.file_size = upload.size;
			changes.file_sha256 = upload.sha256;
			if (input.name === undefined) changes.name = upload.name;
		}
	} else {
		if (upload) throw invalidField("file", "is not taken by a value record");
		const alias = input.alias === undefined ? row.alias : input.alias;
		if (input.value !== undefined && alias !== null) {
			throw invalidField("value", "is not taken by an alias: it resolves to its target's value");
		}
		if (input.alias !== undefined && input.alias !== row.alias) {
			changes.alias = input.alias;
			if (input.alias !== null) {
				// One level deep: a record others alias cannot itself become an alias.
				if (input.alias === row.id) throw invalidField("alias", "cannot point at the record itself");
				if (await store.hasAliases(db, row.id)) {
					throw invalidField("alias", "cannot be set on a record other records alias");
				}
				changes.value = "";
			}
		}
		if (input.value !== undefined && input.value !== row.value) changes.value = input.value;
	}

	await checkRelations(deps, {
		section: changes.section ?? null,
		alias: changes.alias ?? null,
		identity: changes.identity ?? null,
	});
	if (Object.keys(changes).length === 0) return;
	const valueChanged = VALUE_CHANGES.some((c) => changes[c] !== undefined);
	await relationRace(() =>
		db.transaction().execute(async (trx) => {
			await store.updateRecord(trx, row.id, changes, now);
			if (valueChanged)
				await runRecordsChanged(deps.grantHooks, trx, { records: [row.id], deleted: false }, now);
		}),
	);
	if (upload && row.file_key) await blobs.delete(row.file_key);
}

export async function deleteRecord(deps: Deps, row: RecordTable): Promise<void> {
	const { db, blobs } = deps;
	if (await store.hasAliases(db, row.id)) {
		throw new AppError("conflict", "Other records alias this record: point them elsewhere first");
	}
	await relationRace(() =>
		db.transaction().execute(async (trx) => {
			await runRecordsChanged(deps.grantHooks, trx, { records: [row.id], deleted: true }, deps.now);
			await store.deleteRecord(trx, row.id);
		}),
	);
	if (row.file_key) await blobs.delete(row.file_key);
}

/** Hiding a record is for those who see hidden records (owners and admins). */
function refuseHiding(caller: AccountCaller, input: RecordInput): void {
	if (input.hidden === true && !seesHidden(caller)) {
		throw new AppError("forbidden", "Only owners and admins hide entries", {
			extra: { scope: "hidden:write" },
		});
	}
}

/**
 * Section and alias must be in the caller's workspace (an id elsewhere reads as unknown); a hidden
 * alias target is unknown to those who do not see hidden records.
 */
async function checkRelations(
	{ db, caller }: Deps,
	rel: { section: string | null; alias: string | null; identity: string | null },
): Promise<void> {
	if (rel.section !== null && !(await store.findSection(db, caller.workspaceId, rel.section))) {
		throw invalidField("section", "is not a section of this workspace");
	}
	if (rel.alias !== null) {
		const target = await store.findRecord(db, caller.workspaceId, rel.alias);
		if (!target || (target.hidden === 1 && !seesHidden(caller)))
			throw invalidField("alias", "is not a record of this workspace");
		if (target.kind !== "value") throw invalidField("alias", "must point at a value record");
		if (target.alias !== null)
			throw invalidField("alias", "must point at a record that is not itself an alias");
	}
	if (rel.identity !== null) await checkIdentityOwnership(db, caller, rel.identity);
}

/** A section or alias target deleted between the check and the write: refused, nothing changed. */
async function relationRace<T>(write: () => Promise<T>): Promise<T> {
	try {
		return await write();
	} catch (err) {
		if (isForeignKeyViolation(err)) {
			throw new AppError("conflict", "A section or record this change refers to was just changed; retry");
		}
		throw err;
	}
}
