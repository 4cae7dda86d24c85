import type { Kysely, Transaction } from "kysely";
import type { Database, RequestTable } from "../../db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function selectRequests(db: Db, workspaceId: string) {
	return db.selectFrom("requests").selectAll("requests").where("requests.workspace", "=", workspaceId);
}

export function findRequest(db: Db, workspaceId: string, id: string) {
	return selectRequests(db, workspaceId).where("requests.id", "=", id).executeTakeFirst();
}

export function insertRequest(db: Db, row: RequestTable) {
	return db.insertInto("requests").values(row).execute();
}

export function updateRequest(db: Db, id: string, changes: Partial<Omit<RequestTable, "id" | "workspace">>) {
	return db.updateTable("requests").set(changes).where("id", "=", id).execute();
}

export function deleteRequest(db: Db, id: string) {
	return db.deleteFrom("requests").where("id", "=", id).execute();
}

/** A request by slug with what its probe shows of the requester. */
export function findPublicRequest(db: Db, slug: string) {
	return db
		.selectFrom("requests")
		.innerJoin("workspaces", "workspaces.id", "requests.workspace")
		.leftJoin("identities", "identities.id", "requests.identity")
		.selectAll("requests")
		.select([
			"workspaces.name as requester_name",
			"identities.name as identity_name",
			"identities.fingerprint as identity_fingerprint",
		])
		.where("requests.slug", "=", slug)
		.executeTakeFirst();
}

export type PublicRequestRow = NonNullable<Awaited<ReturnType<typeof findPublicRequest>>>;

export async function slugExists(db: Db, slug: string): Promise<boolean> {
	const row = await db.selectFrom("requests").select("id").where("slug", "=", slug).executeTakeFirst();
	return row !== undefined;
}

/** Per request allowing answer-only sign-ups or having had one: how many accounts, and since `since`. */
export function answerSignupCounts(db: Db, since: number) {
	return db
		.selectFrom("requests")
		.innerJoin("workspaces", "workspaces.id", "requests.workspace")
		.leftJoin("accounts", "accounts.signup_request", "requests.id")
		.select((eb) => [
			"requests.id",
			"requests.label",
			"requests.allow_answer_signup",
			"requests.answer_signup_limit",
			"workspaces.name as workspace_name",
			eb.fn.count<number | string>("accounts.id").as("total"),
			eb.fn
				.sum<number | string | null>(eb.case().when("accounts.signup_at", ">=", since).then(1).else(0).end())
				.as("last_day"),
		])
		.groupBy([
			"requests.id",
			"requests.label",
			"requests.allow_answer_signup",
			"requests.answer_signup_limit",
			"workspaces.name",
		])
		.having((eb) =>
			eb.or([eb("requests.allow_answer_signup", "=", 1), eb(eb.fn.count("accounts.id"), ">", 0)]),
		)
		.orderBy("total", "desc")
		.orderBy("requests.id")
		.execute();
}
