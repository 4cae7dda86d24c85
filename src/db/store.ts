// What the rest of the server knows of the database, whichever dialect is open (db/index.ts opens
// it: db/sqlite.ts or db/postgres.ts).
import { type Kysely, sql } from "kysely";
import type { CheckpointStats } from "./checkpoints.ts";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Store {
	db: Kysely<Database>;
	dialect: Dialect;
	/** Answers when the database does (for /healthz). */
	ping(): Promise<boolean>;
	/** PostgreSQL: the connection pool's use now (for metrics); SQLite has one connection and none. */
	poolUse?(): { total: number; idle: number; waiting: number };
	/** SQLite: a consistent copy of the database to `file` while it is in use (SQLite's online backup). */
	backup?(file: string): Promise<void>;
	/** SQLite: what the WAL checkpoint thread has done (db/checkpoints.ts). */
	checkpoints?(): CheckpointStats;
	destroy(): Promise<void>;
}

/** The settings that open the database (config.ts: DATABASE_URL, DATABASE_SCHEMA, DATA_DIR, SQLITE_SYNCHRONOUS). */
export interface DbConfig {
	databaseUrl: string;
	databaseSchema: string;
	dataDir: string;
	sqliteSynchronous: "NORMAL" | "FULL";
}

/** `Store.ping` of either dialect: one round trip, true when it comes back. */
export function pingOf(db: Kysely<Database>): () => Promise<boolean> {
	return async () => {
		await sql`select 1`.execute(db);
		return true;
	};
}
