// The one-time file tokens of a resolve (shares/tokens.ts): minted with the view, spent on first
// presentation, right or wrong (the row goes whatever the caller meant it for).
import type { Kysely } from "kysely";
import { param, prepare } from "../../../db/prepared.ts";
import type { Database } from "../../../db/schema.ts";
import type { SpentToken } from "./rows.ts";

export function compileTokenQueries(db: Kysely<Database>) {
	const insertToken = prepare<
		{
			hash: string;
			link: string;
			kind: string;
			record: string | null;
			view: number;
			line: string | null;
			reader: string | null;
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
			reader: param("reader"),
			created: param("now"),
			expires: param("expires"),
		}),
	);

	const spendToken = prepare<{ hash: string }, SpentToken>(
		db
			.deleteFrom("link_tokens")
			.where("token_hash", "=", param("hash"))
			.returning(["link", "kind", "record", "view", "stamp_line", "reader", "expires"]),
	);

	return { insertToken, spendToken };
}
