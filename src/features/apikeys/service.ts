// API keys (spec "Authentication" rules 3-7): minted server-side, shown once, stored as a SHA-256
// hash, carrying the permissions granted at creation expanded to scopes fixed at creation, bound
// to the workspace they were created in, and never opening the vault.
import type { Kysely, Transaction } from "kysely";
import type { ApiKeyTable, Database } from "../../db/schema.ts";
import type { AccountCaller, ApiKeyResolver } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import {
	permissions as catalogue,
	expandPermissions,
	findPermission,
	roleScopes,
	VAULT_PERMISSIONS,
} from "../../http/permissions.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { hasScope } from "../../lib/scopes.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** Recognisable prefix so secret scanners and people can tell a key from other tokens. */
export const API_KEY_PREFIX = "svc_";
const LAST_USED_GAP_MS = 60_000;

export interface NewApiKey {
	accountId: string;
	workspaceId: string;
	name: string;
	permissions: readonly string[];
	/** Extra scopes from the catalogue, for callers that grant scopes rather than permissions. */
	scopes?: readonly string[];
	/** Milliseconds since the epoch; the key fails from this instant on. */
	expiresAt?: number | null;
}

export interface ApiKeyRecord {
	id: string;
	name: string;
	permissions: string[];
	scopes: string[];
	expiresAt: string | null;
	created: string;
	lastUsed: string | null;
	workspace: string;
}

export function apiKeyRecord(row: ApiKeyTable): ApiKeyRecord {
	return {
		id: row.id,
		name: row.name,
		permissions: JSON.parse(row.permissions) as string[],
		scopes: JSON.parse(row.scopes) as string[],
		expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
		created: new Date(row.created).toISOString(),
		lastUsed: row.last_used === null ? null : new Date(row.last_used).toISOString(),
		workspace: row.workspace,
	};
}

/** A vault scope is any scope on records or sections: a key never carries one (rule 6). */
export function isVaultScope(scope: string): boolean {
	return scope.startsWith("record:") || scope.startsWith("section:") || scope.startsWith("hidden:");
}

const knownScopes = new Set(catalogue.flatMap((p) => p.scopes));

function checkName(input: string): string {
	const name = input.trim();
	if (name.length < 1 || name.length > 200) {
		throw new AppError("validation_failed", "name must be 1 to 200 characters", {
			extra: { field: "body.name" },
		});
	}
	return name;
}

/** Checks what the key is to carry against the catalogue; every refusal names what was refused. */
function checkGrants(input: NewApiKey): void {
	if (input.permissions.length === 0 && (input.scopes ?? []).length === 0) {
		throw new AppError("validation_failed", "Grant at least one permission", {
			extra: { field: "body.permissions" },
		});
	}
	for (const name of input.permissions) {
		if (VAULT_PERMISSIONS.has(name)) {
			throw new AppError(
				"api_key_vault_scope",
				`An API key cannot carry ${name}: a key never opens the vault`,
				{
					extra: { permission: name },
				},
			);
		}
		if (!findPermission(name)) {
			throw new AppError("validation_failed", `Unknown permission "${name}"`, {
				extra: { field: "body.permissions", permission: name },
			});
		}
	}
	for (const scope of input.scopes ?? []) {
		if (isVaultScope(scope)) {
			throw new AppError(
				"api_key_vault_scope",
				`An API key cannot carry ${scope}: a key never opens the vault`,
				{
					extra: { scope },
				},
			);
		}
		if (!knownScopes.has(scope)) {
			throw new AppError("validation_failed", `Unknown scope "${scope}"`, {
				extra: { field: "body.scopes", scope },
			});
		}
	}
}

/** A member cannot mint a key with more than they hold in the workspace. */
function checkHeld(input: NewApiKey, held: readonly string[]): void {
	for (const name of input.permissions) {
		if ((findPermission(name)?.scopes ?? []).some((s) => !hasScope(held, s))) {
			throw new AppError("forbidden", `You do not hold ${name} in this workspace`, {
				extra: { permission: name },
			});
		}
	}
	for (const scope of input.scopes ?? []) {
		if (!hasScope(held, scope)) {
			throw new AppError("forbidden", `You do not hold ${scope} in this workspace`, { extra: { scope } });
		}
	}
}

/**
 * Mints a key for the creator in the workspace. The plaintext is returned once (the caller puts it
 * in `X-Plain-Token`); only its hash is stored, so it can be neither retrieved nor rotated in place.
 */
export async function createApiKey(
	db: Db,
	input: NewApiKey,
	now: number,
): Promise<{ key: ApiKeyRecord; plainToken: string }> {
	const name = checkName(input.name);
	const expiresAt = input.expiresAt ?? null;
	if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= now)) {
		throw new AppError("validation_failed", "expiresAt must be in the future", {
			extra: { field: "body.expiresAt" },
		});
	}
	checkGrants(input);
	const held = roleScopes(await store.memberRole(db, input.workspaceId, input.accountId));
	if (held === undefined) throw new AppError("forbidden", "Not a member of this workspace");
	checkHeld(input, held);
	const scopes = [...new Set([...expandPermissions(input.permissions), ...(input.scopes ?? [])])].sort();

	const plainToken = API_KEY_PREFIX + randomToken(32);
	const row: ApiKeyTable = {
		id: newId(),
		workspace: input.workspaceId,
		account: input.accountId,
		name,
		key_hash: sha256Hex(plainToken),
		permissions: JSON.stringify([...new Set(input.permissions)].sort()),
		scopes: JSON.stringify(scopes),
		expires_at: expiresAt,
		created: now,
		updated: now,
		last_used: null,
	};
	await store.insertApiKey(db, row);
	return { key: apiKeyRecord(row), plainToken };
}

/** Administrators (holders of `member:*`) see every key of the workspace; others their own. */
export function seesAllKeys(caller: Pick<AccountCaller, "scopes">): boolean {
	return hasScope(caller.scopes, "member:*");
}

export async function listApiKeys(
	db: Db,
	caller: Pick<AccountCaller, "accountId" | "workspaceId" | "scopes">,
): Promise<ApiKeyRecord[]> {
	const rows = await store.listApiKeys(
		db,
		caller.workspaceId,
		seesAllKeys(caller) ? undefined : caller.accountId,
	);
	return rows.map(apiKeyRecord);
}

/** Revoking deletes the row: the next request with the key, on any node, is `invalid_api_key`. */
export async function revokeApiKey(
	db: Db,
	caller: Pick<AccountCaller, "accountId" | "workspaceId" | "scopes">,
	id: string,
): Promise<void> {
	const row = await store.findApiKey(db, caller.workspaceId, id);
	// Another member's key answers like a missing one.
	if (!row || (row.account !== caller.accountId && !seesAllKeys(caller))) throw new AppError("not_found");
	await store.deleteApiKey(db, caller.workspaceId, id);
}

/**
 * A member leaving (or removed from) a workspace: the keys they created for it are revoked at once,
 * inside the departure's transaction.
 */
export async function revokeMemberKeys(db: Db, workspaceId: string, accountId: string): Promise<void> {
	await store.deleteMemberKeys(db, workspaceId, accountId);
}

/** Only the name changes: grants are fixed at creation and the token cannot be rotated in place. */
export async function renameApiKey(
	db: Db,
	caller: Pick<AccountCaller, "accountId" | "workspaceId" | "scopes">,
	id: string,
	name: string,
	now: number,
): Promise<void> {
	const row = await store.findApiKey(db, caller.workspaceId, id);
	if (!row || (row.account !== caller.accountId && !seesAllKeys(caller))) throw new AppError("not_found");
	await store.renameApiKey(db, caller.workspaceId, id, checkName(name), now);
}

/**
 * Resolves `X-API-Key` for src/http/auth.ts. Undefined (-> `invalid_api_key`) when no key matches,
 * it expired, or its creator left the workspace. The caller's scopes are the key's fixed scopes,
 * minus any vault scope (keys made before rule 6 carry them but are never let into the vault) and
 * never beyond what the creator's role holds today.
 */
export function apiKeyResolver(db: Kysely<Database>): ApiKeyResolver {
	return async (keyHash, now) => {
		const row = await store.findLiveKey(db, keyHash, now);
		if (!row) return undefined;
		if (row.last_used === null || row.last_used <= now - LAST_USED_GAP_MS) {
			await store.touchLastUsed(db, row.id, now, LAST_USED_GAP_MS);
		}
		const held = roleScopes(row.role) ?? [];
		const scopes = (JSON.parse(row.scopes) as string[]).filter((s) => !isVaultScope(s) && hasScope(held, s));
		// A key never opens the vault, but in what it may read (shares) it meets hidden entries as
		// its creator's role does today: owners' and admins' keys see them, others' do not.
		if (hasScope(held, "hidden:read")) scopes.push("hidden:read");
		return {
			kind: "apiKey",
			accountId: row.account,
			workspaceId: row.workspace,
			scopes,
			credentialId: row.id,
		};
	};
}
