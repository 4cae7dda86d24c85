// `svc open` for a tool's app links (spec "App links", docs/api.md "Connected tools"): the command
// line is the owner's app, as the console's consent is. It shows the tool's origin, its name (a
// claim) and the check code, asks (or takes --yes), connects the tool or reuses its connection,
// turns a proposal into a share naming the connection, and hands the answer back: the tool's
// redirect address with state, status, server, code and link, opened in a browser when there is
// one and printed; for a tool that polls, nothing to open, and the code printed. Off a terminal
// without --yes (the desktop's link handler) it opens the console's consent screen instead.
import readline from "node:readline";
import { type ConnectRequest, checkCode, type Proposal } from "../../../src/lib/app-links.ts";
import type { Api } from "../api.ts";
import { openBrowser } from "../browser.ts";
import type { Context } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { note, printJson, printLine } from "../output.ts";
import { chosenServer, sessionFor } from "../sessions.ts";
import type { VaultRecord } from "./vault.ts";

export type ToolLink = ({ kind: "connect" } & ConnectRequest) | ({ kind: "proposal" } & Proposal);

interface Connection {
	id: string;
	clientId: string;
	clientName: string;
	allowRevoke: boolean;
	allowHandOver: boolean;
	expiresAt: string;
	state: "connected" | "lapsed";
}

interface CreatedShare {
	id: string;
	slug: string | null;
	label: string;
	connection: string | null;
	handedOver: boolean;
}

const RECORDS = "/api/collections/records/records";
const quote = (s: string) => `"${s.replace(/["\\]/g, "\\$&")}"`;

/** Options `svc open` takes for a tool's link. */
export const TOOL_OPTIONS = {
	yes: { type: "boolean", short: "y" },
	"allow-revoke": { type: "boolean" },
	"allow-hand-over": { type: "boolean" },
	"no-browser": { type: "boolean" },
} as const;

export const TOOL_HELP = `  -y, --yes           consent without asking (for scripts); without it, off a terminal (as
                      the desktop's link handler runs svc), the console's consent screen
                      for the link is opened in the browser, or svc refuses (exit 2)
  --allow-revoke      let the tool revoke the shares its proposals became
  --allow-hand-over   let the tool receive the addresses of those shares
                      (left out: a connected tool keeps what it has, a new one gets neither)
  --no-browser        open nothing: print the tool's return address (and off a terminal,
                      refuse instead of opening the console)`;

/** The tool's redirect address with the answer (spec `svc://connect`): state, status, server, code, link. */
export function answerAddress(redirect: string, params: Record<string, string | undefined>): string {
	const url = new URL(redirect);
	for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
	return url.toString();
}

/**
 * The console's consent screen for a tool's link, the address its "Open an app link" dialog goes to
 * (web/console/screens/connections/open-link.tsx `consentPath`).
 */
export function consentAddress(server: string, text: string): string {
	return `${server}/app/connections/connect?${new URLSearchParams({ link: text.trim() })}`;
}

/** A name for a new connection when a proposal gives none (`from` is optional): its host, 40 at most. */
function nameFor(link: ToolLink): string {
	const name = link.kind === "connect" ? link.name : link.from;
	if (name) return name;
	return Array.from(new URL(link.client ?? "").host)
		.slice(0, 40)
		.join("");
}

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
export function ask(question: string): Promise<boolean> {
	// Not readline's terminal mode: the terminal echoes the answer, and no cursor codes are written.
	const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: false });
	return new Promise((resolve) => {
		let answered = false;
		rl.question(`${question} [y/N] `, (answer) => {
			answered = true;
			rl.close();
			resolve(/^y(es)?$/i.test(answer.trim()));
		});
		rl.on("close", () => {
			if (!answered) {
				process.stderr.write("\n");
				resolve(false);
			}
		});
	});
}

/** The proposal's keys matched to the workspace's records: the first record holding each key. */
async function matchKeys(api: Api, keys: string[]): Promise<{ chosen: VaultRecord[]; missing: string[] }> {
	const filter = encodeURIComponent(keys.map((k) => `key = ${quote(k)}`).join(" || "));
	const { items } = await api.get<{ items: VaultRecord[] }>(
		`${RECORDS}?perPage=1000&sort=key,created&filter=${filter}`,
	);
	const chosen = keys.flatMap((k) => items.filter((r) => r.key === k).slice(0, 1));
	return { chosen, missing: keys.filter((k) => !chosen.some((r) => r.key === k)) };
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

/** A tool's link as the person sees it, with what is already known of the tool. */
interface Consent {
	link: ToolLink;
	server: string;
	client: string | undefined;
	code: string | undefined;
	existing: Connection | undefined;
	match: { chosen: VaultRecord[]; missing: string[] } | undefined;
	/** A connection is made (the link carries a challenge) or a live one is named. */
	connects: boolean;
	allowRevoke: boolean;
	allowHandOver: boolean;
	/** No hidden record and no file among the chosen: the share may be handed to the tool. */
	handable: boolean;
}

/** What the answer says, on stdout as JSON or as lines for the person. */
interface Outcome {
	kind: string;
	status: string;
	client?: string | undefined;
	checkCode?: string | undefined;
	connection?: string | undefined;
	address?: string | undefined;
	code?: string | undefined;
	share?: { id: string; label: string; url?: string | undefined; handedOver: boolean };
	missing?: string[];
}

/**
 * Acts on a tool's link as the owner's app. Returns the exit code: 0 when done or declined (the
 * tool is told either way), others through CliError.
 */
export async function openToolLink(ctx: Context, link: ToolLink, text: string): Promise<number> {
	const v = ctx.values;
	const poll = link.kind === "proposal" ? link.poll : undefined;
	// Nobody to ask here (the desktop's handler runs svc without a terminal): the console's own
	// consent screen asks in the browser, signed in there, and answers the tool itself.
	const noOneToAsk = v.yes !== true && !(process.stdin.isTTY && process.stderr.isTTY);
	// Only a server this device knows: a console at an address the link alone names could be anyone's.
	const consoleServer =
		poll !== undefined && sessionFor(poll) ? poll : chosenServer(v.server as string | undefined);
	const consent = consoleServer ? consentAddress(consoleServer, text) : undefined;
	if (noOneToAsk && consent && !v["no-browser"] && openBrowser(consent)) {
		if (ctx.json)
			printJson({
				kind: link.kind,
				status: "console",
				server: consoleServer,
				address: consent,
				opened: true,
			});
		else {
			note("Not on a terminal, so the consent continues in the console (opened in the browser):");
			printLine(consent);
		}
		return EXIT.ok;
	}

	const api = ctx.api();
	const server = api.server;
	if (poll !== undefined && poll !== server) {
		throw new CliError(
			`the tool will ask ${poll} for the answer, not ${server}: open the link with --server ${poll}`,
		);
	}
	const asked = await gather(ctx, api, link);
	note(describe(asked).join("\n"));
	if (link.kind === "proposal" && asked.match?.chosen.length === 0) {
		throw new CliError(
			`none of the entries the tool asks for (${link.keys.join(", ")}) is in this workspace: nothing can be shared`,
			EXIT.notFound,
		);
	}

	let agreed = v.yes === true;
	if (!agreed) {
		if (noOneToAsk) {
			throw new UsageError(
				`not on a terminal, so nobody can be asked: compare the check code, then pass --yes to consent${consent ? `, or consent in the console at ${consent}` : ""}`,
			);
		}
		agreed = await ask(link.kind === "connect" ? "Connect this tool?" : "Create the share?");
	}

	const back = (params: Record<string, string | undefined>) =>
		link.redirect && poll === undefined
			? answerAddress(link.redirect, { state: link.state, server, ...params })
			: undefined;
	const { client, code } = asked;
	if (!agreed) {
		const address = back({ status: "declined" });
		report(ctx, server, { kind: link.kind, status: "declined", client, checkCode: code, address });
		return EXIT.ok;
	}

	const { answer, connection, mayHandOver } = await connect(ctx, api, asked);
	const handed = { client, checkCode: code, connection, code: poll === undefined ? undefined : answer };
	if (link.kind === "connect") {
		const address = back({ status: "connected", code: answer });
		report(ctx, server, { kind: "connect", status: "connected", ...handed, address });
		return EXIT.ok;
	}

	const chosen = asked.match?.chosen ?? [];
	const share = await api.post<CreatedShare>("/api/collections/links/records", {
		label: link.label,
		records: chosen.map((r) => r.id),
		...(link.days ? { expiresAt: new Date(Date.now() + link.days * 86_400_000).toISOString() } : {}),
		...(link.stamp ? { stamp: link.stamp } : {}),
		...(link.purpose ? { purpose: link.purpose } : {}),
		...(link.ref ? { ref: link.ref } : {}),
		...(connection ? { connection, handedOver: mayHandOver && asked.handable } : {}),
	});
	const address = back({ status: "created", code: answer, link: share.id });
	report(ctx, server, {
		kind: "proposal",
		status: "created",
		...handed,
		address,
		share: {
			id: share.id,
			label: share.label,
			url: share.slug ? `${server}/s/${share.slug}` : undefined,
			handedOver: share.handedOver,
		},
		missing: asked.match?.missing ?? [],
	});
	return EXIT.ok;
}

/** What is known before asking: the tool's live connection, the permissions, the matched records. */
async function gather(ctx: Context, api: Api, link: ToolLink): Promise<Consent> {
	const v = ctx.values;
	const client = link.client;
	const code = link.challenge ? await checkCode(link.challenge) : undefined;
	const known = client
		? (
				await api.get<{ items: Connection[] }>(
					`/api/collections/connections/records?perPage=1000&filter=${encodeURIComponent(`clientId = ${quote(client)}`)}`,
				)
			).items
		: [];
	const existing = known.find((c) => c.clientId === client && c.state === "connected");
	// A connection is made with the tool's challenge; without one, only a live connection is named.
	const connects = Boolean(client && link.challenge && link.redirect) || existing !== undefined;
	const allowRevoke = v["allow-revoke"] === true ? true : (existing?.allowRevoke ?? false);
	const allowHandOver = v["allow-hand-over"] === true ? true : (existing?.allowHandOver ?? false);
	const match = link.kind === "proposal" ? await matchKeys(api, link.keys) : undefined;
	const handable = (match?.chosen ?? []).every((r) => !r.hidden && r.type !== "file");
	return {
		link,
		server: api.server,
		client,
		code,
		existing,
		match,
		connects,
		allowRevoke,
		allowHandOver,
		handable,
	};
}

/** What the person is asked about, on stderr (stdout stays the answer). */
function describe(asked: Consent): string[] {
	const { link, server, client, code, existing, match, connects, allowRevoke, allowHandOver } = asked;
	const claimed = link.kind === "connect" ? link.name : link.from;
	const chosen = match?.chosen ?? [];
	const lines: string[] = [];
	lines.push(
		link.kind === "connect"
			? `A tool asks to be connected to your workspace at ${server}.`
			: `A tool proposes a share from your vault at ${server}.`,
	);
	if (client) lines.push(`  address      ${client}`);
	if (claimed) lines.push(`  calls itself “${claimed}” (the tool's own claim; the address is what it is)`);
	if (code) lines.push(`  check code   ${code}   (the tool shows the same code: go on only if they match)`);
	if (existing)
		lines.push(`  connected until ${existing.expiresAt.slice(0, 10)} (a change below applies to it)`);
	if (link.kind === "proposal" && match) {
		lines.push(`  share        ${link.label}`);
		lines.push(
			`  entries      ${chosen.length > 0 ? chosen.map((r) => (r.name && r.name !== r.key ? `${r.name} (${r.key})` : r.key)).join(", ") : "(none)"}`,
		);
		if (match.missing.length > 0)
			lines.push(`  not in this workspace, left out: ${match.missing.join(", ")}`);
		lines.push(`  expires      ${link.days ? `in ${link.days} day${link.days === 1 ? "" : "s"}` : "never"}`);
		if (link.stamp) lines.push(`  watermark    ${link.stamp}`);
		if (link.purpose) lines.push("  purpose      an application (always watermarked)");
		if (link.template) lines.push(`  template     ${link.template}`);
		if (link.ref) lines.push(`  tool's ref   ${link.ref}`);
	}
	if (connects) {
		const why = (reason: string | undefined) =>
			link.kind === "proposal" && reason ? ` (the tool says why: “${reason}”)` : "";
		lines.push(
			`  may revoke the shares its proposals became: ${yesNo(allowRevoke)}${allowRevoke ? "" : " (--allow-revoke)"}${why(link.kind === "proposal" ? link.revokeReason : undefined)}`,
		);
		lines.push(
			`  may receive the shares its proposals became: ${yesNo(allowHandOver)}${allowHandOver ? "" : " (--allow-hand-over)"}${why(link.kind === "proposal" ? link.linksReason : undefined)}`,
		);
	}
	if (link.kind === "proposal" && chosen.length > 0) {
		lines.push(
			!connects
				? "  The tool is not connected: the share is made, and the tool learns only its id."
				: !allowHandOver
					? "  The tool will read the share's status, not its address."
					: asked.handable
						? "  The tool will receive the share's address."
						: "  Not handed to the tool: it holds hidden entries or files.",
		);
	}
	return lines;
}

/**
 * After consent: the live connection's permissions brought to what was agreed, and a code for the
 * tool when its link carries a challenge.
 */
async function connect(
	ctx: Context,
	api: Api,
	asked: Consent,
): Promise<{ answer: string | undefined; connection: string | undefined; mayHandOver: boolean }> {
	const v = ctx.values;
	const { link, client, existing, allowRevoke, allowHandOver } = asked;
	const connection = existing?.id;
	let mayHandOver = allowHandOver;
	if (existing && (existing.allowRevoke !== allowRevoke || existing.allowHandOver !== allowHandOver)) {
		const now = await api.post<{ allowRevoke: boolean; allowHandOver: boolean }>(
			`/api/connections/${existing.id}/permissions`,
			{ allowRevoke, allowHandOver },
		);
		mayHandOver = now.allowHandOver;
	}
	if (!(client && link.challenge && link.redirect)) return { answer: undefined, connection, mayHandOver };
	const poll = link.kind === "proposal" ? link.poll : undefined;
	const common = {
		clientId: client,
		redirectUri: link.redirect,
		challenge: link.challenge,
		poll: poll !== undefined,
	};
	// Decision: `svc://connect` is the owner connecting the tool again, which renews it for 90 days
	// (spec "Connection"); a proposal from a connected tool only reuses it, as the console does.
	const body =
		existing && link.kind === "proposal"
			? { ...common, reuse: true }
			: {
					...common,
					clientName: nameFor(link),
					...(existing && v["allow-revoke"] !== true ? {} : { allowRevoke }),
					...(existing && v["allow-hand-over"] !== true ? {} : { allowHandOver }),
				};
	const authorized = await api.post<{ code: string; connectionId: string }>(
		"/api/connections/authorize",
		body,
	);
	return { answer: authorized.code, connection: authorized.connectionId, mayHandOver };
}

/** The answer: JSON on stdout, or lines for the person, and the way back to the tool opened. */
function report(c: Context, server: string, out: Outcome): void {
	const opened = out.address && !c.values["no-browser"] ? openBrowser(out.address) : false;
	if (c.json) {
		printJson({ ...out, server, opened });
		return;
	}
	if (out.status === "declined") note("Declined. Nothing was shared.");
	else if (out.share) {
		note(
			`Share ${out.share.id} created${out.share.url ? `: ${out.share.url}` : ""}${out.share.handedOver ? " (handed to the tool)" : ""}`,
		);
	} else
		note(`Connected ${out.client} to ${server}${out.connection ? ` (connection ${out.connection})` : ""}.`);
	if (out.address) {
		note(
			opened ? "Returning to the tool (opened in the browser):" : "Open this address to return to the tool:",
		);
		printLine(out.address);
	} else if (out.code) {
		note("The tool collects the answer by itself; if it asks for a code, give it this one (five minutes):");
		printLine(out.code);
	} else if (out.share?.url) printLine(out.share.url);
}
