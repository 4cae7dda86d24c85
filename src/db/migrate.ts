import { type Kysely, type Migration, Migrator } from "kysely";
import * as m0001 from "./migrations/0001-foundation.ts";
import * as m0002 from "./migrations/0002-accounts.ts";
import * as m0003 from "./migrations/0003-passkeys.ts";
import * as m0004 from "./migrations/0004-passkey-ceremonies.ts";
import * as m0005 from "./migrations/0005-vault.ts";
import * as m0006 from "./migrations/0006-identities-apikeys.ts";
import * as m0007 from "./migrations/0007-records-key-visibility.ts";
import * as m0008 from "./migrations/0008-links.ts";
import * as m0009 from "./migrations/0009-requests-outbox.ts";
import * as m0010 from "./migrations/0010-answer-entries.ts";
import * as m0011 from "./migrations/0011-link-reads.ts";
import * as m0012 from "./migrations/0012-members.ts";
import * as m0013 from "./migrations/0013-connections.ts";
import * as m0014 from "./migrations/0014-remote-grants.ts";
import * as m0015 from "./migrations/0015-peer-events.ts";
import * as m0016 from "./migrations/0016-oidc.ts";
import * as m0017 from "./migrations/0017-attestations.ts";
import * as m0018 from "./migrations/0018-credentials.ts";
import * as m0019 from "./migrations/0019-record-search.ts";
import * as m0020 from "./migrations/0020-views-without-trigger.ts";
import * as m0021 from "./migrations/0021-smtp-notice-settings.ts";
import * as m0022 from "./migrations/0022-responders-answer-signups.ts";
import * as m0023 from "./migrations/0023-mail.ts";
import * as m0024 from "./migrations/0024-answer-signup-cap.ts";
import type { Database } from "./schema.ts";

// Listed statically so the same list works from TypeScript sources and compiled output.
const migrations: Record<string, Migration> = {
	"0001-foundation": m0001,
	"0002-accounts": m0002,
	"0003-passkeys": m0003,
	"0004-passkey-ceremonies": m0004,
	"0005-vault": m0005,
	"0006-identities-apikeys": m0006,
	"0007-records-key-visibility": m0007,
	"0008-links": m0008,
	"0009-requests-outbox": m0009,
	"0010-answer-entries": m0010,
	"0011-link-reads": m0011,
	"0012-members": m0012,
	"0013-connections": m0013,
	"0014-remote-grants": m0014,
	"0015-peer-events": m0015,
	"0016-oidc": m0016,
	"0017-attestations": m0017,
	"0018-credentials": m0018,
	"0019-record-search": m0019,
	"0020-views-without-trigger": m0020,
	"0021-smtp-notice-settings": m0021,
	"0022-responders-answer-signups": m0022,
	"0023-mail": m0023,
	"0024-answer-signup-cap": m0024,
};

/** What a concurrent DDL elsewhere in the database does to Kysely's catalog introspection. */
const CATALOG_RACE = /^(schema|relation|column) "[^"]+"( of relation "[^"]+")? does not exist$/;

export async function migrateToLatest(db: Kysely<Database>, schema?: string): Promise<void> {
	// Kysely's migrator takes a lock on PostgreSQL, so two nodes starting together migrate once.
	// With a named schema its bookkeeping tables must be looked up there: otherwise a same-named
	// table in another schema of the database passes for ours.
	const migrator = new Migrator({
		db,
		provider: { getMigrations: async () => migrations },
		...(schema ? { migrationTableSchema: schema } : {}),
	});
	// Before it migrates, it looks for its own tables by introspecting every schema's catalog, with
	// `pg_get_serial_sequence` on each column: a schema, table or column dropped or created by
	// another transaction at that instant (another app or test schema in the same database) fails
	// that query with "schema …", "relation …" or "column … of relation … does not exist". Such a
	// failure comes before any migration ran (no migration result failed) and changed nothing, so
	// try again; a failing migration is never retried.
	for (let attempt = 1; ; attempt++) {
		const { error, results } = await migrator.migrateToLatest();
		const failed = results?.find((r) => r.status === "Error");
		if (!error && !failed) return;
		const reason = error instanceof Error ? error.message : String(error ?? "");
		if (attempt < 5 && !failed && CATALOG_RACE.test(reason)) {
			await new Promise((r) => setTimeout(r, 100 * attempt));
			continue;
		}
		throw new Error(`database migration ${failed?.migrationName ?? ""} failed: ${reason}`);
	}
}
