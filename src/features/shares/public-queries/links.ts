// The share by slug (every public path starts there), shared between the probes that arrive
// together, and the expiry write of the status gate.
import { type Kysely, sql } from "kysely";
import { param, prepare } from "../../../db/prepared.ts";
import type { Database } from "../../../db/schema.ts";
import { roundBatches } from "../../../lib/batches.ts";
import { expiringSql } from "../gates/open.ts";
import { MAX_SHARED_READ, onPostgres, type PublicLinkRow } from "./rows.ts";

/** Links with what their public pages show of the sharer; the caller adds which. */
const publicLinks = (db: Kysely<Database>) =>
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
		]);

/** Probe reads in flight at once (PostgreSQL): each holds a pooled connection. */
const PROBE_LANES = 2;

export function compileLinkQueries(db: Kysely<Database>) {
	const linkBySlug = prepare<{ slug: string }, PublicLinkRow>(
		publicLinks(db).where("links.slug", "=", param("slug")),
	);
	const linksBySlugs = prepare<{ slugs: string[] }, PublicLinkRow>(
		publicLinks(db).where("links.slug", "=", sql<string>`any(cast(${param("slugs")} as varchar(64)[]))`),
	);

	// PostgreSQL: the probes of one event-loop round, of any shares, share one read of their rows
	// (`roundBatches`): one statement and one round trip per round instead of one per probe. A
	// probe's read always begins after it arrived, so it never sees an older row than a read of its
	// own would. A row is frozen: every probe of its share in the batch gets the same object.
	const probeBatches = onPostgres(db)
		? roundBatches<string, Readonly<PublicLinkRow> | undefined>(
				async (slugs) => {
					const rows = await linksBySlugs(db, { slugs: [...new Set(slugs)] });
					const bySlug = new Map(rows.map((row) => [row.slug, Object.freeze(row)]));
					return slugs.map((slug) => bySlug.get(slug));
				},
				{ max: MAX_SHARED_READ, lanes: PROBE_LANES },
			)
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
		if (probeBatches) return probeBatches(slug);
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
