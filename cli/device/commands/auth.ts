// Signing in from the device (spec "Authentication" rule 2): `svc login` makes a PKCE verifier and
// a state, opens the server's /passkey page, and the page opens `svc://auth?code=…&state=…`, which
// the desktop hands to `svc open` (or the person pastes the code); the code is redeemed with the
// verifier at POST /api/passkeys/token for a session token kept in the device's folder.
import crypto from "node:crypto";
import fs from "node:fs";
import readline from "node:readline";
import {
	AppLinkError,
	type AppLinkOptions,
	type AuthLink,
	parseAppLink,
} from "../../../src/lib/app-links.ts";
import { Api } from "../api.ts";
import { openBrowser } from "../browser.ts";
import type { Command } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { note, printJson, printLine } from "../output.ts";
import {
	type Account,
	chosenServer,
	clearPending,
	dropSession,
	listSessions,
	pendingFile,
	readPending,
	savePending,
	saveSession,
	serverOrigin,
	sessionFor,
} from "../sessions.ts";
import { CREDENTIAL_HELP, CREDENTIAL_OPTIONS, openOfferLink, openPresentLink } from "./credentials.ts";
import { openSigninLink } from "./signin.ts";
import { openToolLink, TOOL_HELP, TOOL_OPTIONS } from "./tools.ts";

/** The page's code is good two minutes and the ceremony five: a sign-in older than this is stale. */
const PENDING_MAX_MS = 10 * 60 * 1000;

const b64u = (bytes: Buffer) => bytes.toString("base64url");

/** Redeems an auth link's code with the waiting sign-in's verifier and keeps the session. */
async function completeSignIn(link: AuthLink): Promise<{ server: string; account: Account }> {
	const pending = readPending();
	if (!pending) {
		throw new CliError(
			"no sign-in is waiting on this device for that answer: run `svc login <server>` first",
		);
	}
	// The state binds the answer to the sign-in this device started (a link from elsewhere is not ours).
	const expected = Buffer.from(pending.state);
	const given = Buffer.from(link.state);
	if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
		throw new CliError(
			"the link's state is not the one of the sign-in this device started; nothing was done",
		);
	}
	if (Date.now() - Date.parse(pending.startedAt) > PENDING_MAX_MS) {
		clearPending();
		throw new CliError("that sign-in is more than ten minutes old: run `svc login` again");
	}
	const api = new Api({ server: pending.server });
	// The code is spent on first presentation, right or wrong: whatever happens, this sign-in is over.
	clearPending();
	const { token, record } = await api.post<{ token: string; record: Account }>("/api/passkeys/token", {
		code: link.code,
		verifier: pending.verifier,
	});
	const account = { id: record.id, email: record.email, name: record.name };
	saveSession({ server: pending.server, token, account, signedInAt: new Date().toISOString() });
	return { server: pending.server, account };
}

function parseLink(text: string, options: AppLinkOptions = {}) {
	try {
		return parseAppLink(text, options);
	} catch (err) {
		if (err instanceof AppLinkError)
			throw new UsageError(`the link is refused: ${err.parameter}: ${err.message}`);
		throw err;
	}
}

/** Waits until `svc open` (another process) completes the sign-in, or the person pastes the code. */
function waitForAnswer(server: string, startedAt: number, timeoutMs: number): Promise<Account> {
	return new Promise((resolve, reject) => {
		let finished = false;
		let rl: readline.Interface | undefined;
		const finish = (err: unknown, account?: Account) => {
			if (finished) return;
			finished = true;
			clearInterval(poll);
			clearTimeout(timer);
			rl?.close();
			if (err) reject(err);
			else resolve(account as Account);
		};
		// `svc open` removes the waiting sign-in before it redeems the code, then keeps the session:
		// in between, the answer is on its way; it is given up on only after a while.
		let answeredAt: number | undefined;
		const poll = setInterval(() => {
			const session = sessionFor(server);
			if (session && Date.parse(session.signedInAt) >= startedAt) {
				finish(undefined, session.account);
			} else if (!fs.existsSync(pendingFile())) {
				answeredAt ??= Date.now();
				if (Date.now() - answeredAt > 30_000) {
					finish(
						new CliError(
							"the sign-in was answered elsewhere but did not complete (see that command's message)",
						),
					);
				}
			}
		}, 250);
		const timer = setTimeout(() => {
			clearPending();
			finish(new CliError(`no answer within ${Math.round(timeoutMs / 1000)} s; run \`svc login\` again`));
		}, timeoutMs);
		if (process.stdin.isTTY) {
			rl = readline.createInterface({ input: process.stdin });
			rl.on("line", (line) => {
				const text = line.trim();
				if (text === "") return;
				const pending = readPending();
				let link: AuthLink;
				try {
					link = text.startsWith("svc:")
						? (parseLink(text) as AuthLink)
						: { kind: "auth" as const, code: text, state: pending?.state ?? "" };
				} catch (err) {
					note(
						`svc: ${err instanceof Error ? err.message : String(err)}; paste the code or the svc://auth link`,
					);
					return;
				}
				completeSignIn(link).then(
					({ account }) => finish(undefined, account),
					(err) => finish(err),
				);
			});
		}
	});
}

const login: Command = {
	name: "svc login",
	summary:
		"Signs this device in to a server with a passkey: opens the server's /passkey page, which hands the result back through svc://auth.",
	help: `<server> [--no-browser] [--no-wait] [--timeout <seconds>]

  <server>          the server's address (example.org, https://example.org, localhost:8080)
  --no-browser      print the page's address instead of opening a browser
  --no-wait         return at once; \`svc open <svc://auth link>\` completes the sign-in
  --timeout <s>     how long to wait for the answer (default 300)`,
	options: {
		"no-browser": { type: "boolean" },
		"no-wait": { type: "boolean" },
		timeout: { type: "string" },
	},
	args: { min: 1, max: 1 },
	async run(ctx) {
		const server = serverOrigin(ctx.positionals[0] as string);
		const timeout = Number(ctx.values.timeout ?? 300);
		if (!Number.isFinite(timeout) || timeout <= 0)
			throw new UsageError("--timeout takes a number of seconds");
		// Is it a svc server at all? Its claim names its domain.
		const claim = await new Api({ server }).get<{ domain: string }>("/api/server");
		const verifier = b64u(crypto.randomBytes(32));
		const challenge = b64u(crypto.createHash("sha256").update(verifier).digest());
		const state = b64u(crypto.randomBytes(16));
		const startedAt = Date.now();
		savePending({ server, verifier, state, startedAt: new Date(startedAt).toISOString() });
		const page = new URL("/passkey", server);
		page.search = new URLSearchParams({ mode: "signin", challenge, state }).toString();
		const opened = ctx.values["no-browser"] ? false : openBrowser(page.toString());
		note(
			`${opened ? "Opened" : "Open"} this page to sign in to ${claim.domain} with your passkey${opened ? "" : ":"}`,
		);
		printLine(page.toString());
		if (ctx.values["no-wait"]) {
			note("When the page hands over the sign-in, run: svc open '<the svc://auth link it shows>'");
			return EXIT.ok;
		}
		note(
			process.stdin.isTTY
				? "Waiting for the page to hand the sign-in over (or paste the code it shows here)…"
				: "Waiting for the page to hand the sign-in over…",
		);
		const account = await waitForAnswer(server, startedAt, timeout * 1000);
		if (ctx.json) printJson({ server, account });
		else printLine(`Signed in to ${server} as ${account.email}`);
		return EXIT.ok;
	},
};

/**
 * Loopback tool origins (`http://localhost`, `http://127.0.0.1`) are tools only for a server in
 * development (DOMAIN=localhost), which is a server this device reaches on a loopback address: the
 * console decides the same way from its own address.
 */
function loopbackServer(flag: string | undefined): boolean {
	const server = chosenServer(flag);
	return server !== undefined && /^(localhost|127\.0\.0\.1|\[::1\])$/.test(new URL(server).hostname);
}

const open: Command = {
	name: "svc open",
	summary:
		"Opens a svc:// link as the owner's app: svc://auth completes a sign-in this device started; svc://connect connects a tool and svc://p turns its proposal into a share, after showing its address, its claimed name and the check code; svc://a accepts an attestation offer with an identity on this device; svc://present presents a held credential to a service; svc://signin opens a service's sign-in on your server.",
	help: `<svc://link> [--yes] [--allow-revoke] [--allow-hand-over] [--no-browser]
           [--identity <ref>] [--credential <id>] [--withhold <claims>]

${TOOL_HELP}
${CREDENTIAL_HELP}`,
	options: { ...TOOL_OPTIONS, ...CREDENTIAL_OPTIONS },
	args: { min: 1, max: 1 },
	async run(ctx) {
		const text = ctx.positionals[0] as string;
		const link = parseLink(text, {
			allowLoopback: loopbackServer(ctx.values.server as string | undefined),
		});
		switch (link.kind) {
			case "auth": {
				const { server, account } = await completeSignIn(link);
				if (ctx.json) printJson({ kind: "auth", server, account });
				else printLine(`Signed in to ${server} as ${account.email}`);
				return EXIT.ok;
			}
			case "connect":
			case "proposal":
				return openToolLink(ctx, link, text);
			case "offer":
				return openOfferLink(ctx, link, text);
			case "present":
				return openPresentLink(ctx, link, text);
			case "signin":
				return openSigninLink(ctx, link);
		}
	},
};

const logout: Command = {
	name: "svc logout",
	summary: "Ends the session on the server and forgets it on this device.",
	help: "[--server <address>]",
	async run(ctx) {
		const session = ctx.session();
		try {
			await ctx.api().post("/api/auth/logout");
		} catch (err) {
			// A session the server already ended is still forgotten here.
			if (!(err instanceof CliError) || err.exitCode !== EXIT.signedOut) throw err;
		}
		dropSession(session.server);
		if (ctx.json) printJson({ server: session.server, signedOut: true });
		else printLine(`Signed out of ${session.server}`);
		return EXIT.ok;
	},
};

interface Me {
	record: Account;
	workspace: string;
	workspaces: { id: string; name: string; role: string; personal: boolean }[];
}

const whoami: Command = {
	name: "svc whoami",
	summary: "Shows the account signed in to the server and its workspaces (the active one marked *).",
	help: "[--server <address>]",
	async run(ctx) {
		const me = await ctx.api().get<Me>("/api/auth/me");
		const server = ctx.server();
		if (ctx.json) {
			printJson({ server, ...me, sessions: listSessions().sessions.map((s) => s.server) });
			return EXIT.ok;
		}
		printLine(`${me.record.email} (${me.record.name}) at ${server}`);
		for (const w of me.workspaces) {
			printLine(`${w.id === me.workspace ? "*" : " "} ${w.id}  ${w.name}  (${w.role})`);
		}
		return EXIT.ok;
	},
};

export const authCommands = { login, open, logout, whoami };
