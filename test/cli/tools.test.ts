// The built `svc` as the owner's app for a connected tool, against a real server process: a tool
// played by a small HTTP server on 127.0.0.1 (its own origin, while the server is
// http://localhost:<port>) opens `svc://connect` and `svc://p` links; `svc open` shows the check
// code, which must equal the one the tool computes on its own, and hands the answer back to the
// tool's redirect address, where the tool redeems its code at /api/connect/token and reads its
// shares. Also what the first CLI tests left out: a password-gated share read, `vault upload
// --replace`, SVC_SERVER, --workspace and SVC_WORKSPACE. The owner signs up through `svc login`
// with a software authenticator (test/helpers/webauthn.ts) instead of a browser.
//
// Runs once, not per database: the `svc` command line, a client of the server over HTTP; what it asks of the server runs on both databases in the API's own files.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type TestEnv, testEnv } from "../helpers/app.ts";
import { freePort } from "../helpers/browser.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";
import { ensureCliBuilt, SVC_BIN, type Svc, svc } from "../helpers/svc-cli.ts";
import { SoftAuthenticator } from "../helpers/webauthn.ts";

const EMAIL = "owner@example.org";
const b64u = (b: Buffer) => b.toString("base64url");
const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest();

/** The check code as the tool computes it (docs/api.md): upper-case hex of SHA-256(challenge)[0..3]. */
const toolCheckCode = (challenge: string) => {
	const hex = sha256(challenge).subarray(0, 3).toString("hex").toUpperCase();
	return `${hex.slice(0, 3)}-${hex.slice(3)}`;
};

interface ToolConnection {
	id: string;
	clientId: string;
	clientName: string;
	allowRevoke: boolean;
	allowHandOver: boolean;
	links: {
		id: string;
		ref: string | null;
		label: string;
		status: string;
		handedOver: boolean;
		url?: string;
	}[];
}

/**
 * The tool: a PKCE pair per request it starts, a return address `/back` whose backend checks the
 * state, redeems the code at the server the answer names and reads its connection with the token.
 */
class Tool {
	origin = "";
	private server?: http.Server;
	private started = new Map<string, string>(); // state -> verifier
	token?: string;

	async start(): Promise<void> {
		const port = await freePort();
		this.server = http.createServer((req, res) => {
			void this.back(new URL(req.url ?? "/", this.origin)).then(
				(answer) => {
					res.writeHead(answer.status, { "content-type": "application/json" });
					res.end(JSON.stringify(answer.body));
				},
				(err: unknown) => {
					res.writeHead(500, { "content-type": "text/plain" });
					res.end(String(err));
				},
			);
		});
		await new Promise<void>((resolve) => this.server?.listen(port, "127.0.0.1", resolve));
		this.origin = `http://127.0.0.1:${port}`;
	}

	close(): Promise<void> {
		return new Promise((resolve) => {
			this.server?.closeAllConnections();
			this.server?.close(() => resolve());
		});
	}

	get redirect(): string {
		return `${this.origin}/back`;
	}

	/** A new request: its state, verifier and challenge, and the check code the tool shows. */
	begin(): { state: string; verifier: string; challenge: string; checkCode: string } {
		const verifier = b64u(crypto.randomBytes(32));
		const challenge = b64u(sha256(verifier));
		const state = b64u(crypto.randomBytes(12));
		this.started.set(state, verifier);
		return { state, verifier, challenge, checkCode: toolCheckCode(challenge) };
	}

	/** What the tool's return address does when the app opens it. */
	private async back(url: URL): Promise<{ status: number; body: unknown }> {
		if (url.pathname !== "/back") return { status: 404, body: { error: "no such page" } };
		const q = url.searchParams;
		const verifier = this.started.get(q.get("state") ?? "");
		if (!verifier) return { status: 400, body: { error: "unknown state" } };
		if (q.get("status") === "declined") return { status: 200, body: { declined: true } };
		const redeemed = await fetch(`${q.get("server")}/api/connect/token`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ code: q.get("code"), verifier, redirectUri: this.redirect }),
		});
		const body = (await redeemed.json()) as { token?: string };
		if (redeemed.status !== 200) return { status: redeemed.status, body };
		this.token = body.token;
		return { status: 200, body: { ...body, connection: await this.read(q.get("server") as string) } };
	}

	/** GET /api/connection with the token, as the tool's backend does. */
	async read(server: string): Promise<ToolConnection> {
		const res = await fetch(`${server}/api/connection`, {
			headers: { "x-svc-connection": this.token ?? "" },
		});
		assert.equal(res.status, 200, await res.clone().text());
		return (await res.json()) as ToolConnection;
	}

	/** The tool's page asking for a polled answer, from its own origin. */
	poll(server: string, verifier: string): Promise<Response> {
		return fetch(`${server}/api/connect/token`, {
			method: "POST",
			headers: { "content-type": "application/json", origin: this.origin },
			body: JSON.stringify({ verifier, redirectUri: this.redirect }),
		});
	}
}

const link = (kind: string, params: Record<string, string>) =>
	`svc://${kind}?${Object.entries(params)
		.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
		.join("&")}`;

describe("svc open for a connected tool", () => {
	let env: TestEnv;
	let server: ServerProcess;
	let origin: string;
	let cli: Svc;
	let tool: Tool;
	let folder: string;

	/** The session token the device keeps (to look at the server as the owner). */
	const sessionToken = () =>
		(
			JSON.parse(fs.readFileSync(path.join(cli.configDir, "sessions.json"), "utf8")) as {
				servers: Record<string, { token: string }>;
			}
		).servers[origin]?.token as string;

	const asOwner = async <T>(apiPath: string): Promise<T> => {
		const res = await fetch(`${origin}${apiPath}`, {
			headers: { authorization: `Bearer ${sessionToken()}` },
		});
		assert.equal(res.status, 200, await res.clone().text());
		return (await res.json()) as T;
	};

	before(async () => {
		ensureCliBuilt();
		env = testEnv();
		const port = await freePort();
		server = await startServer({
			DATA_DIR: env.config.dataDir,
			DATABASE_URL: env.config.databaseUrl,
			DATABASE_SCHEMA: env.config.databaseSchema,
			DOMAIN: "localhost",
			PORT: String(port),
			ALLOW_SIGNUPS: "true",
		});
		origin = `http://localhost:${port}`;
		cli = svc(fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-")));
		folder = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-files-"));
		tool = new Tool();
		await tool.start();

		// `svc login --no-wait` prints the /passkey page; the page's work (a signup with the
		// challenge) is done by a software authenticator, and its svc://auth answer goes to `svc open`.
		const login = await cli.run(["login", origin, "--no-browser", "--no-wait"]);
		assert.equal(login.code, 0, login.stderr);
		const page = new URL(login.stdout.trim());
		const challenge = page.searchParams.get("challenge") as string;
		const state = page.searchParams.get("state") as string;
		const authenticator = new SoftAuthenticator(origin);
		const post = async (p: string, body: unknown) => {
			const res = await fetch(`${origin}${p}`, {
				method: "POST",
				headers: { "content-type": "application/json", origin },
				body: JSON.stringify(body),
			});
			assert.equal(res.status, 200, `${p}: ${await res.clone().text()}`);
			return res.json() as Promise<unknown>;
		};
		const begun = (await post("/api/passkeys/register/begin", { email: EMAIL, challenge })) as {
			session: string;
			options: Parameters<SoftAuthenticator["create"]>[0];
		};
		const { response } = authenticator.create(begun.options);
		const finished = (await post("/api/passkeys/register/finish", {
			session: begun.session,
			credential: response,
		})) as { code: string };
		const opened = await cli.run(["open", `svc://auth?code=${finished.code}&state=${state}`]);
		assert.equal(opened.code, 0, opened.stderr);
		assert.equal(opened.stdout, `Signed in to ${origin} as ${EMAIL}\n`);
	});

	after(async () => {
		await tool?.close();
		await server?.stop();
		await env?.dispose();
		if (cli) fs.rmSync(cli.configDir, { recursive: true, force: true });
		if (folder) fs.rmSync(folder, { recursive: true, force: true });
	});

	test("svc://connect: the check code matches the tool's, consent is asked for, the tool redeems its code", async () => {
		const asked = tool.begin();
		const connect = link("connect", {
			client: tool.origin,
			name: "Flat finder",
			redirect: tool.redirect,
			state: asked.state,
			challenge: asked.challenge,
		});

		// Off a terminal, nobody can be asked: refused (exit 2) after showing what it would consent to.
		const refused = await cli.run(["open", connect]);
		assert.equal(refused.code, 2, refused.stderr);
		assert.match(refused.stderr, new RegExp(`address +${tool.origin}\\n`));
		assert.match(refused.stderr, /calls itself “Flat finder” \(the tool's own claim/);
		assert.match(refused.stderr, new RegExp(`check code +${asked.checkCode} `));
		assert.match(refused.stderr, /svc: not on a terminal, so nobody can be asked: .* pass --yes/);
		assert.equal(refused.stdout, "");
		const none = await asOwner<{ items: unknown[] }>("/api/collections/connections/records");
		assert.equal(none.items.length, 0, "nothing was connected");

		const done = await cli.json<{
			kind: string;
			status: string;
			checkCode: string;
			connection: string;
			address: string;
			server: string;
			opened: boolean;
		}>(["open", connect, "--yes", "--allow-revoke"]);
		assert.equal(done.checkCode, asked.checkCode);
		assert.deepEqual(
			[done.kind, done.status, done.server, done.opened],
			["connect", "connected", origin, false],
		);
		const address = new URL(done.address);
		assert.equal(`${address.origin}${address.pathname}`, tool.redirect);
		assert.deepEqual(
			[...address.searchParams.keys()].sort(),
			["code", "server", "state", "status"],
			"the answer carries what the spec's App links names",
		);
		assert.equal(address.searchParams.get("state"), asked.state);
		assert.equal(address.searchParams.get("status"), "connected");
		assert.equal(address.searchParams.get("server"), origin);

		// The browser opening the address: the tool's backend redeems the code and reads its connection.
		const back = await fetch(done.address);
		assert.equal(back.status, 200);
		const answer = (await back.json()) as {
			token: string;
			connection: ToolConnection;
		};
		assert.match(answer.token, /^[A-Za-z0-9_-]{43}$/);
		assert.deepEqual(
			[
				answer.connection.id,
				answer.connection.clientId,
				answer.connection.clientName,
				answer.connection.allowRevoke,
				answer.connection.allowHandOver,
				answer.connection.links,
			],
			[done.connection, tool.origin, "Flat finder", true, false, []],
		);
		// The code works once.
		const again = await fetch(done.address);
		assert.equal(again.status, 400);
		assert.equal(((await again.json()) as { code: string }).code, "connection_grant_invalid");
	});

	test("on a terminal the person is asked: n declines (the tool is told), y connects", async () => {
		/** `svc open <link>` on a pseudo-terminal (util-linux `script`), answering the question. */
		const onTerminal = (args: string[], reply: string) =>
			new Promise<{ code: number | null; out: string }>((resolve) => {
				const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a}'`).join(" ");
				const child = spawn("script", ["-qec", command, "/dev/null"], {
					env: {
						...process.env,
						NODE_OPTIONS: "",
						DISPLAY: "",
						WAYLAND_DISPLAY: "",
						SVC_CONFIG_DIR: cli.configDir,
					},
				});
				let out = "";
				let replied = false;
				child.stdout.on("data", (d: Buffer) => {
					out += d.toString();
					if (!replied && out.includes("[y/N] ")) {
						replied = true;
						child.stdin.write(`${reply}\n`);
					}
				});
				child.on("close", (code) => resolve({ code, out: out.replace(/\r\n/g, "\n") }));
			});
		const returned = (out: string) =>
			out.split("\n").find((l) => l.startsWith(`${tool.redirect}?`)) as string;

		const declined = tool.begin();
		const asked = link("connect", {
			client: tool.origin,
			name: "Second tool",
			redirect: tool.redirect,
			state: declined.state,
			challenge: declined.challenge,
		});
		const no = await onTerminal(["open", asked], "n");
		assert.equal(no.code, 0, no.out);
		assert.match(no.out, new RegExp(`check code +${declined.checkCode} `));
		assert.match(no.out, /Connect this tool\? \[y\/N\] n\n/);
		assert.match(no.out, /Declined\. Nothing was shared\./);
		const address = new URL(returned(no.out));
		assert.deepEqual(Object.fromEntries(address.searchParams), {
			state: declined.state,
			server: origin,
			status: "declined",
		});
		assert.deepEqual(await (await fetch(address)).json(), { declined: true });

		const accepted = tool.begin();
		const yes = await onTerminal(
			[
				"open",
				link("connect", {
					client: tool.origin,
					name: "Flat finder",
					redirect: tool.redirect,
					state: accepted.state,
					challenge: accepted.challenge,
				}),
			],
			"y",
		);
		assert.equal(yes.code, 0, yes.out);
		assert.match(yes.out, new RegExp(`check code +${accepted.checkCode} `));
		// Already connected: it says until when, and connecting again renews it.
		assert.match(yes.out, /connected until \d{4}-\d\d-\d\d/);
		const back = await fetch(returned(yes.out));
		assert.equal(back.status, 200);
		const { connection } = (await back.json()) as { connection: ToolConnection };
		// The permission given before is kept when not given again.
		assert.deepEqual([connection.clientName, connection.allowRevoke], ["Flat finder", true]);
	});

	test("svc://p: the proposal's keys matched to the vault, a share handed over to the connected tool", async () => {
		await cli.json(["vault", "set", "full_name", "Ada Lovelace", "--name", "Full name"]);
		await cli.json(["vault", "set", "phone", "+44 20 7946 0000"]);
		const asked = tool.begin();
		const proposal = link("p", {
			label: "Flat application",
			keys: "full_name,phone,email",
			from: "Flat finder",
			days: "30",
			ref: "application-17",
			client: tool.origin,
			redirect: tool.redirect,
			state: asked.state,
			challenge: asked.challenge,
			links_reason: "to send it to the landlord",
		});
		const human = await cli.run(["open", proposal, "--yes", "--allow-hand-over"]);
		assert.equal(human.code, 0, human.stderr);
		assert.match(human.stderr, new RegExp(`check code +${asked.checkCode} `));
		assert.match(human.stderr, /entries +Full name \(full_name\), phone\n/);
		assert.match(human.stderr, /not in this workspace, left out: email\n/);
		assert.match(human.stderr, /expires +in 30 days\n/);
		assert.match(
			human.stderr,
			/may receive the shares its proposals became: yes \(the tool says why: “to send it to the landlord”\)/,
		);
		assert.match(human.stderr, /The tool will receive the share's address\./);
		// stdout is the answer alone: the return address.
		const address = new URL(human.stdout.trim());
		assert.equal(address.searchParams.get("status"), "created");
		assert.equal(address.searchParams.get("state"), asked.state);
		const shareId = address.searchParams.get("link") as string;
		assert.match(shareId, /^[a-z0-9]{20}$/);

		const back = await fetch(address);
		assert.equal(back.status, 200, await back.clone().text());
		const { connection } = (await back.json()) as { connection: ToolConnection };
		assert.equal(connection.allowHandOver, true);
		const seen = connection.links.find((l) => l.id === shareId);
		assert.ok(seen, "the tool sees the share its proposal became");
		assert.deepEqual(
			[seen.label, seen.ref, seen.status, seen.handedOver],
			["Flat application", "application-17", "active", true],
		);
		assert.match(seen.url ?? "", new RegExp(`^${origin}/s/[A-Za-z0-9_-]{43}$`));
		// The tool reads the handed-over share like any reader.
		const read = await cli.json<{ records: { key: string; value: string }[] }>([
			"share",
			"read",
			seen.url as string,
		]);
		assert.deepEqual(
			read.records.map((r) => [r.key, r.value]),
			[
				["full_name", "Ada Lovelace"],
				["phone", "+44 20 7946 0000"],
			],
		);
		// The owner's share names the tool and expires in 30 days.
		const share = await asOwner<{ connection: string; handedOver: boolean; expiresAt: string }>(
			`/api/collections/links/records/${shareId}`,
		);
		assert.deepEqual([share.connection, share.handedOver], [connection.id, true]);
		const days = (Date.parse(share.expiresAt) - Date.now()) / 86_400_000;
		assert.ok(days > 29.9 && days <= 30, `expires in ${days} days`);
	});

	test("svc://p with poll: nothing to open, the tool collects the answer from its page; --json parsed", async () => {
		const asked = tool.begin();
		const proposal = link("p", {
			label: "Status only",
			keys: "phone",
			client: tool.origin,
			redirect: tool.redirect,
			state: asked.state,
			challenge: asked.challenge,
			poll: origin,
		});
		const before = await tool.poll(origin, asked.verifier);
		assert.equal(before.status, 202);
		const done = await cli.json<{
			status: string;
			checkCode: string;
			address?: string;
			code: string;
			share: { id: string; handedOver: boolean; url: string };
			missing: string[];
		}>(["open", proposal, "--yes"]);
		assert.equal(done.status, "created");
		assert.equal(done.checkCode, asked.checkCode);
		assert.equal(done.address, undefined, "a polling tool has no address to open");
		assert.match(done.code, /^[A-Za-z0-9_-]{20,}$/);
		assert.deepEqual(done.missing, []);
		// The connection allows hand-over (given before), and this share holds no hidden entry or file.
		assert.equal(done.share.handedOver, true);

		const polled = await tool.poll(origin, asked.verifier);
		assert.equal(polled.status, 200, await polled.clone().text());
		const { token } = (await polled.json()) as { token: string };
		tool.token = token;
		const connection = await tool.read(origin);
		assert.deepEqual(connection.links.map((l) => [l.id, l.label]).slice(0, 1), [
			[done.share.id, "Status only"],
		]);

		// Printed for people: the code, for a tool that asks for it.
		const second = tool.begin();
		const human = await cli.run([
			"open",
			link("p", {
				label: "Status only",
				keys: "phone",
				client: tool.origin,
				redirect: tool.redirect,
				state: second.state,
				challenge: second.challenge,
				poll: origin,
			}),
			"--yes",
		]);
		assert.equal(human.code, 0, human.stderr);
		assert.match(human.stderr, /The tool collects the answer by itself/);
		const code = human.stdout.trim();
		const redeemed = await fetch(`${origin}/api/connect/token`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ code, verifier: second.verifier, redirectUri: tool.redirect }),
		});
		assert.equal(redeemed.status, 200, await redeemed.clone().text());
	});

	test("a malformed tool link is refused as a whole, naming the parameter (exit 2), and nothing is made", async () => {
		const { state, challenge } = tool.begin();
		const good = { client: tool.origin, name: "Tool", redirect: tool.redirect, state, challenge };
		const before = await asOwner<{ items: unknown[] }>("/api/collections/links/records");
		for (const [args, parameter] of [
			[[link("connect", { ...good, challenge: "short" })], "challenge"],
			[[link("connect", { ...good, redirect: "http://127.0.0.1:1/elsewhere" })], "redirect"],
			[[link("connect", { ...good, client: "http://example.org" })], "client"],
			[[`${link("connect", good)}&name=again`], "name"],
			[[link("p", { label: "x", keys: "Full_Name" })], "keys"],
			[[link("p", { label: "x", keys: "phone", days: "0" })], "days"],
			[[link("p", { label: "x", keys: "phone", state: "s" })], "state"],
			// A loopback tool is a tool only for a server in development.
			[[link("connect", good), "--server", "https://example.org"], "client"],
		] as const) {
			const r = await cli.run(["open", ...args, "--yes"]);
			assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
			assert.match(r.stderr, new RegExp(`^svc: the link is refused: ${parameter}: `), args[0]);
			assert.equal(r.stdout, "");
		}
		const after = await asOwner<{ items: unknown[] }>("/api/collections/links/records");
		assert.equal(after.items.length, before.items.length);
		// A proposal none of whose keys the vault holds makes nothing either (exit 5).
		const empty = await cli.run(["open", link("p", { label: "x", keys: "passport" }), "--yes"]);
		assert.equal(empty.code, 5, empty.stderr);
		assert.match(empty.stderr, /none of the entries the tool asks for \(passport\) is in this workspace/);
	});

	test("a password-gated share read, `vault upload --replace`, SVC_SERVER, --workspace and SVC_WORKSPACE", async () => {
		// Password: read from a file (never the command line); without it, one clear sentence.
		const secret = path.join(folder, "password");
		fs.writeFileSync(secret, "correct horse battery\n");
		const share = await cli.json<{ url: string; requiresPassword: boolean }>([
			"share",
			"create",
			"--label",
			"Gated",
			"--entry",
			"full_name",
			"--password-file",
			secret,
		]);
		assert.equal(share.requiresPassword, true);
		const without = await cli.run(["share", "read", share.url]);
		assert.equal(without.code, 1, without.stderr);
		assert.match(
			without.stderr,
			/This share needs a password: pass --password-file or --password-stdin\. \[link_password_required/,
		);
		const wrong = await cli.run(["share", "read", share.url, "--password-stdin"], { input: "wrong\n" });
		assert.equal(wrong.code, 1, wrong.stderr);
		assert.match(wrong.stderr, /The password is wrong\. \[link_password_invalid/);
		const read = await cli.json<{ records: { value: string }[] }>([
			"share",
			"read",
			share.url,
			"--password-file",
			secret,
		]);
		assert.equal(read.records[0]?.value, "Ada Lovelace");

		// upload --replace: the same entry, new bytes, a new version; the download matches the new bytes.
		const first = path.join(folder, "lease.txt");
		fs.writeFileSync(first, "first version\n");
		const made = await cli.json<{ id: string; version: number; file: { sha256: string } }>([
			"vault",
			"upload",
			first,
			"--key",
			"lease",
		]);
		const second = path.join(folder, "lease-signed.txt");
		fs.writeFileSync(second, "second version, signed\n");
		const replaced = await cli.json<{ id: string; version: number; file: { name: string; sha256: string } }>([
			"vault",
			"upload",
			second,
			"--replace",
			"lease",
		]);
		assert.equal(replaced.id, made.id);
		assert.ok(replaced.version > made.version);
		assert.equal(replaced.file.sha256, hexSha256(fs.readFileSync(second)));
		const dest = path.join(folder, "back.txt");
		const down = await cli.run(["vault", "download", "lease", "-o", dest]);
		assert.equal(down.code, 0, down.stderr);
		assert.equal(fs.readFileSync(dest, "utf8"), "second version, signed\n");

		// SVC_SERVER names the server over the last one signed in to (here one without a session: exit 3).
		const dead = `http://localhost:${await freePort()}`;
		const elsewhere = await cli.run(["vault", "list"], { env: { SVC_SERVER: dead } });
		assert.equal(elsewhere.code, 3, "no session for that server");
		assert.match(elsewhere.stderr, new RegExp(`not signed in to ${dead}`));
		const viaEnv = await cli.run(["whoami", "--json"], { env: { SVC_SERVER: origin } });
		assert.equal(viaEnv.code, 0, viaEnv.stderr);
		assert.equal((JSON.parse(viaEnv.stdout) as { server: string }).server, origin);
		// --server wins over SVC_SERVER.
		const flagWins = await cli.run(["whoami", "--json", "--server", origin], { env: { SVC_SERVER: dead } });
		assert.equal(flagWins.code, 0, flagWins.stderr);

		// A second workspace: --workspace (or SVC_WORKSPACE) acts in it; without, the first one.
		const created = await fetch(`${origin}/api/collections/workspaces/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${sessionToken()}`, "content-type": "application/json" },
			body: JSON.stringify({ name: "Side project" }),
		});
		assert.equal(created.status, 200, await created.clone().text());
		const workspace = ((await created.json()) as { id: string }).id;
		await cli.json(["vault", "set", "project", "Lighthouse", "--workspace", workspace]);
		const there = await cli.json<{ key: string }[]>(["vault", "list", "--workspace", workspace]);
		assert.deepEqual(
			there.map((r) => r.key),
			["project"],
		);
		const viaWorkspaceEnv = await cli.run(["vault", "list", "--json"], { env: { SVC_WORKSPACE: workspace } });
		assert.equal(viaWorkspaceEnv.code, 0, viaWorkspaceEnv.stderr);
		assert.deepEqual(
			(JSON.parse(viaWorkspaceEnv.stdout) as { key: string }[]).map((r) => r.key),
			["project"],
		);
		const home = await cli.json<{ key: string }[]>(["vault", "list"]);
		assert.ok(!home.some((r) => r.key === "project"), "the first workspace does not hold it");
		const stranger = await cli.run(["vault", "list", "--workspace", "aaaaaaaaaaaaaaaaaaaa"]);
		assert.equal(stranger.code, 1, stranger.stderr);
		assert.match(stranger.stderr, /Your role in this workspace does not allow that\. \[forbidden/);
	});
});

/** SHA-256 as the server reports a file's (hex). */
function hexSha256(bytes: Buffer): string {
	return crypto.createHash("sha256").update(bytes).digest("hex");
}
