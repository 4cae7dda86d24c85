// Invitations (docs/api.md "Members and invitations"): a member holding `members:write` invites an
// email with a role no higher than their own. The invitation is a one-time link like the
// operator's ticket: 256 random bits, kept only as a SHA-256 hash, good seven days, revocable,
// listed while open. Whoever holds the link accepts it: signed in, their account joins; or they
// sign up with a passkey for the invitation's email (even with sign-ups off), and the account is
// created and joins in the registration's one transaction.
//
// Accepting, in order: the invitation exists (`invitation_invalid`), is not revoked
// (`invitation_revoked`), not accepted (`invitation_used`), not expired (`invitation_expired`); the
// account is not a member yet (`member_exists`, nothing spent); then one conditional UPDATE spends
// it, so of two accounts accepting at once exactly one joins.
//
// An invitation carries only the authority its inviter still has when it is redeemed: the inviter
// must still be a member of the workspace with a role that may invite and give the invitation's
// role. An inviter removed, demoted, departed or deleted leaves their open invitations refused as
// `invitation_revoked` (preview, accept, and a sign-up from the link). The condition is part of the
// spending UPDATE, and every role change and departure takes the same workspace lock first, so on
// two nodes a demotion and an acceptance take turns.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { ROLES, rolePermissions } from "../../http/permissions.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { accountById, isValidEmail, normalizeEmail } from "../accounts/service.ts";
import { invalidField } from "../collections/fields.ts";
import type { Mailer, NewMail } from "../mail/service.ts";
import * as workspaces from "../workspaces/service.ts";
import { notifyJoined } from "./notices.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The console page that takes the link; the token rides in the fragment, never sent to a server. */
export function invitationUrl(origin: string, token: string): string {
	return `${origin}/app/invite#${token}`;
}

export async function createInvitation(
	db: Db,
	caller: AccountCaller,
	input: { email: string; role: workspaces.Role },
	now: number,
): Promise<{ id: string; token: string; email: string; role: string }> {
	const email = normalizeEmail(input.email);
	if (!isValidEmail(email)) throw invalidField("email", "must be a valid email address");
	const held = await workspaces.callerRole(db, caller);
	if (!workspaces.roleWithin(held, input.role)) {
		throw new AppError("member_role_above_own", `The role ${input.role} is above your own (${held})`, {
			extra: { role: input.role },
		});
	}
	if (await workspaces.memberByEmail(db, caller.workspaceId, email)) {
		throw new AppError("member_exists", "An account with this email is already a member");
	}
	const token = randomToken(32);
	const id = newId();
	await store.insertInvitation(db, {
		id,
		workspace: caller.workspaceId,
		token_hash: sha256Hex(token),
		email,
		role: input.role,
		status: "open",
		invited_by: caller.accountId,
		accepted_by: null,
		expires_at: now + INVITATION_TTL_MS,
		created: now,
		updated: now,
	});
	return { id, token, email, role: input.role };
}

/** The mail that carries an invitation's link to its address (features/mail queues it). */
export async function invitationMail(
	db: Db,
	mail: Mailer,
	caller: AccountCaller,
	made: { id: string; token: string; email: string; role: string },
	input: { language?: "en" | "de" | undefined },
): Promise<NewMail> {
	const inviter = await accountById(db, caller.accountId);
	const workspace = await workspaces.findWorkspace(db, caller.workspaceId);
	const fallback = inviter?.language === "de" ? "de" : "en";
	return {
		kind: "invitation",
		account: caller.accountId,
		to: made.email,
		field: "email",
		language: input.language ?? (await mail.languageFor(db, made.email, fallback)),
		template: "invitation",
		params: { inviter: inviter?.name ?? "", workspace: workspace?.name ?? "", role: made.role },
		link: invitationUrl(mail.origin, made.token),
	};
}

export async function revokeInvitation(db: Db, workspaceId: string, id: string, now: number): Promise<void> {
	if (!(await store.markRevoked(db, workspaceId, id, now))) throw new AppError("not_found");
}

type Found = NonNullable<Awaited<ReturnType<typeof store.findByTokenHash>>>;

/** The invitation behind a token, refused with its own code unless it can still be accepted. */
export async function liveInvitation(db: Db, token: string, now: number): Promise<Found> {
	const row = await store.findByTokenHash(db, sha256Hex(token));
	if (!row) throw new AppError("invitation_invalid", "No invitation matches this link");
	checkLive(row, now);
	await checkInviter(db, row);
	return row;
}

/** The roles an inviter must still hold for an invitation of `role` to be accepted. */
export function inviterRolesFor(role: string): string[] {
	return ROLES.filter((r) => rolePermissions[r].includes("members:write") && workspaces.roleWithin(r, role));
}

const inviterLapsed = () =>
	new AppError(
		"invitation_revoked",
		"Whoever sent this invitation can no longer give its role here (removed, demoted or deleted): ask for a new one",
	);

/** The inviter is still a member who may give the invitation's role, else `invitation_revoked`. */
async function checkInviter(db: Db, row: Found): Promise<void> {
	const held = row.invited_by && (await workspaces.findMembership(db, row.workspace, row.invited_by));
	if (!held || !inviterRolesFor(row.role).includes(held.role)) throw inviterLapsed();
}

function checkLive(row: Found, now: number): Found {
	if (row.status === "revoked") throw new AppError("invitation_revoked", "This invitation was revoked");
	if (row.status === "accepted")
		throw new AppError("invitation_used", "This invitation was already accepted");
	if (row.expires_at <= now) throw new AppError("invitation_expired", "This invitation has expired");
	return row;
}

/** What the invitee sees before accepting: no ids beyond the workspace's, never the token. */
export async function previewInvitation(db: Db, token: string, now: number) {
	const row = await liveInvitation(db, token, now);
	return {
		workspace: { id: row.workspace, name: row.workspace_name },
		email: row.email,
		role: row.role as workspaces.Role,
		invitedBy: row.invited_by_name,
		expiresAt: new Date(row.expires_at).toISOString(),
	};
}

/**
 * Joins `accountId` to the invitation's workspace inside `trx` and spends the invitation. The
 * workspace lock makes the membership check and the insert one step, so joining twice is
 * `member_exists`, never a broken unique index.
 */
export async function acceptIn(
	trx: Transaction<Database>,
	tokenHash: string,
	accountId: string,
	now: number,
): Promise<{ workspace: string; role: workspaces.Role }> {
	const found = await store.findByTokenHash(trx, tokenHash);
	if (!found) throw new AppError("invitation_invalid", "No invitation matches this link");
	if (!(await workspaces.lockWorkspace(trx, found.workspace))) {
		throw new AppError("invitation_invalid", "The workspace no longer exists");
	}
	// Read again under the lock: another acceptance may have committed meanwhile.
	const row = checkLive((await store.findByTokenHash(trx, tokenHash)) ?? found, now);
	await checkInviter(trx, row);
	if (await workspaces.findMembership(trx, row.workspace, accountId)) {
		throw new AppError("member_exists", "You are already a member of this workspace");
	}
	if (!(await store.markAccepted(trx, row.id, accountId, now, inviterRolesFor(row.role)))) {
		const again = await store.findByTokenHash(trx, tokenHash);
		if (again?.status === "open") throw inviterLapsed();
		throw new AppError("invitation_used", "This invitation was accepted meanwhile");
	}
	await workspaces.addMember(trx, { workspace: row.workspace, account: accountId, role: row.role }, now);
	const joined = { invitation: row.id, workspaceName: row.workspace_name, invitedBy: row.invited_by };
	await notifyJoined(trx, { ...joined, workspace: row.workspace, role: row.role }, accountId, now);
	return { workspace: row.workspace, role: row.role as workspaces.Role };
}

export function acceptInvitation(db: Kysely<Database>, token: string, accountId: string, now: number) {
	return db.transaction().execute((trx) => acceptIn(trx, sha256Hex(token), accountId, now));
}
