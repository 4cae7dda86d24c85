// Shared column shapes so every migration spells ids, times and flags the same way on both dialects.
import type { ColumnDefinitionBuilder } from "kysely";

export const ID = "varchar(64)";
export const TIME = "bigint";
export const FLAG = "integer";

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
export const pk = (c: ColumnDefinitionBuilder) => c.primaryKey().notNull();
