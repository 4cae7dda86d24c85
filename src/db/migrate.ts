import { type Kysely, type Migration, Migrator } from "kysely";
import * as m0001 from "./migrations/0001-foundation.ts";
import * as m0002 from "./migrations/0002-accounts.ts";
import * as m0003 from "./migrations/0003-passkeys.ts";
import type { Database } from "./schema.ts";

// Listed statically so the same list works from TypeScript sources and compiled output.
const migrations: Record<string, Migration> = {
	"0001-foundation": m0001,
	"0002-accounts": m0002,
	"0003-passkeys": m0003,
};

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
	// Kysely's migrator takes a lock on both dialects, so two nodes starting together migrate once.
	const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
	const { error, results } = await migrator.migrateToLatest();
	const failed = results?.find((r) => r.status === "Error");
	if (error || failed) {
		const reason = error instanceof Error ? error.message : String(error ?? "");
		throw new Error(`database migration ${failed?.migrationName ?? ""} failed: ${reason}`);
	}
}
