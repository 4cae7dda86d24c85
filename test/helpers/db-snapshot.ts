// Every row of every table (and every blob key), as one comparable string per table, so a test can
// assert that a request changed nothing. Columns that move on requests which change nothing are
// left out by name.
import { sql } from "kysely";
import type { App } from "../../src/app.ts";

export type Snapshot = Map<string, string>;

/** `table.column` values that legitimately move on a request that changes nothing. */
export type Ignored = ReadonlySet<string>;

export async function tableNames(app: App): Promise<string[]> {
	const { db, dialect } = app.store;
	const rows =
		dialect === "sqlite"
			? await sql<{
					name: string;
				}>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(
					db,
				)
			: await sql<{
					name: string;
				}>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`.execute(
					db,
				);
	return rows.rows.map((r) => r.name);
}

export async function snapshot(app: App, tables: readonly string[], ignored: Ignored): Promise<Snapshot> {
	const out: Snapshot = new Map();
	for (const table of tables) {
		const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(
			app.store.db,
		);
		const lines = rows.map((row) => {
			const kept: Record<string, unknown> = {};
			for (const [column, value] of Object.entries(row)) {
				if (!ignored.has(`${table}.${column}`))
					kept[column] = Buffer.isBuffer(value) ? value.toString("hex") : value;
			}
			return JSON.stringify(kept, (_k, v) => (typeof v === "bigint" ? String(v) : v));
		});
		out.set(table, lines.sort().join("\n"));
	}
	const blobs: string[] = [];
	for await (const blob of app.blobs.list()) blobs.push(blob.key);
	out.set("(blobs)", blobs.sort().join("\n"));
	return out;
}

/** The tables whose rows differ, each with a short excerpt of what changed; empty when none. */
export function differences(before: Snapshot, after: Snapshot): string[] {
	const out: string[] = [];
	for (const [table, rows] of after) {
		const was = before.get(table) ?? "";
		if (rows === was) continue;
		const old = new Set(was.split("\n"));
		const now = new Set(rows.split("\n"));
		const added = [...now].filter((r) => r !== "" && !old.has(r));
		const removed = [...old].filter((r) => r !== "" && !now.has(r));
		out.push(`${table}: +${added.slice(0, 2).join(" ")} -${removed.slice(0, 2).join(" ")}`.slice(0, 600));
	}
	return out;
}
