// The collection registry: each collection module declares, next to its schema, everything the
// generic collections API needs — its fields (response, create and update schemas, and which
// names filter and sort), an access rule per operation (default-deny: an operation without a rule
// is refused), the rows a caller may see (every read and write starts from them, so "not yours"
// answers exactly like "not found"), an explicit row -> record mapper, and handlers that call its
// service. The framework imports no feature: each feature declares its module, and the app registers
// it at start-up (`collection(module, deps)` in src/app.ts) with what its handlers need beyond the
// database, the caller and the clock.
import type { FastifyInstance } from "fastify";
import type { Expression, Kysely, SelectQueryBuilder } from "kysely";
import type { TObject, TSchema } from "typebox";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { requireScope } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";

export type Operation = "list" | "view" | "create" | "update" | "delete";

/** A name the `filter` and `sort` parameters accept, and the SQL expression it stands for. */
export interface QueryField {
	type: "text" | "integer" | "boolean" | "date";
	/** A qualified column (`sql.ref("records.key")`) or an expression over the collection's select. */
	expr: Expression<unknown>;
	nullable?: boolean;
	/** Accepted in `filter` (default true). */
	filter?: boolean;
	/** Accepted in `sort` (default false: only indexed or cheap fields sort). */
	sort?: boolean;
	/** Text fields kept in the collection's search index: `~` is answered from it (contains.ts). */
	search?: SearchColumn;
}

/**
 * A plain column in the search index (migration 0019 and db/trigram.ts): on SQLite a column of the
 * FTS5 trigram table `<table>_search` (same name), on PostgreSQL a pg_trgm index on
 * `lower(<column> collate "C")`.
 */
export interface SearchColumn {
	table: string;
	column: string;
	/**
	 * A column holding the `id` of another row of the table whose `column` the field reads instead,
	 * when set (an alias reads its target's value); `expr` says the same in SQL.
	 */
	via?: string;
}

export interface AccessRule {
	/** The scope the operation needs, e.g. `record:read`; `<resource>:*` covers it. */
	scope: string;
	/** False: API keys are refused whatever they carry (the vault, account-level collections). */
	apiKeys: boolean;
}

/**
 * What every handler receives: the database, who is calling (with their scopes), and the app
 * clock's time of the request. A module's `Deps` (bound at registration) come next to these.
 */
export interface OperationContext {
	db: Kysely<Database>;
	caller: AccountCaller;
	now: number;
}

/** The `Deps` of a collection whose handlers need nothing beyond the operation context. */
export type NoDeps = Record<never, never>;

/** A file already streamed into the blob store (under a fresh key) before its row is written. */
export interface StoredUpload {
	key: string;
	size: number;
	sha256: string;
	/** Sniffed from the first bytes; the client's claim is ignored. */
	type: string;
	/** The client's file name, sanitised. */
	name: string;
}

export interface Created {
	id: string;
	/** Response headers, e.g. `X-Plain-Token` for a key shown once. */
	headers?: Record<string, string>;
}

export interface CollectionModule<Row, Create, Update, Deps extends object = NoDeps> {
	/** The `{collection}` path segment. */
	name: string;
	/** One paragraph for the OpenAPI tag and docs. */
	description: string;
	schemas: {
		/** The record as served; its `$id` names the OpenAPI component. */
		item: TObject;
		create?: TObject;
		update?: TObject;
		/** Response headers of a create, for the OpenAPI document (e.g. `X-Plain-Token`). */
		createHeaders?: Record<string, TSchema>;
	};
	query: Readonly<Record<string, QueryField>>;
	/** Sort used when `sort` is absent, in the same syntax (`-created`). */
	defaultSort: string;
	access: Partial<Record<Operation, AccessRule>>;
	/** Why an operation without a rule is refused (405), e.g. where to do it instead. */
	refusals?: Partial<Record<Operation, string>>;
	/** Accept `multipart/form-data` with a `file` part on create and update. */
	uploads?: boolean;
	/** The id column, for view, update and delete. */
	idColumn: string;
	/** The rows this caller may see; default-deny lives here (biome: tables differ per module). */
	// biome-ignore lint/suspicious/noExplicitAny: each module selects from its own tables
	select(db: Kysely<Database>, caller: AccountCaller): SelectQueryBuilder<any, any, Row>;
	/** Fills in what the select leaves out, once per page of rows (e.g. alias values). */
	complete?(db: Kysely<Database>, rows: Row[]): Promise<Row[]>;
	/** Explicit mapper: only these members ever reach JSON (never key material or hashes). `now` is the app clock's. */
	toItem(row: Row, now: number): unknown;
	/** The writes; each gets the operation context and the module's `Deps`, nothing else. */
	handlers: {
		create?(ctx: OperationContext & Deps, input: Create, upload?: StoredUpload): Promise<Created>;
		update?(ctx: OperationContext & Deps, row: Row, input: Update, upload?: StoredUpload): Promise<void>;
		delete?(ctx: OperationContext & Deps, row: Row): Promise<void>;
	};
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds modules of every row type
export type AnyCollection = CollectionModule<any, any, any, any>;

export function defineCollection<Row, Create, Update, Deps extends object = NoDeps>(
	module: CollectionModule<Row, Create, Update, Deps>,
): CollectionModule<Row, Create, Update, Deps> {
	for (const op of ["create", "update", "delete"] as const) {
		if (module.access[op] && !module.handlers[op]) {
			throw new Error(`collection ${module.name}: access rule for ${op} without a handler`);
		}
	}
	return module;
}

/** A collection as the app registers it: its module, and its handlers' `Deps` taken from the app. */
export interface CollectionRegistration {
	module: AnyCollection;
	deps: (app: FastifyInstance) => object;
}

/**
 * Registers `module` for the collections API; `deps` (required when the module declares `Deps`)
 * picks what its handlers need from the app once, at start-up.
 */
export function collection<Row, Create, Update, Deps extends object>(
	module: CollectionModule<Row, Create, Update, Deps>,
	...deps: NoDeps extends Deps ? [] : [(app: FastifyInstance) => NoInfer<Deps>]
): CollectionRegistration {
	return { module, deps: deps[0] ?? (() => ({})) };
}

/**
 * Sessions act for their own account: they hold these besides their role's scopes. Minting API keys
 * is the person's own act, never a key's (certifying identities too, but that is a change in the
 * workspace: the role holds `identity:write`, a viewer's does not).
 */
const ACCOUNT_SCOPES = ["workspace:*", "passkey:*", "apikey:*", "credential:*"];
/** An answer-only account's own acts: its passkeys and seeing its workspace; no keys, workspaces or identities. */
const ANSWER_ONLY_ACCOUNT_SCOPES = ["workspace:read", "passkey:*"];

/**
 * The access rule of `op`, applied the same way to list, view, create, update and delete:
 * no rule is 405; an API key on a collection closed to keys, or any caller without the scope,
 * is 403 naming the scope (`api_key_scope_missing` for a key, `forbidden` for a session).
 */
export function authorize(module: AnyCollection, op: Operation, caller: AccountCaller): void {
	const rule = module.access[op];
	if (!rule) {
		const onItem = op === "view" || op === "update" || op === "delete";
		throw new AppError(
			"method_not_allowed",
			module.refusals?.[op] ?? `${module.name} records cannot be ${pastTense(op)} here`,
			{
				headers: { allow: allowed(module, onItem) },
			},
		);
	}
	if (caller.kind === "apiKey" && !rule.apiKeys) {
		throw new AppError("api_key_scope_missing", `API keys never reach ${module.name} (needs ${rule.scope})`, {
			extra: { scope: rule.scope },
		});
	}
	const own = caller.answerOnly ? ANSWER_ONLY_ACCOUNT_SCOPES : ACCOUNT_SCOPES;
	const scopes = caller.kind === "session" ? [...caller.scopes, ...own] : caller.scopes;
	requireScope({ ...caller, scopes }, rule.scope);
}

function allowed(module: AnyCollection, onItem: boolean): string {
	const ops: [Operation, string][] = onItem
		? [
				["view", "GET"],
				["update", "PATCH"],
				["delete", "DELETE"],
			]
		: [
				["list", "GET"],
				["create", "POST"],
			];
	return ops
		.filter(([op]) => module.access[op])
		.map(([, method]) => method)
		.join(", ");
}

function pastTense(op: Operation): string {
	const words: Record<Operation, string> = {
		list: "listed",
		view: "viewed",
		create: "created",
		update: "updated",
		delete: "deleted",
	};
	return words[op];
}
