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

/** Probe reads in flight at once: on PostgreSQL each holds a pooled connection; SQLite reads run one at a time anyway. */
const PROBE_LANES = 2;

export function compileLinkQueries(db: Kysely<Database>) {
	const linkBySlug = prepare<{ slug: string }, PublicLinkRow>(
		publicLinks(db).where("links.slug", "=", param("slug")),
	);
	// PostgreSQL takes the slugs as an array, SQLite as a JSON array (`json_each`).
	const slugsIn = onPostgres(db)
		? sql<string>`any(cast(${param("slugs")} as varchar(64)[]))`
		: sql<string>`(select value from json_each(${param("slugs")}))`;
	const linksBySlugs = prepare<{ slugs: string[] | string }, PublicLinkRow>(
		publicLinks(db).where("links.slug", onPostgres(db) ? "=" : "in", slugsIn),
	);
	const encode = onPostgres(db) ? (slugs: string[]) => slugs : (slugs: string[]) => JSON.stringify(slugs);

	// The probes of one event-loop round, of any shares, share one read of their rows
	// (`roundBatches`): one statement per round instead of one per probe (on PostgreSQL one round
	// trip too). A probe's read always begins after it arrived, so it never sees an older row than
	// a read of its own would. A row is frozen: every probe of its share in the batch gets the
	// same object.
	const probeBatches = roundBatches<string, Readonly<PublicLinkRow> | undefined>(
		async (slugs) => {
			const rows = await linksBySlugs(db, { slugs: encode([...new Set(slugs)]) });
			const bySlug = new Map(rows.map((row) => [row.slug, Object.freeze(row)]));
			return slugs.map((slug) => bySlug.get(slug));
		},
		{ max: MAX_SHARED_READ, lanes: PROBE_LANES },
	);
	/** The share by slug for a probe, on the app's handle. */
	const probeLink = (slug: string): Promise<Readonly<PublicLinkRow> | undefined> => probeBatches(slug);

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
