// What every reader of a share needs, built once per app: the database, the compiled public
// queries, the server's claim and the grant hooks. Other features build one with `sharesContext`.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { KeyedLimit } from "../../http/rate-limit.ts";
import type { ServerClaim } from "../server/service.ts";
import type { GrantHooks } from "./grant-hooks.ts";
import { type PublicQueries, publicQueries } from "./public-queries.ts";

export interface SharesContext {
	db: Kysely<Database>;
	q: PublicQueries;
	server: ServerClaim;
	hooks?: GrantHooks;
	/**
	 * Counts a password attempt at a share by a client, across every route that checks one (the
	 * app's `keyedLimit("password")`); past the limit it refuses with 429 `rate_limited`.
	 */
	passwordAttempts?: KeyedLimit;
}

export function sharesContext(
	db: Kysely<Database>,
	server: ServerClaim,
	hooks?: GrantHooks,
	passwordAttempts?: KeyedLimit,
): SharesContext {
	return {
		db,
		q: publicQueries(db),
		server,
		...(hooks ? { hooks } : {}),
		...(passwordAttempts ? { passwordAttempts } : {}),
	};
}
