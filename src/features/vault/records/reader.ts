// How a record reads, in one place: its current value (an alias's is its target's) and, for a file
// record, the file's name, type and size. The vault, shares, archives and answers all read through
// these, so a record never reads one way in a share and another in the vault.
import type { RecordTable } from "../../../db/schema.ts";

/** A file record's type when none was sniffed at upload. */
export const DEFAULT_FILE_TYPE = "application/octet-stream";

/** What a reader needs of a record row; `target_value` is an alias's target's value, looked up by the caller. */
export type ReadableRecord = Pick<
	RecordTable,
	"kind" | "value" | "alias" | "file_name" | "file_type" | "file_size" | "file_sha256"
> & { target_value?: string | null };

export interface FileMeta {
	name: string;
	type: string;
	size: number;
	sha256: string;
}

/** The value a reader sees now: null for a file, the target's for an alias, else the record's own. */
export function currentValue(r: ReadableRecord): string | null {
	if (r.kind === "file") return null;
	return r.alias !== null ? (r.target_value ?? "") : (r.value ?? "");
}

/** The file a record holds as readers see it; null for a value record. */
export function fileMeta(r: ReadableRecord): FileMeta | null {
	if (r.kind !== "file") return null;
	return {
		name: r.file_name ?? "file",
		type: r.file_type ?? DEFAULT_FILE_TYPE,
		size: r.file_size ?? 0,
		sha256: r.file_sha256 ?? "",
	};
}

/** A file whose bytes can be served: the blob key with what to call it. */
export interface StoredFile {
	id: string;
	fileKey: string;
	name: string;
	type: string;
	size: number;
}

/** The stored file of a record, or undefined for a value record or a file row without bytes. */
export function storedFile(r: ReadableRecord & Pick<RecordTable, "id" | "file_key">): StoredFile | undefined {
	const meta = fileMeta(r);
	if (!meta || !r.file_key) return undefined;
	return { id: r.id, fileKey: r.file_key, name: meta.name, type: meta.type, size: meta.size };
}
