// The share by slug (every public path starts there), shared between the probes that arrive
// together, and the expiry write of the status gate.
import type { Kysely } from "kysely";
import { param, prepare } from "../../../db/prepared.ts";
import type { Database } from "../../../db/schema.ts";
import { keyedBatches } from "../../../lib/batches.ts";
import { expiringSql } from "../gates/open.ts";
import { MAX_SHARED_READ, onPostgres, type PublicLinkRow } from "./rows.ts";

export function compileLinkQueries(db: Kysely<Database>) {
	const linkBySlug = prepare<{ slug: string }, PublicLinkRow>(
		db
			.selectFrom("links")
			.innerJoin("workspaces", "workspaces.id", "links.workspace")
			.leftJoin("identities", (j) =>
				j.onRef("identities.id", "=", "links.identity").onRef("identities.workspace", "=", "links.workspace"),
			)
			.select([
				"links.id",
				"links.workspace",
				"links.slug",
				"links.label",
				"links.status",
				"links.password_hash",
				"links.max_views",
				"links.view_count",
				"links.expires_at",
				"links.require_handshake",
				"links.stamp",
				"links.purpose",
				"links.ref",
				"links.identity",
				"links.handed_over",
				"workspaces.name as sharer_name",
				"identities.name as identity_name",
				"identities.fingerprint as identity_fingerprint",
			])
			.where("links.slug", "=", param("slug")),
	);

	// PostgreSQL: the probes of one share that arrive while its row is being read share the next
	// read (`keyedBatches`): a probe waits at most for the read running when it arrived, then one
	// begun after it arrived, so it never sees an older row than a read of its own would. The row
	// is frozen: every probe of the batch gets the same object.
	const probeBatches = onPostgres(db)
		? keyedBatches<null, Readonly<PublicLinkRow> | undefined>(async (slug, probes) => {
				const [link] = await linkBySlug(db, { slug });
				if (link) Object.freeze(link);
				return probes.map(() => link);
			}, MAX_SHARED_READ)
		: undefined;
	// SQLite, read in-process: a probe takes the read of the same share begun for another probe
	// after it arrived (`arrived`, `performance.now()`), the same rule: never a row older than its
	// own read would be. The probes one round of the event loop answers together (answer-rounds.ts)
	// all arrived before the first of them reads, so they share its read. Reads are kept until the
	// next round, for at most MAX_SHARED_READ shares.
	const recentReads = new Map<string, { at: number; read: Promise<Readonly<PublicLinkRow> | undefined> }>();
	const forgetReads = () => recentReads.clear();
	/** The share by slug for a probe that arrived at `arrived`, on the app's handle. */
	const probeLink = (slug: string, arrived: number): Promise<Readonly<PublicLinkRow> | undefined> => {
		if (probeBatches) return probeBatches(slug, null);
		const recent = recentReads.get(slug);
		if (recent && recent.at > arrived) return recent.read;
		const at = performance.now();
		const read = linkBySlug(db, { slug }).then(([link]) => link && Object.freeze(link));
		if (recentReads.size === 0) setImmediate(forgetReads);
		if (recentReads.size < MAX_SHARED_READ) recentReads.set(slug, { at, read });
		return read;
	};

	// The status gate found the share expired (gates/open.ts): written once, by whoever gets there first.
	const markExpired = prepare<{ id: string; now: number }, { id: string }>(
		db
			.updateTable("links")
			.set({ status: "expired", updated: param("now") })
			.where("id", "=", param("id"))
			.where((eb) => expiringSql(eb, param("now")))
			.returning("id"),
	);

	return { linkBySlug, probeLink, markExpired };
}
