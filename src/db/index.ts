// One Kysely instance per app over either dialect; the same query code serves both.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { Config } from "../config.ts";
import { migrateToLatest } from "./migrate.ts";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Store {
	db: Kysely<Database>;
	dialect: Dialect;
	/** Answers when the database does (for /healthz). */
	ping(): Promise<boolean>;
	destroy(): Promise<void>;
}

type DbConfig = Pick<Config, "databaseUrl" | "databaseSchema" | "dataDir" | "sqliteSynchronous">;

export async function openStore(config: DbConfig): Promise<Store> {
	const store = config.databaseUrl ? await openPostgres(config) : openSqlite(config);
	await migrateToLatest(store.db, store.dialect === "postgres" ? config.databaseSchema : undefined);
	return store;
}

function openSqlite(config: DbConfig): Store {
	fs.mkdirSync(config.dataDir, { recursive: true });
	const file = path.join(config.dataDir, "svc.sqlite");
	const conn = new SQLite(file);
	conn.pragma("journal_mode = WAL");
	conn.pragma("foreign_keys = ON");
	conn.pragma("busy_timeout = 5000");
	conn.pragma(`synchronous = ${config.sqliteSynchronous}`);
	const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: conn }) });
	return {
		db,
		dialect: "sqlite",
		ping: async () => {
			await sql`select 1`.execute(db);
			return true;
		},
		destroy: () => db.destroy(),
	};
}

const types = {
	getTypeParser(oid: number, format?: "text" | "binary") {
		// int8 (20) holds our millisecond times and counts: well inside 2^53, so numbers are exact.
		if (oid === 20) return (v: string) => Number(v);
		return pg.types.getTypeParser(oid, format);
	},
};

async function openPostgres(config: DbConfig): Promise<Store> {
	const schema = config.databaseSchema;
	if (schema && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
		throw new Error("DATABASE_SCHEMA must be a lower-case SQL identifier");
	}
	if (schema) {
		const boot = new pg.Client({ connectionString: config.databaseUrl });
		await boot.connect();
		try {
			await boot.query(`create schema if not exists "${schema}"`);
		} finally {
			await boot.end();
		}
	}
	const pool = new pg.Pool({
		connectionString: config.databaseUrl,
		max: 10,
		types,
		...(schema ? { options: `-c search_path=${schema}` } : {}),
	});
	const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
	return {
		db,
		dialect: "postgres",
		ping: async () => {
			await sql`select 1`.execute(db);
			return true;
		},
		destroy: () => db.destroy(),
	};
}
