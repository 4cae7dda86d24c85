// Seeds many shares for the spread benchmarks: `count` shares in one workspace, each granting its
// own `perShare` value records (spread over two sections, like bench/share-fixture.ts's share), no
// view cap. Each share's row is the project's own (`newLinkRow`, what `createLink` inserts: a fresh
// id and slug, an active ungated share) and its grants are `createLink`'s rows (`link_records`, the
// records in order); rows are inserted in bulk, 2,000 shares to a transaction (on PostgreSQL twice
// as fast as a `createLink` a share; a million shares still take 12-14 minutes, bench/README.md).
// Answers the slugs in creation order.
//
// As a command, against the database the environment names (DATA_DIR / DATABASE_URL /
// DATABASE_SCHEMA, as the server reads them), writing the slugs one a line to `--slugs`:
//   node --import tsx bench/seed-shares.ts --count 10000 [--records 5] --slugs /tmp/slugs.txt
import fs from "node:fs";
import { parseArgs } from "node:util";
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import type { Database, LinkRecordTable, LinkTable, RecordTable } from "../src/db/schema.ts";
import { createAccount } from "../src/features/accounts/service.ts";
import { newLinkRow } from "../src/features/shares/service.ts";
import { newId } from "../src/lib/crypto.ts";

const SHARES_PER_TRANSACTION = 2000;
/** Rows per `INSERT`: under SQLite's 32,766 and PostgreSQL's 65,535 parameters for the widest table. */
const ROWS_PER_INSERT = 1000;
const WORDS = ["email", "phone", "address", "iban", "bic"];

export interface SeededShares {
	workspaceId: string;
	slugs: string[];
	ms: number;
}

/** `count` shares of `perShare` records each in a new account's workspace. */
export async function seedShares(db: Kysely<Database>, count: number, perShare = 5): Promise<SeededShares> {
	const began = performance.now();
	const now = Date.now();
	const { accountId, workspaceId } = await createAccount(db, { email: `shares-${newId()}@bench.test` }, now);
	const sections = ["contact", "bank"].map((key, ordering) => ({
		id: newId(),
		workspace: workspaceId,
		key,
		name: key,
		ordering,
		created: now,
		updated: now,
	}));
	await db.insertInto("sections").values(sections).execute();
	const slugs: string[] = [];
	for (let done = 0; done < count; done += SHARES_PER_TRANSACTION) {
		const n = Math.min(SHARES_PER_TRANSACTION, count - done);
		await db.transaction().execute(async (trx) => {
			const records: RecordTable[] = [];
			for (let s = 0; s < n; s++) {
				for (let r = 0; r < perShare; r++) {
					const word = WORDS[r % WORDS.length] as string;
					const i = (done + s) * perShare + r;
					records.push({
						id: newId(),
						workspace: workspaceId,
						key: `${word}-${i}`,
						name: `${word} ${i}`,
						kind: "value",
						value: `value ${i} of ${word}`,
						section: (sections[r < 3 ? 0 : 1] as { id: string }).id,
						hidden: 0,
						alias: null,
						identity: null,
						file_key: null,
						file_name: null,
						file_type: null,
						file_size: null,
						file_sha256: null,
						version: 1,
						created: now,
						updated: now,
					});
				}
			}
			const links: LinkTable[] = [];
			const grants: LinkRecordTable[] = [];
			for (let s = 0; s < n; s++) {
				const link = newLinkRow(
					{ workspace: workspaceId, created_by: accountId, label: `Share ${done + s}` },
					now,
				);
				links.push(link);
				for (let r = 0; r < perShare; r++) {
					grants.push({ link: link.id, record: (records[s * perShare + r] as RecordTable).id, position: r });
				}
			}
			for (let i = 0; i < records.length; i += ROWS_PER_INSERT) {
				await trx
					.insertInto("records")
					.values(records.slice(i, i + ROWS_PER_INSERT))
					.execute();
			}
			for (let i = 0; i < links.length; i += ROWS_PER_INSERT) {
				await trx
					.insertInto("links")
					.values(links.slice(i, i + ROWS_PER_INSERT))
					.execute();
			}
			for (let i = 0; i < grants.length; i += ROWS_PER_INSERT) {
				await trx
					.insertInto("link_records")
					.values(grants.slice(i, i + ROWS_PER_INSERT))
					.execute();
			}
			for (const link of links) slugs.push(link.slug);
		});
	}
	// Statistics as a database that has lived with these rows would have them (autovacuum's analyze
	// runs only after a minute): PostgreSQL plans the share's grants by them.
	if (db.getExecutor().adapter instanceof PostgresAdapter) {
		await sql`analyze links, link_records, link_sections, records, sections`.execute(db);
	}
	return { workspaceId, slugs, ms: Math.round(performance.now() - began) };
}

if (process.argv[1]?.endsWith("seed-shares.ts")) {
	const { values } = parseArgs({
		options: {
			count: { type: "string", default: "10000" },
			records: { type: "string", default: "5" },
			slugs: { type: "string" },
		},
	});
	const store = await openStore(loadConfig(process.env));
	try {
		const seeded = await seedShares(store.db, Number(values.count), Number(values.records));
		if (values.slugs) fs.writeFileSync(values.slugs, `${seeded.slugs.join("\n")}\n`);
		process.stdout.write(
			`${JSON.stringify({ workspaceId: seeded.workspaceId, count: seeded.slugs.length, ms: seeded.ms })}\n`,
		);
	} finally {
		await store.destroy();
	}
}
