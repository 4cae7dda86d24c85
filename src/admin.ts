// What the operator's `svc admin` commands do to a server's data beside the HTTP API, published on
// the wiring floor so the command line reaches no feature's internals (.dependency-cruiser.cjs).
import type { Kysely } from "kysely";
import type { Config } from "./config.ts";
import type { Database } from "./db/schema.ts";

export { deleteAccount } from "./features/accounts/deletion.ts";
export { accountByEmail } from "./features/accounts/service.ts";
export { issueOperatorTicket, relyingParty, ticketUrl } from "./features/passkeys/service.ts";
export { answerSignupCounts } from "./features/requests/service.ts";
export { MAX_KEYS, OIDC_KEYS, rotateKey } from "./features/server/certified-keys.ts";

/**
 * `svc admin ticket --email … --send`: the operator's ticket queued as a mail (docs/operations.md
 * "Outgoing e-mail") instead of only printed. Only with SMTP_URL set; a running server's outbox
 * loop sends it. The mail is counted against the recipient's daily cap like any other. Mail's code
 * is imported here only, as the server imports it only while mail is on.
 */
export async function queueTicketMail(
	config: Config,
	db: Kysely<Database>,
	input: { email: string; url: string; kind: "signup" | "add"; language: "en" | "de" },
	now: number,
): Promise<string> {
	const [{ createMailer }, { loadRootKey }, { systemClock }, { publicOrigin }] = await Promise.all([
		import("./features/mail/service.ts"),
		import("./features/server/root-key.ts"),
		import("./lib/clock.ts"),
		import("./config.ts"),
	]);
	const rootKey = await loadRootKey(db, config.domain, systemClock);
	const mailer = createMailer({ config, origin: publicOrigin(config), rootPrivateKey: rootKey.privateKey });
	return db.transaction().execute((trx) =>
		mailer.queue(
			trx,
			{
				kind: "ticket",
				account: null,
				to: input.email,
				field: "--email",
				language: input.language,
				template: "ticket",
				params: { kind: input.kind },
				link: input.url,
			},
			now,
		),
	);
}
