// The SMTP client: nodemailer's SMTP transport to SMTP_URL. `smtp://` must upgrade with STARTTLS
// (a server that does not offer it is refused, never sent to in clear); `smtps://` is TLS from the
// start. Certificates are always verified (SMTP_TLS_CA adds a private CA). Each attempt is judged:
// a 5xx reply is permanent; a 4xx reply, a transport error or a timeout may be retried.
import fs from "node:fs";
import nodemailer from "nodemailer";
import type { Config } from "../../config.ts";

export interface Message {
	from: { name: string; address: string };
	to: string;
	subject: string;
	text: string;
	html: string;
	messageId: string;
	headers: Record<string, string>;
}

export type SendResult =
	| { ok: true; status: number; detail: string }
	| { ok: false; permanent: boolean; status: number; detail: string };

export interface Sender {
	send(message: Message): Promise<SendResult>;
	close(): void;
}

/** Bounds of one attempt, in ms (tests shorten them). */
export interface SenderTimeouts {
	connection: number;
	socket: number;
}

export function createSender(
	config: Pick<Config, "smtpUrl" | "smtpTlsCa" | "domain">,
	timeouts: SenderTimeouts = { connection: 10_000, socket: 30_000 },
): Sender {
	const secure = new URL(config.smtpUrl).protocol === "smtps:";
	const ca = config.smtpTlsCa ? fs.readFileSync(config.smtpTlsCa, "utf8") : undefined;
	const transport = nodemailer.createTransport({
		url: config.smtpUrl,
		secure,
		requireTLS: !secure,
		name: config.domain,
		connectionTimeout: timeouts.connection,
		greetingTimeout: timeouts.connection,
		socketTimeout: timeouts.socket,
		tls: { rejectUnauthorized: true, minVersion: "TLSv1.2", ...(ca ? { ca } : {}) },
	});
	return {
		async send(message) {
			try {
				const info = await transport.sendMail(message);
				const status = Number.parseInt(String(info.response ?? "250"), 10);
				return { ok: true, status: Number.isFinite(status) ? status : 250, detail: oneLine(info.response) };
			} catch (err) {
				return judge(err);
			}
		},
		close() {
			transport.close();
		},
	};
}

function oneLine(value: unknown): string {
	return String(value ?? "")
		.replace(/\s+/g, " ")
		.trim()
		.slice(0, 500);
}

/** A 5xx reply is permanent; anything else (4xx, no connection, TLS refused, timeout) is retried. */
export function judge(err: unknown): SendResult {
	const e = err as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
	const status = typeof e.responseCode === "number" ? e.responseCode : 0;
	const detail = oneLine(e.response ?? `${String(e.code ?? "error")}: ${String(e.message ?? err)}`);
	return { ok: false, permanent: status >= 500 && status < 600, status, detail };
}
