// Accounts own a personal workspace created with them; sessions are opaque random tokens stored
// as SHA-256 hashes and sent as `Authorization: Bearer`.
import type { Kysely, Transaction } from "kysely";
import type { AccountTable, Database } from "../../db/schema.ts";
import type { AccountCaller, SessionResolver } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { answerOnlyScopes, isRole, type Role, roleScopes } from "../../http/permissions.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { normalizeEmail } from "../../lib/email.ts";
import { createPersonalWorkspace } from "../workspaces/service.ts";
import * as store from "./store.ts";

export { isValidEmail, normalizeEmail } from "../../lib/email.ts";
export { anyAccount } from "./store.ts";
export {
	confirmVerification,
	issueVerification,
	setAccountLanguage,
	VERIFY_TTL_MS,
	verifyUrl,
} from "./verification.ts";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Serialises changes to one account (a no-op UPDATE taking the row's lock), for the passkeys'
 * ceremonies as for deleting the account: false when the account is gone.
 */
export function lockAccount(db: Kysely<Database>, accountId: string): Promise<boolean> {
	return store.lockAccount(db, accountId);
}

export interface NewAccount {
	accountId: string;
	workspaceId: string;
}

/** Creates the account, its personal workspace and the owner membership in the given transaction. */
export async function createAccount(
	trx: Transaction<Database> | Kysely<Database>,
	input: { email: string; name?: string; id?: string; answerOnlyFor?: string },
	now: number,
): Promise<NewAccount> {
	const email = normalizeEmail(input.email);
	const name = input.name?.trim() || (email.split("@")[0] as string);
	// A passkey signup names the account id at begin (it is the WebAuthn user handle).
	const accountId = input.id ?? newId();
	const workspaceId = newId();
	await store.insertAccount(trx, {
		id: accountId,
		email,
		name,
		answer_only: input.answerOnlyFor === undefined ? 0 : 1,
		signup_request: input.answerOnlyFor ?? null,
		signup_at: input.answerOnlyFor === undefined ? null : now,
		email_verified_at: null,
		language: null,
		created: now,
		updated: now,
	});
	await createPersonalWorkspace(trx, { id: workspaceId, accountId, accountName: name }, now);
	return { accountId, workspaceId };
}

/** Mints a session; the plaintext token is returned once and only its hash is kept. */
export async function createSession(
	db: Kysely<Database> | Transaction<Database>,
	accountId: string,
	now: number,
): Promise<{ token: string; sessionId: string; expires: number }> {
	const token = randomToken(32);
	const sessionId = newId();
	const expires = now + SESSION_TTL_MS;
	await store.insertSession(db, {
		id: sessionId,
		token_hash: sha256Hex(token),
		account: accountId,
		created: now,
		expires,
		last_used: now,
	});
	return { token, sessionId, expires };
}

export function sessionResolver(db: Kysely<Database>): SessionResolver {
	return async (tokenHash, workspaceHint, now) => {
		const row = await store.findSessionMembership(db, tokenHash, workspaceHint, now);
		if (!row) {
			// A live session asking for a workspace it is not a member of is refused, not a guest.
			if (workspaceHint !== undefined && (await store.sessionExists(db, tokenHash, now))) {
				throw new AppError("forbidden", "Not a member of the workspace named in X-Workspace");
			}
			return undefined;
		}
		const answerOnly = row.answer_only === 1;
		const caller: AccountCaller = {
			kind: "session",
			accountId: row.accountId,
			workspaceId: row.workspace,
			scopes: answerOnly ? answerOnlyScopes(row.role) : (roleScopes(row.role) ?? []),
			credentialId: row.sessionId,
			...(answerOnly ? { answerOnly } : {}),
		};
		return caller;
	};
}

/** An account as the API shows it (never a session, hash or key). */
export interface AccountRecord {
	id: string;
	email: string;
	emailVerified: boolean;
	name: string;
	created: string;
	updated: string;
}

export function accountRecord(row: AccountTable): AccountRecord {
	return {
		id: row.id,
		email: row.email,
		emailVerified: row.email_verified_at !== null,
		name: row.name,
		created: new Date(row.created).toISOString(),
		updated: new Date(row.updated).toISOString(),
	};
}

export interface WorkspaceRecord {
	id: string;
	name: string;
	personal: boolean;
	role: Role;
	created: string;
	updated: string;
}

/** The workspaces an account is a member of, in the order the active-workspace default uses. */
export async function accountWorkspaces(db: Kysely<Database>, accountId: string): Promise<WorkspaceRecord[]> {
	const rows = await store.listMemberships(db, accountId);
	// Only the four roles are ever written (members' role checks); a row naming another reads as the
	// least of them.
	return rows.map((r) => ({
		id: r.id,
		name: r.name,
		personal: r.personal === 1,
		role: isRole(r.role) ? r.role : "viewer",
		created: new Date(r.created).toISOString(),
		updated: new Date(r.updated).toISOString(),
	}));
}

export function accountByEmail(db: Kysely<Database> | Transaction<Database>, email: string) {
	return store.findAccountByEmail(db, normalizeEmail(email));
}

export function accountById(db: Kysely<Database> | Transaction<Database>, id: string) {
	return store.findAccount(db, id);
}

/** Signs out: the session stops authenticating on the next request. */
export async function endSession(db: Kysely<Database>, sessionId: string): Promise<void> {
	await store.deleteSession(db, sessionId);
}
