// The queries of a share's public paths (probe, resolve, file and archive tokens), compiled once per
// database handle (db/prepared.ts): the hot paths cannot afford building a query per request.
// Only the shares feature runs them.
import { type Kysely, sql } from "kysely";
import { param, prepare } from "../../db/prepared.ts";
import type { Database, LinkTable, LinkTokenTable, RecordTable } from "../../db/schema.ts";

/** A link with what its public pages show of the sharer. */
export type PublicLinkRow = Omit<LinkTable, "created_by" | "created" | "updated" | "sign_in_client"> & {
	sharer_name: string;
	identity_name: string | null;
	identity_fingerprint: string | null;
};

/** A record a share grants, with its alias's current value and how it is granted. */
export type GrantedRecordRow = Omit<RecordTable, "workspace" | "identity"> & {
	target_value: string | null;
	/** 0: named by the link; 1: through a section it names. */
	via: number;
	/** Position of the naming row (link order), then the section's ordering. */
	pos: number;
	section_pos: number;
};

export interface GrantedSectionRow {
	id: string;
	key: string;
	name: string;
	ordering: number;
	/** Position among the sections the link names; null for a section only holding a granted record. */
	named_pos: number | null;
	created: number;
}

export interface SpentToken {
	link: string;
	kind: LinkTokenTable["kind"];
	record: string | null;
	view: number;
	stamp_line: string | null;
	expires: number;
}

const compiled = new WeakMap<Kysely<Database>, ReturnType<typeof compilePublicQueries>>();

/** The compiled public queries of one database handle, compiled on first use. */
export function publicQueries(db: Kysely<Database>) {
	let queries = compiled.get(db);
	if (!queries) {
		queries = compilePublicQueries(db);
		compiled.set(db, queries);
	}
	return queries;
}

function compilePublicQueries(db: Kysely<Database>) {
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

	// The view: one conditional UPDATE. Reaching the cap turns the share `expired` in the same
	// statement; a reader who lost the last view to a concurrent one matches no row.
	const consumeView = prepare<
		{ id: string; now: number },
		{ view_count: number; status: LinkTable["status"] }
	>(
		db
			.updateTable("links")
			.set({
				view_count: sql`view_count + 1`,
				status: sql`case when max_views is not null and view_count + 1 >= max_views then 'expired' else status end`,
			})
			.where("id", "=", param("id"))
			.where("status", "=", "active")
			.where((eb) => eb.or([eb("max_views", "is", null), eb("view_count", "<", eb.ref("max_views"))]))
			.where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", param("now"))]))
			.returning(["view_count", "status"]),
	);

	const recordColumns = (t: "r") =>
		[
			`${t}.id`,
			`${t}.key`,
			`${t}.name`,
			`${t}.kind`,
			`${t}.value`,
			`${t}.section`,
			`${t}.hidden`,
			`${t}.alias`,
			`${t}.file_key`,
			`${t}.file_name`,
			`${t}.file_type`,
			`${t}.file_size`,
			`${t}.file_sha256`,
			`${t}.version`,
			`${t}.updated`,
			`${t}.created`,
		] as const;

	// Named records, then records of named sections; an alias carries its target's value.
	const grantedRecords = prepare<{ link: string; workspace: string }, GrantedRecordRow>(
		db
			.selectFrom("link_records as lr")
			.innerJoin("records as r", "r.id", "lr.record")
			.leftJoin("records as t", "t.id", "r.alias")
			.select(recordColumns("r"))
			.select([
				"t.value as target_value",
				sql<number>`0`.as("via"),
				"lr.position as pos",
				sql<number>`0`.as("section_pos"),
			])
			.where("lr.link", "=", param("link"))
			.where("r.workspace", "=", param("workspace"))
			.unionAll((eb) =>
				eb
					.selectFrom("link_sections as ls")
					.innerJoin("records as r", "r.section", "ls.section")
					.leftJoin("records as t", "t.id", "r.alias")
					.select(recordColumns("r"))
					.select([
						"t.value as target_value",
						sql<number>`1`.as("via"),
						"ls.position as pos",
						sql<number>`0`.as("section_pos"),
					])
					.where("ls.link", "=", param("link"))
					.where("r.workspace", "=", param("workspace")),
			),
	);

	// Sections the link names, and sections holding a record it names directly.
	const grantedSections = prepare<{ link: string; workspace: string }, GrantedSectionRow>(
		db
			.selectFrom("sections as s")
			.leftJoin("link_sections as ls", (j) =>
				j.onRef("ls.section", "=", "s.id").on("ls.link", "=", param("link")),
			)
			.select(["s.id", "s.key", "s.name", "s.ordering", "s.created", "ls.position as named_pos"])
			.where("s.workspace", "=", param("workspace"))
			.where((eb) =>
				eb.or([
					eb("ls.link", "is not", null),
					eb(
						"s.id",
						"in",
						eb
							.selectFrom("link_records as lr")
							.innerJoin("records as r", "r.id", "lr.record")
							.select("r.section")
							.where("lr.link", "=", param("link"))
							.where("r.section", "is not", null),
					),
				]),
			),
	);

	const insertToken = prepare<
		{
			hash: string;
			link: string;
			kind: string;
			record: string | null;
			view: number;
			line: string | null;
			now: number;
			expires: number;
		},
		never
	>(
		db.insertInto("link_tokens").values({
			token_hash: param("hash"),
			link: param("link"),
			kind: param("kind"),
			record: param("record"),
			view: param("view"),
			stamp_line: param("line"),
			created: param("now"),
			expires: param("expires"),
		}),
	);

	// Spent on first presentation, right or wrong: the row goes whatever the caller meant it for.
	const spendToken = prepare<{ hash: string }, SpentToken>(
		db
			.deleteFrom("link_tokens")
			.where("token_hash", "=", param("hash"))
			.returning(["link", "kind", "record", "view", "stamp_line", "expires"]),
	);

	const markExpired = prepare<{ id: string; now: number }, { id: string }>(
		db
			.updateTable("links")
			.set({ status: "expired", updated: param("now") })
			.where("id", "=", param("id"))
			.where("status", "=", "active")
			.where((eb) =>
				eb.or([
					eb("expires_at", "<=", param("now")),
					eb.and([eb("max_views", "is not", null), eb("view_count", ">=", eb.ref("max_views"))]),
				]),
			)
			.returning("id"),
	);

	return { linkBySlug, consumeView, grantedRecords, grantedSections, insertToken, spendToken, markExpired };
}

export type PublicQueries = ReturnType<typeof publicQueries>;
