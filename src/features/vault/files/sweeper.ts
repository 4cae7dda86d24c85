// Keeps blobs and rows consistent after a crash. Uploads write the blob first and the row second,
// and deletions drop the row before the blob, so a process dying in between leaves at most a blob
// no row points at: the sweep deletes such blobs once they are older than an hour (an upload in
// flight is never that old when its row lands), removes stale partial uploads, and drops expired
// file tokens. The server process runs it at start-up and every ten minutes (src/background.ts).
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.ts";
import type { BlobStore } from "../../../lib/blob-store.ts";
import * as store from "./store.ts";

export const ORPHAN_GRACE_MS = 60 * 60 * 1000;
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const BATCH = 500;

export interface SweepResult {
	orphans: number;
	partials: number;
	tokens: number;
}

/** `now` is wall-clock time: blob ages come from file modification times. */
export async function sweepBlobs(
	db: Kysely<Database>,
	blobs: BlobStore,
	now = Date.now(),
	graceMs = ORPHAN_GRACE_MS,
): Promise<SweepResult> {
	let orphans = 0;
	let batch: string[] = [];
	const flush = async () => {
		const referenced = await store.referencedKeys(db, batch);
		for (const key of batch) {
			if (referenced.has(key)) continue;
			await blobs.delete(key);
			orphans++;
		}
		batch = [];
	};
	for await (const blob of blobs.list()) {
		if (now - blob.modified <= graceMs) continue;
		batch.push(blob.key);
		if (batch.length >= BATCH) await flush();
	}
	await flush();
	const partials = await blobs.sweepPartials(graceMs, now);
	const tokens = Number((await store.deleteExpiredTokens(db, now)).numDeletedRows);
	return { orphans, partials, tokens };
}
