// The queries of a share's public paths (probe, resolve, file and archive tokens), compiled once per
// database handle (db/prepared.ts): the hot paths cannot afford building a query per request. Each
// concern compiles its own (public-queries/); their conditions on a share's status, cap, expiry
// and gates come from the gate module (gates/open.ts). Only the shares feature runs them.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { compileGrantedQueries } from "./public-queries/granted.ts";
import { compileLinkQueries } from "./public-queries/links.ts";
import { compileOpenResolve } from "./public-queries/open-resolve.ts";
import { compileTokenQueries } from "./public-queries/tokens.ts";
import { compileViewQueries } from "./public-queries/views.ts";

export type {
	GrantedRecordRow,
	GrantedSectionRow,
	GrantRow,
	OpenRead,
	OpenResolveRow,
	PublicLinkRow,
	ReadParams,
	SpentToken,
	TakenView,
	ViewParams,
} from "./public-queries/rows.ts";

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
	const { linkBySlug, probeLink, markExpired } = compileLinkQueries(db);
	const { insertRead, takeView, logViewSteps } = compileViewQueries(db);
	const { grants } = compileGrantedQueries(db);
	const resolveOpen = compileOpenResolve(db, { logViewSteps, grants });
	const { insertToken, spendToken } = compileTokenQueries(db);
	return {
		linkBySlug,
		probeLink,
		takeView,
		insertRead,
		grants,
		resolveOpen,
		insertToken,
		spendToken,
		markExpired,
	};
}

export type PublicQueries = ReturnType<typeof publicQueries>;
