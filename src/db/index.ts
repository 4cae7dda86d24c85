// One Kysely instance per app over either dialect; the same query code serves both. Opening runs
// the migrations (and, on PostgreSQL, the trigram indexes) before the store is handed out.
import path from "node:path";
import { withLockFile } from "./lock-file.ts";
import { migrateToLatest } from "./migrate.ts";
import { openPostgres } from "./postgres.ts";
import { openSqlite } from "./sqlite.ts";
import type { DbConfig, Store } from "./store.ts";
import { ensureTrigramIndexes, type Warner } from "./trigram.ts";

export { isForeignKeyViolation, isUniqueViolation } from "./errors.ts";
export type { DbConfig, Dialect, Store } from "./store.ts";

/** `log` hears what the store starts without (PostgreSQL without pg_trgm). */
export async function openStore(config: DbConfig, log?: Warner): Promise<Store> {
	if (config.databaseUrl) {
		const store = await openPostgres(config);
		// PostgreSQL: Kysely's migrator takes an advisory lock, so nodes starting together migrate once.
		await migrateToLatest(store.db, config.databaseSchema || undefined);
		await ensureTrigramIndexes(store.db, log);
		return store;
	}
	const store = openSqlite(config, log);
	// SQLite: Kysely takes no lock, so two processes on one DATA_DIR serialise on a lock file.
	await withLockFile(path.join(config.dataDir, ".migrate.lock"), () => migrateToLatest(store.db));
	return store;
}
