// A real SMTP server on loopback for the mail tests (smtp-server, the receiving end we did not
// write): STARTTLS with a certificate made here with @peculiar/x509 for 127.0.0.1, AUTH PLAIN/LOGIN
// required and refused before TLS (so a mail that arrives proves the client upgraded), every message
// parsed with mailparser. `refuse` makes it answer a recipient with an SMTP error; `stop()` and
// `start()` take it down and bring it back on the same port.
import crypto from "node:crypto";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import * as x509 from "@peculiar/x509";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface Received {
	mail: ParsedMail;
	raw: string;
	/** The envelope's recipients. */
	to: string[];
	/** Whether the session ran under TLS and who signed in. */
	secure: boolean;
	user: string | undefined;
}

export interface SmtpServer {
	port: number;
	/** `smtp://user:pass@127.0.0.1:<port>` */
	url: string;
	/** A PEM file holding the server's certificate (SMTP_TLS_CA). */
	caFile: string;
	received: Received[];
	/** Resolves once `n` messages in all have arrived. */
	waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
	/** Answers RCPT TO for an address with `code message`, or accepts it when undefined. */
	refuse: (address: string) => { code: number; message: string } | undefined;
	stop(): Promise<void>;
	start(): Promise<void>;
	close(): Promise<void>;
}

const USER = "svc";
const PASS = "s3cret-pass";

async function certificate(dir: string): Promise<{ key: string; cert: string; caFile: string }> {
	const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
	const keys = await crypto.webcrypto.subtle.generateKey(alg, true, ["sign", "verify"]);
	x509.cryptoProvider.set(crypto.webcrypto as never);
	const cert = await x509.X509CertificateGenerator.createSelfSigned({
		serialNumber: crypto
			.randomBytes(8)
			.toString("hex")
			.replace(/^[89a-f]/, "1"),
		name: "CN=127.0.0.1",
		notBefore: new Date(Date.now() - 60_000),
		notAfter: new Date(Date.now() + 24 * 3600_000),
		keys: keys as never,
		signingAlgorithm: alg,
		extensions: [
			new x509.BasicConstraintsExtension(true, undefined, true),
			new x509.SubjectAlternativeNameExtension([{ type: "ip", value: "127.0.0.1" }]),
		],
	});
	const pkcs8 = await crypto.webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
	const key = crypto.createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" });
	const caFile = path.join(dir, "smtp-ca.pem");
	fs.writeFileSync(caFile, cert.toString("pem"));
	return { key: key.export({ type: "pkcs8", format: "pem" }).toString(), cert: cert.toString("pem"), caFile };
}

export async function startSmtp(): Promise<SmtpServer> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-smtp-"));
	const { key, cert, caFile } = await certificate(dir);
	const received: Received[] = [];
	const waiters: { n: number; resolve: () => void }[] = [];
	let server: SMTPServer | undefined;
	let port = 0;

	const make = () =>
		new SMTPServer({
			secure: false,
			key,
			cert,
			authMethods: ["PLAIN", "LOGIN"],
			// AUTH only after STARTTLS (smtp-server's default, named here because the tests rely on it).
			allowInsecureAuth: false,
			logger: false,
			onAuth(auth, _session, callback) {
				if (auth.username === USER && auth.password === PASS) return callback(null, { user: USER });
				return callback(new Error("535 5.7.8 authentication failed"));
			},
			onRcptTo(address, _session, callback) {
				const refusal = api.refuse(address.address);
				if (!refusal) return callback();
				const err = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
				return callback(err);
			},
			onData(stream, session, callback) {
				const chunks: Buffer[] = [];
				stream.on("data", (c: Buffer) => chunks.push(c));
				stream.on("end", () => {
					const raw = Buffer.concat(chunks).toString("utf8");
					simpleParser(raw).then(
						(mail) => {
							received.push({
								mail,
								raw,
								to: session.envelope.rcptTo.map((r) => r.address),
								secure: session.secure,
								user: session.user as string | undefined,
							});
							for (const w of waiters.filter((x) => received.length >= x.n)) w.resolve();
							callback();
						},
						(err: Error) => callback(err),
					);
				});
			},
		});

	const listen = () =>
		new Promise<void>((resolve, reject) => {
			const made = make();
			server = made;
			made.once("error", reject);
			made.listen(port, "127.0.0.1", () => {
				port = (made.server.address() as AddressInfo).port;
				resolve();
			});
		});

	const api: SmtpServer = {
		port: 0,
		url: "",
		caFile,
		received,
		refuse: () => undefined,
		waitFor(n, timeoutMs = 10_000) {
			if (received.length >= n) return Promise.resolve(received.slice(0, n));
			return new Promise((resolve, reject) => {
				const timer = setTimeout(
					() => reject(new Error(`${received.length} of ${n} messages arrived`)),
					timeoutMs,
				);
				waiters.push({
					n,
					resolve: () => {
						clearTimeout(timer);
						resolve(received.slice(0, n));
					},
				});
			});
		},
		stop: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
		start: listen,
		async close() {
			await api.stop();
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
	await listen();
	api.port = port;
	api.url = `smtp://${USER}:${PASS}@127.0.0.1:${port}`;
	return api;
}

/** The link a mail carries: the first URL in its text on the server's origin. */
export function linkIn(received: Received, origin: string): string {
	const text = received.mail.text ?? "";
	const found = text.split(/\s+/).find((w) => w.startsWith(origin));
	if (!found) throw new Error(`no ${origin} link in:\n${text}`);
	return found;
}
