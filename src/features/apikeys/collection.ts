// The `apiKeys` collection (spec "Authentication" rules 3-7): create mints a key and hands its
// plaintext back once, in `X-Plain-Token`, never in the body; the record never carries the hash.
// Only the name can change (grants are fixed at creation, no rotation in place); delete revokes.
// Sessions only: a key never mints, lists or revokes keys.
import { sql } from "kysely";
import { Type } from "typebox";
import type { ApiKeyTable } from "../../db/schema.ts";
import { Nullable, parseExpiry, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import { apiKeyRecord, createApiKey, renameApiKey, revokeApiKey, seesAllKeys } from "./service.ts";
import { selectVisibleKeys } from "./store.ts";

export const ApiKey = Type.Object(
	{
		id: Type.String(),
		name: Type.String({ description: "1 to 200 characters." }),
		permissions: Type.Array(Type.String(), { description: "Catalogue permissions granted at creation." }),
		scopes: Type.Array(Type.String(), {
			description: "What they expanded to at creation, sorted; fixed from then on.",
		}),
		expiresAt: Nullable(Timestamp("The key fails from this instant on."), "Null: no expiry."),
		created: Timestamp("Creation time."),
		lastUsed: Nullable(Timestamp("Last request with it"), "Recorded at most once a minute; null until used."),
		workspace: Type.String({ description: "The workspace the key is bound to." }),
	},
	{ $id: "ApiKey", description: "An API key (`apiKeys` collection); never the token or its hash." },
);

const Name = Type.String({ minLength: 1, maxLength: 200 });

const ApiKeyCreate = Type.Object(
	{
		name: Name,
		permissions: Type.Array(Type.String({ maxLength: 64 }), {
			maxItems: 64,
			description: "Catalogue permission names; never `vault:read` or `vault:write`.",
		}),
		scopes: Type.Optional(
			Type.Array(Type.String({ maxLength: 64 }), {
				maxItems: 64,
				description: "Extra catalogue scopes; never a `record:` or `section:` scope.",
			}),
		),
		expiresAt: Type.Optional(
			Nullable(
				Type.String({ maxLength: 64 }),
				"ISO 8601 date-time in the future; null or absent: no expiry.",
			),
		),
	},
	{ additionalProperties: false },
);

const ApiKeyUpdate = Type.Object(
	{ name: Name },
	{ additionalProperties: false, description: "Only the name changes; grants are fixed at creation." },
);

type ApiKeyRow = Omit<ApiKeyTable, "key_hash">;

interface CreateInput {
	name: string;
	permissions: string[];
	scopes?: string[];
	expiresAt?: string | null;
}

const rule = (scope: string) => ({ scope, apiKeys: false });

export const apiKeysCollection = defineCollection<ApiKeyRow, CreateInput, { name: string }>({
	name: "apiKeys",
	description:
		"API keys of the active workspace: a member sees their own, a holder of `members:write` every one. The token is returned once, in the `X-Plain-Token` header of the create response. Only `name` can be changed; delete revokes at once. Sessions only.",
	schemas: {
		item: ApiKey,
		create: ApiKeyCreate,
		update: ApiKeyUpdate,
		createHeaders: {
			"X-Plain-Token": Type.String({
				description: "The key (`svc_` + 43 base64url characters), shown this once; only its hash is kept.",
			}),
		},
	},
	query: {
		id: { type: "text", expr: sql.ref("api_keys.id"), sort: true },
		name: { type: "text", expr: sql.ref("api_keys.name"), sort: true },
		expiresAt: { type: "date", expr: sql.ref("api_keys.expires_at"), nullable: true, sort: true },
		created: { type: "date", expr: sql.ref("api_keys.created"), sort: true },
		lastUsed: { type: "date", expr: sql.ref("api_keys.last_used"), nullable: true, sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("apikey:read"),
		view: rule("apikey:read"),
		create: rule("apikey:write"),
		update: rule("apikey:write"),
		delete: rule("apikey:write"),
	},
	idColumn: "api_keys.id",
	select: (db, caller) =>
		selectVisibleKeys(db, caller.workspaceId, seesAllKeys(caller) ? undefined : caller.accountId),
	// The hash is not selected; the service's mapper names every member it serves.
	toItem: (row) => apiKeyRecord({ ...row, key_hash: "" }),
	handlers: {
		create: async ({ db, caller, now }, input) => {
			const { key, plainToken } = await createApiKey(
				db,
				{
					accountId: caller.accountId,
					workspaceId: caller.workspaceId,
					name: input.name,
					permissions: input.permissions,
					...(input.scopes ? { scopes: input.scopes } : {}),
					expiresAt:
						input.expiresAt === undefined || input.expiresAt === null
							? null
							: parseExpiry(input.expiresAt, now),
				},
				now,
			);
			// no-store: the one response holding the token is never kept by a cache on the way.
			return { id: key.id, headers: { "x-plain-token": plainToken, "cache-control": "no-store" } };
		},
		update: ({ db, caller, now }, row, input) => renameApiKey(db, caller, row.id, input.name, now),
		delete: ({ db, caller }, row) => revokeApiKey(db, caller, row.id),
	},
});
