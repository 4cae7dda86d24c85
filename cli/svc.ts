#!/usr/bin/env node
// The `svc` command. `svc serve` runs the server; `svc admin ticket --email <email>` prints a one-time
// URL (fifteen minutes) that creates the account with a passkey, or adds a passkey when the account
// exists, so the first owner can register while ALLOW_SIGNUPS is off. Configuration comes from the
// same environment variables as the server (DATABASE_URL, DATA_DIR, DOMAIN, PORT, …).
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, publicOrigin } from "../src/config.ts";
import { isAppError } from "../src/http/errors.ts";
import { CliError } from "./device/errors.ts";
import { DEVICE_USAGE, deviceCommand } from "./device/index.ts";

// The server's modules (database drivers, Fastify, sharp, …) are imported where a server command
// runs: the device commands start in a fraction of the time and memory without them.
async function usage(): Promise<string> {
	const { DELETE_ACCOUNT_USAGE } = await import("./admin-delete-account.ts");
	const { BACKUP_USAGE } = await import("./admin-backup.ts");
	const { OIDC_USAGE } = await import("./admin-oidc.ts");
	const { ANSWER_SIGNUPS_USAGE } = await import("./admin-answer-signups.ts");
	return `usage:
  svc serve                          run the server (configured by environment variables)
  svc admin ticket --email <email> [--send [--language en|de]]
                                     print a one-time sign-up / add-passkey URL (15 minutes);
                                     --send also mails it (needs SMTP_URL and MAIL_FROM)
${DELETE_ACCOUNT_USAGE}${BACKUP_USAGE}${OIDC_USAGE}${ANSWER_SIGNUPS_USAGE}${DEVICE_USAGE}`;
}

async function adminTicket(args: string[]): Promise<number> {
	const { values } = parseArgs({
		args,
		options: { email: { type: "string" }, send: { type: "boolean" }, language: { type: "string" } },
		strict: true,
	});
	if (!values.email) {
		process.stderr.write(`svc admin ticket: --email is required\n${await usage()}`);
		return 2;
	}
	const language = values.language ?? "en";
	if (language !== "en" && language !== "de") {
		process.stderr.write("svc admin ticket: --language must be en or de\n");
		return 2;
	}
	const config = loadConfig(process.env);
	if (values.send && config.smtpUrl === "") {
		process.stderr.write("svc admin ticket: --send needs SMTP_URL and MAIL_FROM (mail is off)\n");
		return 2;
	}
	const { openStore } = await import("../src/db/index.ts");
	const { issueOperatorTicket, queueTicketMail, relyingParty, ticketUrl } = await import("../src/admin.ts");
	const store = await openStore(config);
	try {
		const issued = await issueOperatorTicket(store.db, values.email, Date.now());
		const what = issued.kind === "signup" ? "creates the account" : "adds a passkey to the account";
		process.stderr.write(
			`One-time link for ${values.email.trim().toLowerCase()} at ${publicOrigin(config)}: ${what}; ` +
				`valid until ${new Date(issued.expires).toISOString()}.\n`,
		);
		const url = ticketUrl(relyingParty(config), issued.ticket);
		if (values.send) {
			const kind = issued.kind === "signup" ? "signup" : "add";
			const id = await queueTicketMail(
				config,
				store.db,
				{ email: values.email, url, kind, language },
				Date.now(),
			);
			process.stderr.write(
				`Mail ${id} queued to ${values.email.trim().toLowerCase()}; the running server sends it.\n`,
			);
		}
		process.stdout.write(`${url}\n`);
		return 0;
	} finally {
		await store.destroy();
	}
}

async function main(argv: string[]): Promise<number> {
	const [command, sub, ...rest] = argv;
	if (command === "serve") {
		await (await import("../src/main.ts")).serve();
		return -1; // keeps running until a signal stops it
	}
	if (command === "admin" && sub === "ticket") return adminTicket(rest);
	if (command === "admin" && sub === "backup") return (await import("./admin-backup.ts")).adminBackup(rest);
	if (command === "admin" && sub === "restore") return (await import("./admin-backup.ts")).adminRestore(rest);
	if (command === "admin" && sub === "oidc-rotate")
		return (await import("./admin-oidc.ts")).adminOidcRotate(rest);
	if (command === "admin" && sub === "answer-signups") {
		return (await import("./admin-answer-signups.ts")).adminAnswerSignups(rest);
	}
	if (command === "admin" && sub === "delete-account") {
		return (await import("./admin-delete-account.ts")).adminDeleteAccount(rest);
	}
	const device = command === undefined ? undefined : deviceCommand(command);
	if (device) return device(argv.slice(1));
	process.stderr.write(await usage());
	return command === undefined || command === "help" || command === "--help" ? 0 : 2;
}

main(process.argv.slice(2)).then(
	(code) => {
		if (code >= 0) process.exitCode = code;
	},
	(err: unknown) => {
		if (err instanceof CliError) {
			process.stderr.write(`svc: ${err.message}\n`);
			process.exitCode = err.exitCode;
			return;
		}
		if (err instanceof ConfigError || isAppError(err)) {
			process.stderr.write(`svc: ${err.message}\n`);
			process.exitCode = 1;
			return;
		}
		if (err instanceof TypeError && (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
			process.exitCode = 2;
			void usage().then((text) => process.stderr.write(`svc: ${err.message}\n${text}`));
			return;
		}
		process.stderr.write(`svc: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
		process.exitCode = 1;
	},
);
