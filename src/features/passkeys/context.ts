// What every ceremony shares, kept apart from service.ts (the feature's public face, which
// re-exports it) so the ceremonies never import the face that re-exports them.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import type { Mailer } from "../mail/service.ts";
import type { RelyingParty } from "./checks.ts";
import * as store from "./store.ts";

export const CODE_TTL_MS = 2 * 60 * 1000;

/** What a ceremony needs: the database, who we are, the signup policy and the time. */
export interface PasskeyContext {
	db: Kysely<Database>;
	rp: RelyingParty;
	allowSignups: boolean;
	/** ALLOW_ANSWER_SIGNUPS: the operator lets requests admit answer-only sign-ups. */
	allowAnswerSignups: boolean;
	/** Outgoing mail when on: a sign-up is sent a verify link. */
	mail?: Mailer | undefined;
	now: number;
}

/** Mints the one-time code a finished ceremony hands to the app, bound to its PKCE challenge. */
export async function mintCode(
	db: Kysely<Database> | Transaction<Database>,
	accountId: string,
	pkceChallenge: string,
	now: number,
): Promise<string> {
	const code = randomToken(32);
	await store.sweepCodes(db, now);
	await store.insertCode(db, {
		hash: sha256Hex(code),
		account: accountId,
		pkce_challenge: pkceChallenge,
		created: now,
		expires: now + CODE_TTL_MS,
	});
	return code;
}
