// Outgoing e-mail (issue 41; docs/operations.md "Outgoing e-mail"), the module other features use.
// Loaded only when SMTP_URL is set (src/app.ts imports it with `await import()`): the other features
// hold `app.mail` (a Mailer, or undefined with mail off) and import its types alone.
//
// A mail is a row of the leased `mail_outbox`, queued in the transaction of what it is about and
// counted against two per-day caps first: per sending account (MAIL_LIMIT_ACCOUNT) and per
// recipient address from the whole server (MAIL_LIMIT_RECIPIENT), each taken with a conditional
// upsert so two nodes cannot both take the last one. The one link a mail carries is kept sealed
// under a key derived from the root key, and cleared once the mail is finished. The worker
// (worker.ts) sends what is due.
import type { Kysely, Transaction } from "kysely";
import type { Config } from "../../config.ts";
import { queuedNow } from "../../db/outbox.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import type { Lang } from "../../http/language.ts";
import { newId, sha256Hex } from "../../lib/crypto.ts";
import { deriveKey, seal, unseal } from "../../lib/seal.ts";
import { accountByEmail, accountById, issueVerification, verifyUrl } from "../accounts/service.ts";
import { checkAddress } from "./addresses.ts";
import * as store from "./store.ts";
import type { Template } from "./templates.ts";

export { checkAddress, checkDisplayName } from "./addresses.ts";
export type { Template } from "./templates.ts";

type Db = Kysely<Database> | Transaction<Database>;

export const DAY_MS = 24 * 60 * 60 * 1000;

export type MailKind = "invitation" | "request_link" | "notice" | "ticket" | "verify";

export interface NewMail {
	kind: MailKind;
	/** The sending account, counted against its cap; null for the operator's ticket. */
	account: string | null;
	/** The recipient's address as typed; checked here (`mail_address_invalid` naming `field`). */
	to: string;
	/** The request field `to` came from, named in a refusal. */
	field?: string;
	language: Lang;
	template: Template;
	/** What the template names; never a vault value. */
	params: Record<string, string>;
	/** The one link the mail carries (kept sealed until the mail is finished). */
	link: string;
}

export interface Mailer {
	/** `https://<DOMAIN>` (or the development origin): where links in mails point. */
	readonly origin: string;
	/**
	 * Queues a mail in `db` (the caller's transaction), counted against the caps: 429
	 * `mail_rate_limited` (nothing counted, nothing queued) when either is reached. Answers its id.
	 */
	queue(db: Db, mail: NewMail, now: number): Promise<string>;
	/** The language of the account with `address` when it chose one, else `fallback`. */
	languageFor(db: Db, address: string, fallback: Lang): Promise<Lang>;
	/** Queues a verify link to the account's address. */
	sendVerification(db: Db, accountId: string, language: Lang | undefined, now: number): Promise<string>;
	/** The link of a queued mail (the worker). */
	linkOf(sealed: string | null): string;
}

export interface MailerDeps {
	config: Pick<Config, "mailLimitAccount" | "mailLimitRecipient">;
	origin: string;
	/** The root key's private key, from which the sealing key is derived. */
	rootPrivateKey: { export(o: { type: "pkcs8"; format: "der" }): Buffer };
}

const rateLimited = (which: "account" | "recipient", now: number) => {
	const retry = Math.ceil((DAY_MS - (now % DAY_MS)) / 1000);
	return new AppError(
		"mail_rate_limited",
		which === "account"
			? "This account has sent as many mails as it may today"
			: "This address has been sent as many mails as it may get today",
		{ extra: { limit: which }, headers: { "retry-after": String(retry) } },
	);
};

export function asLang(value: string | null | undefined): Lang | undefined {
	return value === "en" || value === "de" ? value : undefined;
}

export function createMailer(deps: MailerDeps): Mailer {
	const key = deriveKey(deps.rootPrivateKey.export({ type: "pkcs8", format: "der" }), "svc mail link v1");
	const mailer: Mailer = {
		origin: deps.origin,
		async queue(db, mail, now) {
			const to = checkAddress(mail.field ?? "to", mail.to);
			const day = Math.floor(now / DAY_MS);
			const accountScope = mail.account ? `account:${mail.account}` : undefined;
			if (accountScope && !(await store.takeOne(db, accountScope, day, deps.config.mailLimitAccount))) {
				throw rateLimited("account", now);
			}
			if (!(await store.takeOne(db, `to:${sha256Hex(to)}`, day, deps.config.mailLimitRecipient))) {
				// Give the account's one back, so a refusal counts nothing.
				if (accountScope) await store.giveBack(db, accountScope, day);
				throw rateLimited("recipient", now);
			}
			const id = newId();
			await store.insertMail(db, {
				id,
				kind: mail.kind,
				account: mail.account,
				recipient: to,
				language: mail.language,
				template: mail.template,
				params: JSON.stringify(mail.params),
				secret: seal(key, mail.link),
				message_id: `<${id}.${newId()}@${new URL(deps.origin).hostname}>`,
				...queuedNow(now),
			});
			return id;
		},
		async languageFor(db, address, fallback) {
			const account = await accountByEmail(db, checkAddress("to", address));
			return asLang(account?.language) ?? fallback;
		},
		async sendVerification(db, accountId, language, now) {
			const issued = await issueVerification(db, accountId, now);
			if (!issued) throw new AppError("not_found", "No such account");
			const account = await accountById(db, accountId);
			return mailer.queue(
				db,
				{
					kind: "verify",
					account: accountId,
					to: issued.email,
					language: asLang(account?.language) ?? language ?? "en",
					template: "verify",
					params: {},
					link: verifyUrl(deps.origin, issued.token),
				},
				now,
			);
		},
		linkOf(sealed) {
			return sealed === null ? "" : unseal(key, sealed);
		},
	};
	return mailer;
}
