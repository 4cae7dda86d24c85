// The list, view and re-read queries every collection shares: the module's own select (already
// narrowed to what the caller may see) plus the parsed filter, the sort and the page.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../../db/index.ts";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { parseFilter } from "./filter.ts";
import { filterToSql } from "./filter-sql.ts";
import type { AnyCollection } from "./registry.ts";
import { parseSort } from "./sort.ts";

export const PER_PAGE_DEFAULT = 30;
/** PocketBase's largest page, which its SDK's getFullList asks for; the cost: bench/page-size.ts. */
export const PER_PAGE_MAX = 1000;
export const PAGE_MAX = 100_000;

export interface ListQuery {
	filter?: string;
	sort?: string;
	page?: number;
	perPage?: number;
	/**
	 * Skip counting (totalItems and totalPages are -1): the count visits every match (from an
	 * index where one covers the filter), the page only its rows.
	 */
	skipTotal?: boolean;
}

export interface ListPage {
	page: number;
	perPage: number;
	totalItems: number;
	totalPages: number;
	items: unknown[];
}

export async function listRecords(
	module: AnyCollection,
	db: Kysely<Database>,
	dialect: Dialect,
	caller: AccountCaller,
	query: ListQuery,
	now: number,
): Promise<ListPage> {
	const page = query.page ?? 1;
	const perPage = query.perPage ?? PER_PAGE_DEFAULT;
	// Parse both before touching the database: a bad filter or sort changes nothing and costs nothing.
	const ast = parseFilter(query.filter);
	const order = parseSort(
		query.sort?.trim() ? query.sort : module.defaultSort,
		module.query,
		module.idColumn,
	);

	let base = module.select(db, caller);
	if (ast) base = base.where(filterToSql(ast, module.query, dialect));

	let rows = base;
	for (const term of order) {
		rows = rows.orderBy(term.expr, (ob) => {
			const dir = term.desc ? ob.desc() : ob.asc();
			// The same null order on both dialects (SQLite's: nulls are smallest).
			if (!term.nullable) return dir;
			return term.desc ? dir.nullsLast() : dir.nullsFirst();
		});
	}
	rows = rows.limit(perPage).offset((page - 1) * perPage);

	const counting = query.skipTotal
		? Promise.resolve(-1)
		: base
				.clearSelect()
				.select(sql<number>`count(*)`.as("n"))
				.executeTakeFirst()
				.then((r) => Number((r as { n: number | string } | undefined)?.n ?? 0));
	const [pageRows, totalItems] = await Promise.all([rows.execute(), counting]);
	const found = module.complete ? await module.complete(db, pageRows) : pageRows;
	return {
		page,
		perPage,
		totalItems,
		totalPages: totalItems < 0 ? -1 : Math.ceil(totalItems / perPage),
		items: found.map((row) => module.toItem(row, now)),
	};
}

/** The row with this id among those the caller may see; 404 when missing or not visible alike. */
export async function findVisible(
	module: AnyCollection,
	db: Kysely<Database>,
	caller: AccountCaller,
	id: string,
) {
	const row = await module.select(db, caller).where(sql.ref(module.idColumn), "=", id).executeTakeFirst();
	if (!row) throw new AppError("not_found", `No ${module.name} record with this id`);
	return module.complete ? ((await module.complete(db, [row]))[0] ?? row) : row;
}
