// A record row as it is first written, shared by the owner's records (service.ts) and the records
// minted for answers (minted.ts), apart from both so neither imports the other.
import type { RecordTable } from "../../../db/schema.ts";
import { newId } from "../../../lib/crypto.ts";

/** A new record row: a fresh id, version 1, created now; a plain visible value unless `fields` say otherwise. */
export function newRecordRow(
	fields: Pick<RecordTable, "workspace" | "key" | "name" | "kind"> &
		Partial<Omit<RecordTable, "id" | "version" | "created" | "updated">>,
	now: number,
): RecordTable {
	return {
		value: null,
		section: null,
		hidden: 0,
		alias: null,
		identity: null,
		file_key: null,
		file_name: null,
		file_type: null,
		file_size: null,
		file_sha256: null,
		...fields,
		id: newId(),
		version: 1,
		created: now,
		updated: now,
	};
}
