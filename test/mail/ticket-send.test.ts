// `svc admin ticket --email … --send` (issue 41): the operator's ticket is queued as a mail and a
// running server's outbox sends it (through a real SMTP server, read back with mailparser), the
// link in the mail the same one-time URL the command prints; German with `--language de`. Without
// SMTP_URL, `--send` is refused (exit 2) and nothing is issued.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { buildApp } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import { testEnv } from "../helpers/app.ts";
import { entryArgs, REPO_ROOT } from "../helpers/root.ts";
import { linkIn, type SmtpServer, startSmtp } from "../helpers/smtp.ts";

let smtp: SmtpServer;
let config: Config;
let dispose: () => Promise<void>;

before(async () => {
	smtp = await startSmtp();
	const env = testEnv({ smtpUrl: smtp.url, mailFrom: "svc@localhost", smtpTlsCa: smtp.caFile });
	config = env.config;
	dispose = env.dispose;
});
after(async () => {
	await dispose();
	await smtp.close();
});

function cli(args: string[], mail = true): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const child = spawn(process.execPath, [...entryArgs("cli/svc.ts"), ...args], {
		cwd: REPO_ROOT,
		env: {
			...process.env,
			DATA_DIR: config.dataDir,
			DATABASE_URL: config.databaseUrl,
			DATABASE_SCHEMA: config.databaseSchema,
			DOMAIN: config.domain,
			PORT: String(config.port),
			LOG_LEVEL: "silent",
			SMTP_URL: mail ? config.smtpUrl : "",
			MAIL_FROM: mail ? config.mailFrom : "",
			SMTP_TLS_CA: config.smtpTlsCa,
		},
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr.on("data", (d: Buffer) => {
		stderr += d.toString();
	});
	return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

test("--send queues the ticket as a mail the server sends, in English and in German", async () => {
	const en = await cli(["admin", "ticket", "--email", "first@example.org", "--send"]);
	assert.equal(en.code, 0, en.stderr);
	assert.match(en.stderr, /Mail \w+ queued to first@example\.org/);
	const de = await cli(["admin", "ticket", "--email", "zweite@example.org", "--send", "--language", "de"]);
	assert.equal(de.code, 0, de.stderr);

	const app = await buildApp(config);
	try {
		await app.background.drainOnce(app.clock.now());
		const got = await smtp.waitFor(2);
		const first = got.find((m) => m.to[0] === "first@example.org");
		const second = got.find((m) => m.to[0] === "zweite@example.org");
		assert.ok(first && second);
		assert.equal(first.mail.subject, "Your sign-in link for localhost");
		assert.equal(linkIn(first, "http://localhost:8080"), en.stdout.trim());
		assert.match(first.mail.text ?? "", /create your account with a passkey/);
		assert.equal(second.mail.subject, "Ihr Anmeldelink für localhost");
		assert.equal(linkIn(second, "http://localhost:8080"), de.stdout.trim());
		assert.equal(first.mail.from?.value[0]?.address, "svc@localhost");
	} finally {
		await app.close();
	}
});

test("--send without SMTP_URL is refused and issues nothing; a bad --language too", async () => {
	const off = await cli(["admin", "ticket", "--email", "third@example.org", "--send"], false);
	assert.equal(off.code, 2);
	assert.match(off.stderr, /needs SMTP_URL/);
	assert.equal(off.stdout, "");
	const bad = await cli(["admin", "ticket", "--email", "third@example.org", "--send", "--language", "fr"]);
	assert.equal(bad.code, 2);
	assert.equal(bad.stdout, "");
});
