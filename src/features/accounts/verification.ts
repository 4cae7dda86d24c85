// Verified addresses (issue 41; docs/operations.md "Verified addresses"): with mail on, an account
// asks for a one-time link to its address (256 bits, kept as a SHA-256 hash, good 24 hours); the
// link, opened, marks the address verified. It is spent by the statement that removes it, right
// or wrong, and counts only while the account still has the address it was sent to. The OIDC
// provider then answers `email_verified: true`.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export const VERIFY_TTL_MS = 24 * 60 * 60 * 1000;

/** The console page that takes the link; the token rides in the fragment. */
export function verifyUrl(origin: string, token: string): string {
	return `${origin}/app/verify#${token}`;
}

/** The language mails to the account are written in. */
export function setAccountLanguage(db: Db, accountId: string, language: "en" | "de", now: number) {
	return store.setLanguage(db, accountId, language, now);
}

/** A fresh verify link for the account's current address; earlier lapsed ones are swept. */
export async function issueVerification(
	db: Db,
	accountId: string,
	now: number,
): Promise<{ token: string; email: string } | undefined> {
	const account = await store.findAccount(db, accountId);
	if (!account) return undefined;
	await store.sweepVerifications(db, accountId, now);
	const token = randomToken(32);
	await store.insertVerification(db, {
		token_hash: sha256Hex(token),
		account: accountId,
		email: account.email,
		expires: now + VERIFY_TTL_MS,
		created: now,
	});
	return { token, email: account.email };
}

/** Spends a verify link and marks its address verified; 400 `mail_verification_invalid` otherwise. */
export async function confirmVerification(db: Kysely<Database>, token: string, now: number) {
	return db.transaction().execute(async (trx) => {
		const row = await store.spendVerification(trx, sha256Hex(token));
		const invalid = (why: string) => new AppError("mail_verification_invalid", why);
		if (!row) throw invalid("No verify link matches, or it was used already");
		if (row.expires <= now) throw invalid("The verify link has expired: ask for a new one");
		if (!(await store.markVerified(trx, row.account, row.email, now))) {
			throw invalid("The account's address changed since the link was sent");
		}
		return { email: row.email, verifiedAt: now };
	});
}
