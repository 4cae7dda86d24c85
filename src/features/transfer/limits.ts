// What an import takes at most: everything a stranger's file controls is bounded before it is read
// (docs/api.md "Vault export and import"). An export of a vault within these bounds imports whole.

/** Entries, sections and templates in one import. */
export const MAX_ENTRIES = 20_000;
export const MAX_SECTIONS = 2_000;
export const MAX_TEMPLATES = 1_000;
/** `vault.json` read into memory to be checked. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** Zip entries: the document, one per file entry, and the folders some zip tools add. */
export const MAX_ZIP_ENTRIES = 2 * MAX_ENTRIES + 1;
/** The whole archive's uncompressed size (each file is further held to MAX_FILE_SIZE). */
export const MAX_ARCHIVE_BYTES = 8 * 1024 * 1024 * 1024;
/** A deflated entry expanding past this ratio is a zip bomb, whatever its size. */
export const MAX_RATIO = 200;
/** A vCard or CSV upload. */
export const MAX_TEXT_BYTES = 8 * 1024 * 1024;
/** One CSV record, in characters (a value is at most 100,000). */
export const MAX_CSV_RECORD = 110_000;
/** Refusals reported in one answer; the rest are counted. */
export const MAX_REFUSALS = 100;
