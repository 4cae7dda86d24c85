// Kysely queries for shares. The public paths (probe, resolve, file and archive tokens) run queries
// compiled once per database handle (db/prepared.ts); the owner's collection paths build theirs.
import { type Kysely, sql, type Transaction } from "kysely";
import { param, prepare } from "../../db/prepared.ts";
import type { Database, LinkTable, LinkTokenTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** A link with what its public pages show of the sharer. */
export type PublicLinkRow = Omit<LinkTable, "created_by" | "created" | "updated" | "sign_in_client"> & {
	sharer_name: string;
	identity_name: string | null;
	identity_fingerprint: string | null;
};

/** A record a share grants, with its alias's current value and how it is granted. */
export interface GrantedRecordRow {
	id: string;
	key: string;
	name: string;
	kind: "value" | "file";
	value: string | null;
	target_value: string | null;
	section: string | null;
	hidden: number;
	alias: string | null;
	file_key: string | null;
	file_name: string | null;
	file_type: string | null;
	file_size: number | null;
	file_sha256: string | null;
	version: number;
	updated: number;
	/** 0: named by the link; 1: through a section it names. */
	via: number;
	/** Position of the naming row (link order), then the section's ordering. */
	pos: number;
	section_pos: number;
	created: number;
}

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
			.where("expires_at", "<=", param("now"))
			.returning("id"),
	);

	return { linkBySlug, consumeView, grantedRecords, grantedSections, insertToken, spendToken, markExpired };
}

export type PublicQueries = ReturnType<typeof publicQueries>;

// ---- the owner's side (collections API) ----

export type LinkRow = LinkTable & { records: string; sections: string };

/** Links of one workspace, each with its named record and section ids (comma-joined, in order). */
export function selectLinks(db: Db, workspaceId: string) {
	return db
		.selectFrom("links")
		.where("links.workspace", "=", workspaceId)
		.selectAll("links")
		.select([sql<string>`''`.as("records"), sql<string>`''`.as("sections")]);
}

/** Fills in the named record and section ids of a page of links: two queries per page. */
export async function withGrants(db: Db, rows: LinkRow[]): Promise<LinkRow[]> {
	if (rows.length === 0) return rows;
	const ids = rows.map((r) => r.id);
	const [records, sections] = await Promise.all([
		db
			.selectFrom("link_records")
			.select(["link", "record as id", "position"])
			.where("link", "in", ids)
			.orderBy("position")
			.execute(),
		db
			.selectFrom("link_sections")
			.select(["link", "section as id", "position"])
			.where("link", "in", ids)
			.orderBy("position")
			.execute(),
	]);
	const group = (list: { link: string; id: string }[]) => {
		const by = new Map<string, string[]>();
		for (const r of list) by.set(r.link, [...(by.get(r.link) ?? []), r.id]);
		return by;
	};
	const r = group(records);
	const s = group(sections);
	return rows.map((row) => ({
		...row,
		records: (r.get(row.id) ?? []).join(","),
		sections: (s.get(row.id) ?? []).join(","),
	}));
}

export function findLink(db: Db, workspaceId: string, id: string) {
	return db
		.selectFrom("links")
		.selectAll()
		.where("workspace", "=", workspaceId)
		.where("id", "=", id)
		.executeTakeFirst();
}

export function insertLink(db: Db, row: LinkTable) {
	return db.insertInto("links").values(row).execute();
}

export function updateLink(db: Db, id: string, changes: Partial<LinkTable>) {
	return db.updateTable("links").set(changes).where("id", "=", id).executeTakeFirst();
}

/** A status change that holds only if the status is still what the caller saw (no lost update). */
export function changeStatus(
	db: Db,
	id: string,
	from: readonly LinkTable["status"][],
	to: LinkTable["status"],
	now: number,
) {
	return db
		.updateTable("links")
		.set({ status: to, updated: now })
		.where("id", "=", id)
		.where("status", "in", from)
		.returning(["id", "status"])
		.executeTakeFirst();
}

export function deleteLink(db: Db, id: string) {
	return db.deleteFrom("links").where("id", "=", id).executeTakeFirst();
}

export async function replaceGrants(
	db: Db,
	link: string,
	records: readonly string[] | undefined,
	sections: readonly string[] | undefined,
) {
	if (records) {
		await db.deleteFrom("link_records").where("link", "=", link).execute();
		if (records.length > 0) {
			await db
				.insertInto("link_records")
				.values(records.map((record, position) => ({ link, record, position })))
				.execute();
		}
	}
	if (sections) {
		await db.deleteFrom("link_sections").where("link", "=", link).execute();
		if (sections.length > 0) {
			await db
				.insertInto("link_sections")
				.values(sections.map((section, position) => ({ link, section, position })))
				.execute();
		}
	}
}

/** How many of `ids` are records (or sections) of the workspace. */
export async function countOwned(
	db: Db,
	table: "records" | "sections",
	workspaceId: string,
	ids: readonly string[],
) {
	if (ids.length === 0) return 0;
	const row = await db
		.selectFrom(table)
		.select((eb) => eb.fn.countAll<number>().as("n"))
		.where("workspace", "=", workspaceId)
		.where("id", "in", [...ids])
		.executeTakeFirstOrThrow();
	return Number(row.n);
}

/** Whether what the link grants (directly or through sections) holds a hidden record or a file. */
export async function grantsHiddenOrFile(db: Db, link: string): Promise<boolean> {
	const hit = await db
		.selectFrom("records as r")
		.select("r.id")
		.where((eb) =>
			eb.and([
				eb.or([eb("r.hidden", "=", 1), eb("r.kind", "=", "file")]),
				eb.or([
					eb("r.id", "in", eb.selectFrom("link_records").select("record").where("link", "=", link)),
					eb("r.section", "in", eb.selectFrom("link_sections").select("section").where("link", "=", link)),
				]),
			]),
		)
		.limit(1)
		.executeTakeFirst();
	return hit !== undefined;
}

export function workspaceOwner(db: Db, workspaceId: string) {
	return db
		.selectFrom("workspaces")
		.select(["owner", "name"])
		.where("id", "=", workspaceId)
		.executeTakeFirst();
}

export function deleteExpiredTokens(db: Db, now: number) {
	return db.deleteFrom("link_tokens").where("expires", "<=", now).executeTakeFirst();
}

export function slugExists(db: Db, slug: string) {
	return db.selectFrom("links").select("id").where("slug", "=", slug).executeTakeFirst();
}
