// `svc admin ticket --email … --send`: the operator's ticket queued as a mail (docs/operations.md
// "Outgoing e-mail") instead of only printed. Only with SMTP_URL set; a running server's outbox
// loop sends it. The mail is counted against the recipient's daily cap like any other.

import type { Kysely } from "kysely";
import type { Config } from "../src/config.ts";
import type { Database } from "../src/db/schema.ts";

export async function queueTicketMail(
	config: Config,
	db: Kysely<Database>,
	input: { email: string; url: string; kind: "signup" | "add"; language: "en" | "de" },
	now: number,
): Promise<string> {
	const [{ createMailer }, { loadRootKey }, { systemClock }, { publicOrigin }] = await Promise.all([
		import("../src/features/mail/service.ts"),
		import("../src/features/server/root-key.ts"),
		import("../src/lib/clock.ts"),
		import("../src/config.ts"),
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
