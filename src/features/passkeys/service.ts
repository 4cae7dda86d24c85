// The rules of passkey sign-in that outlive one ceremony: the one-time code and its redemption,
// tickets, and removing a passkey. The ceremonies themselves are in login.ts and registration.ts.
import type { Kysely, Transaction } from "kysely";
import { type Config, publicOrigin } from "../../config.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { verifierMatches } from "../../lib/oauth.ts";
import {
	type AccountRecord,
	accountByEmail,
	accountById,
	accountRecord,
	createSession,
	lockAccount,
} from "../accounts/service.ts";
import { checkEmail, type RelyingParty } from "./checks.ts";
import * as store from "./store.ts";

export { checkOrigin } from "./checks.ts";
export { beginConfirmation, finishConfirmation } from "./confirm.ts";
export { CODE_TTL_MS, mintCode, type PasskeyContext } from "./context.ts";
export { BeginResponse, LoginFinishBody } from "./schemas.ts";

export const TICKET_TTL_MS = 15 * 60 * 1000;

export function relyingParty(config: Pick<Config, "domain" | "port">): RelyingParty {
	return { id: config.domain, name: config.domain, origin: publicOrigin(config) };
}

/**
 * `POST /api/passkeys/token`: the code is spent on first presentation, right or wrong; it must be
 * younger than two minutes and the verifier's S256 must equal the challenge it is bound to.
 */
export async function redeemCode(
	db: Kysely<Database>,
	input: { code: string; verifier: string },
	now: number,
): Promise<{ token: string; record: AccountRecord }> {
	const account = await spendLoginCode(db, input, now);
	const { token } = await createSession(db, account.id, now);
	return { token, record: accountRecord(account) };
}

/**
 * Spends a passkey code (right or wrong) and answers whose it was: the session redemption above,
 * and the OpenID Connect sign-in page, which signs a person in without opening a session.
 */
export async function spendLoginCode(
	db: Kysely<Database>,
	input: { code: string; verifier: string },
	now: number,
) {
	const spent = await store.spendCode(db, sha256Hex(input.code));
	if (!spent) throw new AppError("passkey_grant_invalid", "The code is unknown or already used");
	if (spent.expires <= now) throw new AppError("passkey_grant_invalid", "The code has expired");
	if (!verifierMatches(spent.pkce_challenge, input.verifier)) {
		throw new AppError("passkey_grant_invalid", "The verifier does not match the code's challenge");
	}
	const account = await accountById(db, spent.account);
	if (!account) throw new AppError("passkey_grant_invalid", "The account no longer exists");
	return account;
}

export interface IssuedTicket {
	ticket: string;
	expires: number;
	/** `add`: a passkey for an existing account; `signup`: creates the account named by email. */
	kind: "add" | "signup";
}

/** A ticket adding a passkey to `accountId` (from a signed-in user or the operator). */
export async function issueTicket(
	db: Kysely<Database>,
	target: { accountId: string } | { email: string },
	now: number,
): Promise<IssuedTicket> {
	const ticket = randomToken(32);
	const expires = now + TICKET_TTL_MS;
	await store.sweepTickets(db, now);
	const base = { hash: sha256Hex(ticket), created: now, expires };
	if ("accountId" in target) {
		await store.insertTicket(db, { ...base, account: target.accountId, email: null });
		return { ticket, expires, kind: "add" };
	}
	await store.insertTicket(db, { ...base, account: null, email: target.email });
	return { ticket, expires, kind: "signup" };
}

/** The operator's ticket (`svc admin ticket`): add-passkey if the email has an account, else signup. */
export async function issueOperatorTicket(db: Kysely<Database>, email: string, now: number) {
	const normalized = checkEmail(email);
	const account = await accountByEmail(db, normalized);
	return issueTicket(db, account ? { accountId: account.id } : { email: normalized }, now);
}

export function ticketUrl(rp: RelyingParty, ticket: string): string {
	const url = new URL("/passkey", rp.origin);
	url.searchParams.set("mode", "signup");
	url.searchParams.set("ticket", ticket);
	return url.toString();
}

/**
 * Removes one of the caller's passkeys; another account's answers like a missing one (404), and the
 * last one stays (409 `passkey_last`). The account row lock makes two removals take turns, so two
 * concurrent removals of an account's last two passkeys cannot both succeed.
 */
export async function removePasskey(
	db: Kysely<Database>,
	accountId: string,
	passkeyId: string,
): Promise<void> {
	await db.transaction().execute(async (trx) => {
		// Serialises passkey changes of the account: two removals of its last two take turns.
		await lockAccount(trx, accountId);
		const owner = await store.passkeyOwner(trx, passkeyId);
		if (owner?.account !== accountId) throw new AppError("not_found", "No such passkey");
		if ((await store.countPasskeys(trx, accountId)) <= 1) {
			throw new AppError("passkey_last", "Add another passkey before removing this one");
		}
		await store.deletePasskey(trx, passkeyId, accountId);
	});
}

/** What a live ticket is for, so the page can say so; undefined when unknown, spent or expired. */
export async function describeTicket(
	db: Kysely<Database>,
	ticket: string,
	now: number,
): Promise<{ kind: IssuedTicket["kind"]; email: string } | undefined> {
	const row = await store.findLiveTicket(db, sha256Hex(ticket), now);
	if (!row) return undefined;
	if (row.email) return { kind: "signup", email: row.email };
	const account = row.account ? await accountById(db, row.account) : undefined;
	return account ? { kind: "add", email: account.email } : undefined;
}

/** An account being deleted (accounts/deletion.ts): its open ceremonies, in that transaction. */
export async function endCeremoniesOf(db: Kysely<Database> | Transaction<Database>, accountId: string) {
	await store.deleteAccountCeremonies(db, accountId);
}
