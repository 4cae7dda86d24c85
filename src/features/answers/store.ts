// Kysely queries for answers: the answer rows, the links they are, and which answers a record
// change reaches (directly, through a section, or through an alias).
import type { Kysely, Transaction } from "kysely";
import type { Database, RequestAnswerTable } from "../../db/schema.ts";
import { pastExpirySql, resolvesAnyOf } from "../shares/service.ts";

type Db = Kysely<Database> | Transaction<Database>;

export function findAnswer(db: Db, requestId: string, accountId: string) {
	return db
		.selectFrom("request_answers")
		.selectAll()
		.where("request", "=", requestId)
		.where("account", "=", accountId)
		.executeTakeFirst();
}

/** The columns both kinds of answer set. */
type AnswerCommon = Pick<
	RequestAnswerTable,
	"id" | "request" | "identity" | "identifier" | "sender_name" | "created" | "updated"
>;

/**
 * An answer's row, the one place its columns are named: kept here (`local`: the responder's account
 * and workspace, values typed and records linked) or on the responder's server (`remote`: the
 * grant and its keys, never a value, active until a signed event says otherwise).
 */
export function answerRow(
	answer: AnswerCommon &
		(
			| ({ kind: "local" } & Pick<
					RequestAnswerTable,
					"account" | "workspace" | "data" | "minted" | "entries"
			  >)
			| ({ kind: "remote" } & Pick<RequestAnswerTable, "server" | "grant_id" | "grant_token" | "grant_keys">)
		),
): RequestAnswerTable {
	const none = {
		account: null,
		workspace: null,
		data: "{}",
		server: null,
		minted: "{}",
		entries: "{}",
		grant_id: null,
		grant_token: null,
		grant_keys: null,
		remote_status: null,
		remote_at: null,
	};
	const { kind, ...columns } = answer;
	if (kind === "local") return { ...none, ...columns };
	return { ...none, ...columns, remote_status: "active", remote_at: answer.updated };
}

/** Writes an answer's row: new, or over the existing one with the same id, its creation kept. */
export async function writeAnswer(db: Db, row: RequestAnswerTable, exists: boolean): Promise<void> {
	if (!exists) {
		await db.insertInto("request_answers").values(row).execute();
		return;
	}
	const { id, created: _created, ...changes } = row;
	await db.updateTable("request_answers").set(changes).where("id", "=", id).execute();
}

/** The answer a link is, with its request's owner; undefined for a link that answers nothing. */
export function answerOfLink(db: Db, linkId: string) {
	return db
		.selectFrom("request_answers")
		.innerJoin("requests", "requests.id", "request_answers.request")
		.innerJoin("workspaces", "workspaces.id", "requests.workspace")
		.select([
			"request_answers.id",
			"request_answers.request",
			"request_answers.sender_name",
			"request_answers.server",
			"requests.label as request_label",
			"requests.workspace as request_workspace",
			"requests.account as request_account",
			"workspaces.owner as request_owner",
		])
		.where("request_answers.id", "=", linkId)
		.executeTakeFirst();
}

/** Answer links in a workspace (for a workspace deletion). */
export function answersInWorkspace(db: Db, workspaceId: string) {
	return db
		.selectFrom("request_answers")
		.innerJoin("links", "links.id", "request_answers.id")
		.select(["request_answers.id", "request_answers.request", "links.status"])
		.where("request_answers.workspace", "=", workspaceId)
		.execute();
}

/** Active answer links that resolve any of `records`. */
export function answerLinksResolving(db: Db, records: readonly string[]) {
	return db
		.selectFrom("links")
		.innerJoin("request_answers", "request_answers.id", "links.id")
		.select([
			"links.id",
			"links.workspace",
			"links.label",
			"links.status",
			"links.expires_at",
			"links.max_views",
			"links.view_count",
			"request_answers.request",
		])
		.where("links.status", "=", "active")
		.where(resolvesAnyOf(records))
		.execute();
}

/** A page of a request's answers with their links (a link may be gone: deleted by its holder). */
export function answersOfRequest(db: Db, requestId: string, limit: number, offset: number) {
	return db
		.selectFrom("request_answers")
		.leftJoin("links", "links.id", "request_answers.id")
		.select([
			"request_answers.id",
			"request_answers.identity",
			"request_answers.identifier",
			"request_answers.sender_name",
			"request_answers.data",
			"request_answers.server",
			"request_answers.grant_id",
			"request_answers.grant_token",
			"request_answers.remote_status",
			"request_answers.remote_at",
			"request_answers.minted",
			"request_answers.entries",
			"request_answers.created",
			"request_answers.updated",
			"links.status",
			"links.slug",
			"links.expires_at",
			"links.max_views",
			"links.view_count",
			"links.workspace as link_workspace",
		])
		.where("request_answers.request", "=", requestId)
		.orderBy("request_answers.created")
		.orderBy("request_answers.id")
		.limit(limit)
		.offset(offset)
		.execute();
}

export async function countAnswers(db: Db, requestId: string): Promise<number> {
	const row = await db
		.selectFrom("request_answers")
		.select((eb) => eb.fn.countAll<number>().as("n"))
		.where("request", "=", requestId)
		.executeTakeFirstOrThrow();
	return Number(row.n);
}

/** Active answer links and grants handed to another server past their expiry, for the expiry sweep. */
export function expiredAnswerLinks(db: Db, now: number, limit: number) {
	return (
		db
			.selectFrom("links")
			.select("links.id")
			.where((eb) => pastExpirySql(eb, now))
			// Answers kept here, and grants handed to another server (whose events go there).
			.where((eb) =>
				eb.or([
					eb.exists(
						eb.selectFrom("request_answers").select("id").whereRef("request_answers.id", "=", "links.id"),
					),
					eb.exists(
						eb
							.selectFrom("grant_tokens")
							.select("link")
							.whereRef("grant_tokens.link", "=", "links.id")
							.where("grant_tokens.peer", "is not", null),
					),
				]),
			)
			.limit(limit)
			.execute()
	);
}
