// Seeds vault records fast, straight into the database, for list benchmarks at 100k rows.
//
// As a function: `await seedRecords(db, workspaceId, 100_000)` on any app's `app.store.db`.
// As a command, against the database the environment names (DATA_DIR / DATABASE_URL, as the server
// reads them): makes an account with a session, seeds its workspace and prints
// `{"token", "workspaceId", "count", "ms"}` as JSON:
//   node --import tsx bench/seed-records.ts [--count 100000]
import { parseArgs } from "node:util";
import type { Kysely } from "kysely";
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import type { Database, RecordTable } from "../src/db/schema.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { newId } from "../src/lib/crypto.ts";

const BATCH = 500;
const WORDS = ["iban", "email", "phone", "address", "passport", "tax-id", "insurance", "employer"];

/** Inserts `count` value records into the workspace, one transaction per 500; answers the ms taken. */
export async function seedRecords(
	db: Kysely<Database>,
	workspaceId: string,
	count: number,
	start = Date.now(),
): Promise<number> {
	const began = performance.now();
	for (let done = 0; done < count; done += BATCH) {
		const rows: RecordTable[] = [];
		for (let i = done; i < Math.min(done + BATCH, count); i++) {
			const word = WORDS[i % WORDS.length] as string;
			rows.push({
				id: newId(),
				workspace: workspaceId,
				key: word,
				name: `${word} ${i}`,
				kind: "value",
				value: `value ${i} of ${word}`,
				section: null,
				hidden: i % 10 === 0 ? 1 : 0,
				alias: null,
				identity: null,
				file_key: null,
				file_name: null,
				file_type: null,
				file_size: null,
				file_sha256: null,
				version: 1,
				// One millisecond apart so sorting by time is meaningful.
				created: start - count + i,
				updated: start - count + i,
			});
		}
		await db.transaction().execute((trx) => trx.insertInto("records").values(rows).execute());
	}
	return Math.round(performance.now() - began);
}

if (process.argv[1]?.endsWith("seed-records.ts")) {
	const { values } = parseArgs({ options: { count: { type: "string", default: "100000" } } });
	const count = Number(values.count);
	const store = await openStore(loadConfig(process.env));
	try {
		const now = Date.now();
		const { accountId, workspaceId } = await createAccount(
			store.db,
			{ email: `bench-${newId()}@example.org` },
			now,
		);
		const { token } = await createSession(store.db, accountId, now);
		const ms = await seedRecords(store.db, workspaceId, count, now);
		process.stdout.write(`${JSON.stringify({ token, workspaceId, count, ms })}\n`);
	} finally {
		await store.destroy();
	}
}
