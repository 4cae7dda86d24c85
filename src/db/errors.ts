// What a database error means, the one place that reads either dialect's error codes.

function code(err: unknown): unknown {
	return typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
}

/** A unique index or primary key refused the write (SQLite `SQLITE_CONSTRAINT_UNIQUE`/`_PRIMARYKEY`, PostgreSQL 23505). */
export function isUniqueViolation(err: unknown): boolean {
	const c = code(err);
	return c === "SQLITE_CONSTRAINT_UNIQUE" || c === "SQLITE_CONSTRAINT_PRIMARYKEY" || c === "23505";
}

/** A foreign key refused the write: the row it names is gone (SQLite `SQLITE_CONSTRAINT_FOREIGNKEY`, PostgreSQL 23503). */
export function isForeignKeyViolation(err: unknown): boolean {
	const c = code(err);
	return c === "SQLITE_CONSTRAINT_FOREIGNKEY" || c === "23503";
}
