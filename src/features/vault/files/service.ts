// File access by token: a bare file URL serves nothing. `POST /api/files/token` mints a token good
// for two minutes, bound to the caller's account and active workspace; it may be used for several
// files of that workspace until it expires, and stops working as soon as the account leaves the
// workspace. Only its hash is stored.
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.ts";
import type { AccountCaller } from "../../../http/auth.ts";
import type { FileVersion } from "../../../http/byte-range.ts";
import { AppError } from "../../../http/errors.ts";
import { roleScopes, seesHidden } from "../../../http/permissions.ts";
import { randomToken, sha256Hex } from "../../../lib/crypto.ts";
import { type StoredFile, storedFile } from "../records/reader.ts";
import * as store from "./store.ts";

export const FILE_TOKEN_TTL_MS = 2 * 60 * 1000;

export async function mintFileToken(db: Kysely<Database>, caller: AccountCaller, now: number) {
	const token = randomToken(32);
	const expires = now + FILE_TOKEN_TTL_MS;
	await store.insertToken(db, {
		token_hash: sha256Hex(token),
		account: caller.accountId,
		workspace: caller.workspaceId,
		via: caller.kind,
		created: now,
		expires,
	});
	return { token, expiresAt: new Date(expires).toISOString() };
}

/** A vault file as its owner reads it: the stored file and the version its validators name. */
export type OwnedFile = StoredFile & FileVersion;

/** The file record the token opens; every refusal is a problem with a code. */
export async function openFile(
	db: Kysely<Database>,
	token: string | undefined,
	recordId: string,
	now: number,
): Promise<OwnedFile> {
	if (!token)
		throw new AppError(
			"file_download_invalid",
			"A file token is required: POST /api/files/token, then ?token=",
		);
	const caller = await tokenCaller(db, token, now);
	const row = await store.findFileRecord(db, caller.workspaceId, recordId);
	const file = row && visibleTo(row, caller.scopes) ? storedFile(row) : undefined;
	if (!row || !file) throw new AppError("not_found", "No file record with this id");
	return { ...file, sha256: row.file_sha256 ?? "", updated: row.updated };
}

/**
 * The session a live file token stands for: its account in its workspace with the member's role
 * now (a demotion counts at once). For a browser's own download of vault bytes (a file, the vault
 * export), so the bytes stream to disk without passing through script memory. A key's token is
 * refused: a key never opens the vault.
 */
export async function tokenCaller(db: Kysely<Database>, token: string, now: number): Promise<AccountCaller> {
	const grant = await store.findLiveToken(db, sha256Hex(token), now);
	if (!grant) throw new AppError("file_download_invalid", "The file token is unknown or expired");
	if (grant.via === "apiKey") {
		throw new AppError("api_key_scope_missing", "API keys never reach vault files", {
			extra: { scope: "record:read" },
		});
	}
	return {
		kind: "session",
		accountId: grant.account,
		workspaceId: grant.workspace,
		scopes: roleScopes(grant.role) ?? [],
		credentialId: "file-token",
	};
}

/** A hidden file exists only for those who see hidden entries (owners and admins). */
function visibleTo(row: { hidden: number }, scopes: readonly string[]): boolean {
	return row.hidden === 0 || seesHidden({ scopes });
}

/**
 * A file of the workspace (never a value record or another workspace's), for other features; a
 * hidden one only for a caller who sees hidden entries.
 */
export async function findWorkspaceFile(
	db: Kysely<Database>,
	caller: Pick<AccountCaller, "workspaceId" | "scopes">,
	recordId: string,
): Promise<StoredFile | undefined> {
	const row = await store.findFileRecord(db, caller.workspaceId, recordId);
	return row && visibleTo(row, caller.scopes) ? storedFile(row) : undefined;
}
