// Kysely queries for the owner's side of shares (the `links` collection) and for the changes other
// features ask of shares through the shares service. The public paths run public-queries.ts.
import { type ExpressionBuilder, type Kysely, sql, type Transaction } from "kysely";
import type { Database, LinkTable } from "../../db/schema.ts";
import { hiddenForMembers } from "../vault/service.ts";

type Db = Kysely<Database> | Transaction<Database>;

/**
 * `withhold_hidden` is 1 for a caller who does not see hidden entries (members and viewers): the
 * page then leaves hidden records out of `records` and blanks the slug of a share holding one.
 */
export type LinkRow = LinkTable & { records: string; sections: string; withhold_hidden: number };

/** Links of one workspace, each with its named record and section ids (comma-joined, in order). */
export function selectLinks(db: Db, workspaceId: string) {
	return db
		.selectFrom("links")
		.where("links.workspace", "=", workspaceId)
		.selectAll("links")
		.select([
			sql<string>`''`.as("records"),
			sql<string>`''`.as("sections"),
			sql<number>`0`.as("withhold_hidden"),
		]);
}

/** Which of `ids` (records of the workspace) members and viewers never meet. */
export async function hiddenRecordIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
	if (ids.length === 0) return new Set();
	const rows = await db
		.selectFrom("records")
		.select("records.id")
		.where("records.id", "in", [...ids])
		.where(hiddenForMembers)
		.execute();
	return new Set(rows.map((r) => r.id));
}

/** Which of `links` grant, directly or through a section, a record members and viewers never meet. */
export async function linksHoldingHidden(db: Db, links: readonly string[]): Promise<Set<string>> {
	if (links.length === 0) return new Set();
	const rows = await db
		.selectFrom("link_records as lr")
		.innerJoin("records", "records.id", "lr.record")
		.select("lr.link")
		.where("lr.link", "in", links)
		.where(hiddenForMembers)
		.union(
			db
				.selectFrom("link_sections as ls")
				.innerJoin("records", "records.section", "ls.section")
				.select("ls.link")
				.where("ls.link", "in", links)
				.where(hiddenForMembers),
		)
		.execute();
	return new Set(rows.map((r) => r.link));
}

/** Which of `sections` hold a record members and viewers never meet. */
export async function sectionsHoldingHidden(db: Db, sections: readonly string[]): Promise<boolean> {
	if (sections.length === 0) return false;
	const row = await db
		.selectFrom("records")
		.select("records.id")
		.where("records.section", "in", [...sections])
		.where(hiddenForMembers)
		.limit(1)
		.executeTakeFirst();
	return row !== undefined;
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
	// For members and viewers: hidden records are left out, and a share holding one keeps its slug
	// (which would read them) to itself.
	const withheld = rows.filter((row) => row.withhold_hidden === 1).map((row) => row.id);
	const [hiddenIds, holding] =
		withheld.length === 0
			? [new Set<string>(), new Set<string>()]
			: await Promise.all([
					hiddenRecordIds(db, [
						...new Set(records.filter((x) => withheld.includes(x.link)).map((x) => x.id)),
					]),
					linksHoldingHidden(db, withheld),
				]);
	return rows.map((row) => {
		const own = r.get(row.id) ?? [];
		const withhold = row.withhold_hidden === 1;
		return {
			...row,
			slug: withhold && holding.has(row.id) ? "" : row.slug,
			records: (withhold ? own.filter((id) => !hiddenIds.has(id)) : own).join(","),
			sections: (s.get(row.id) ?? []).join(","),
		};
	});
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
	return (await linksHoldingHiddenOrFile(db, [link])).size > 0;
}

/** Which of `links` grant a hidden record or a file, directly or through a section. */
export async function linksHoldingHiddenOrFile(db: Db, links: readonly string[]): Promise<Set<string>> {
	if (links.length === 0) return new Set();
	const hiddenOrFile = (eb: ExpressionBuilder<Database, "records">) =>
		eb.or([eb("records.hidden", "=", 1), eb("records.kind", "=", "file")]);
	const rows = await db
		.selectFrom("link_records as lr")
		.innerJoin("records", "records.id", "lr.record")
		.select("lr.link")
		.where("lr.link", "in", links)
		.where(hiddenOrFile)
		.union(
			db
				.selectFrom("link_sections as ls")
				.innerJoin("records", "records.section", "ls.section")
				.select("ls.link")
				.where("ls.link", "in", links)
				.where(hiddenOrFile),
		)
		.execute();
	return new Set(rows.map((r) => r.link));
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

/** How many records the link grants (directly or through sections) besides `excluding`. */
export async function countGrantedExcept(
	db: Db,
	linkId: string,
	excluding: readonly string[],
): Promise<number> {
	const row = await db
		.selectFrom("records")
		.select((eb) => eb.fn.countAll<number>().as("n"))
		.where("records.id", "not in", [...excluding])
		.where((eb) =>
			eb.or([
				eb("records.id", "in", eb.selectFrom("link_records").select("record").where("link", "=", linkId)),
				eb(
					"records.section",
					"in",
					eb.selectFrom("link_sections").select("section").where("link", "=", linkId),
				),
			]),
		)
		.executeTakeFirstOrThrow();
	return Number(row.n);
}

/** The shares a connected tool's proposals became, newest first (at most `limit`). */
export function linksOfConnection(db: Db, connectionId: string, limit: number) {
	return db
		.selectFrom("links")
		.selectAll()
		.where("connection", "=", connectionId)
		.orderBy("created", "desc")
		.orderBy("id", "desc")
		.limit(limit)
		.execute();
}

export function findToolLink(db: Db, connectionId: string, id: string) {
	return db
		.selectFrom("links")
		.selectAll()
		.where("connection", "=", connectionId)
		.where("id", "=", id)
		.executeTakeFirst();
}

/**
 * The condition "this link resolves any of `records`": naming one, naming its section, or naming
 * (or holding in a named section) a record that aliases one. For answer links (answers/store.ts) and
 * for grants handed to another server (grants/store.ts), through the shares service.
 */
export function resolvesAnyOf(records: readonly string[]) {
	const ids = [...records];
	return (eb: ExpressionBuilder<Database, "links">) => {
		const reached = eb
			.selectFrom("records")
			.select("records.id")
			.where((w) => w.or([w("records.id", "in", ids), w("records.alias", "in", ids)]));
		const reachedSections = eb
			.selectFrom("records")
			.select("records.section")
			.where("records.section", "is not", null)
			.where((w) => w.or([w("records.id", "in", ids), w("records.alias", "in", ids)]));
		return eb.or([
			eb(
				"links.id",
				"in",
				eb.selectFrom("link_records").select("link_records.link").where("link_records.record", "in", reached),
			),
			eb(
				"links.id",
				"in",
				eb
					.selectFrom("link_sections")
					.select("link_sections.link")
					.where("link_sections.section", "in", reachedSections),
			),
		]);
	};
}

/** What an expiry notice names: the share's label and why it expired. */
export function linkForNotice(db: Db, id: string) {
	return db
		.selectFrom("links")
		.select(["id", "workspace", "label", "created_by", "max_views", "view_count", "expires_at", "purpose"])
		.where("id", "=", id)
		.executeTakeFirst();
}
