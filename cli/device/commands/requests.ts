// `svc request` (the requester: create, list, the answers collected) and `svc answer` (the
// responder: answers a request from this account's vault, with a handshake when the request asks).
import fs from "node:fs";
import type { Api } from "../api.ts";
import { Api as ApiClient } from "../api.ts";
import { type Command, readSecret, secretOptions } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { findIdentity, signChallenge } from "../keystore.ts";
import { dateOnly, note, printJson, printLine, printTable } from "../output.ts";
import { serverOrigin, sessionFor } from "../sessions.ts";
import { findRecord } from "./vault.ts";

interface TemplateItem {
	key: string;
	label: string;
	type: string;
	required: boolean;
	description?: string;
}

interface RequestRecord {
	id: string;
	slug: string;
	label: string;
	status: string;
	items: TemplateItem[];
	requireHandshake: boolean;
	requiresPassword: boolean;
	expiresAt: string | null;
	created: string;
}

const REQUESTS = "/api/collections/requests/records";
const TYPES = ["text", "email", "phone", "date", "number", "url", "address", "file"];
const answerUrl = (server: string, slug: string) => `${server}/app/answer/${slug}`;

/** `--item key:type[:label][?]`: `?` at the end makes the item optional. */
function parseItem(text: string): TemplateItem {
	const optional = text.endsWith("?");
	const [key, type = "text", ...label] = (optional ? text.slice(0, -1) : text).split(":");
	if (!key || !/^[a-z0-9_-]{1,64}$/.test(key))
		throw new UsageError(`--item ${text}: the key must be [a-z0-9_-], 1 to 64 characters`);
	if (!TYPES.includes(type)) throw new UsageError(`--item ${text}: the type is one of ${TYPES.join(", ")}`);
	return { key, type, label: label.join(":") || key, required: !optional };
}

const create: Command = {
	name: "svc request create",
	summary: "Creates a data request and prints the link to send to responders.",
	help: `--label <text> (--item <key:type[:label][?]>… | --template <id>) [options]

  --item <spec>         what to ask: key, type (${TYPES.join(", ")}), label; a trailing ? makes it optional
  --template <id>       copy the items of a template instead
  --handshake           responders prove an identity with a signed challenge
  --identifier          responders must enter an identifier
  --password-file <f>   responders need a password (or --password-stdin)
  --expires <iso>       stop taking answers then
  --callback <url>      receives submissions and grant events`,
	options: {
		label: { type: "string" },
		item: { type: "string", multiple: true },
		template: { type: "string" },
		handshake: { type: "boolean" },
		identifier: { type: "boolean" },
		...secretOptions("password"),
		expires: { type: "string" },
		callback: { type: "string" },
	},
	async run(ctx) {
		const v = ctx.values;
		if (!v.label) throw new UsageError("svc request create: --label is required");
		const items = ((v.item as string[] | undefined) ?? []).map(parseItem);
		if ((items.length === 0) === (v.template === undefined))
			throw new UsageError("give --item (one or more) or --template");
		const password = readSecret(v, "password");
		const api = ctx.api();
		const request = await api.post<RequestRecord>(REQUESTS, {
			label: v.label,
			...(items.length ? { items } : { template: v.template }),
			...(v.handshake ? { requireHandshake: true } : {}),
			...(v.identifier ? { requiresIdentifier: true } : {}),
			...(password !== undefined ? { password } : {}),
			...(v.expires ? { expiresAt: new Date(v.expires as string).toISOString() } : {}),
			...(v.callback ? { callbackUrl: v.callback } : {}),
		});
		if (ctx.json) printJson({ ...request, url: answerUrl(api.server, request.slug) });
		else {
			printLine(answerUrl(api.server, request.slug));
			note(`Request ${request.id} created: send this link to the people who should answer.`);
		}
		return EXIT.ok;
	},
};

const list: Command = {
	name: "svc request list",
	summary: "Lists the workspace's requests.",
	help: "[--json]",
	async run(ctx) {
		const api = ctx.api();
		const { items } = await api.get<{ items: RequestRecord[] }>(`${REQUESTS}?perPage=1000`);
		const rows = items.map((r) => ({ ...r, url: answerUrl(api.server, r.slug) }));
		if (ctx.json) printJson(rows);
		else
			printTable(
				["ID", "LABEL", "STATUS", "ITEMS", "CREATED", "LINK"],
				rows.map((r) => [r.id, r.label, r.status, String(r.items.length), dateOnly(r.created), r.url]),
			);
		return EXIT.ok;
	},
};

interface Answer {
	responseId: string;
	status: string;
	identity: string;
	identifier: string;
	senderName: string;
	values: { key: string; label: string; value: string | null; file: { name: string } | null }[];
	created: string;
	updated: string;
}

const answers: Command = {
	name: "svc request answers",
	summary:
		"The answers a request collected, with their current values (live: read through each answer's share).",
	help: "<request id> [--json]",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const api = ctx.api();
		const all: Answer[] = [];
		for (let page = 1; ; page++) {
			const res = await api.get<{ items: Answer[]; totalPages: number }>(
				`/api/requests/${ctx.positionals[0]}/links?perPage=500&page=${page}`,
			);
			all.push(...res.items);
			if (page >= res.totalPages) break;
		}
		if (ctx.json) printJson(all);
		else
			printTable(
				["RESPONSE", "STATUS", "FROM", "UPDATED", "VALUES"],
				all.map((a) => [
					a.responseId,
					a.status,
					a.senderName || a.identifier || "-",
					dateOnly(a.updated),
					a.values.map((x) => `${x.key}=${x.file ? x.file.name : (x.value ?? "")}`).join(", "),
				]),
			);
		return EXIT.ok;
	},
};

/** A request link (`https://host/app/answer/<slug>`) to its server and slug. */
function requestAddress(text: string): { server: string; slug: string } {
	const m = /^(https?:\/\/[^/]+)\/app\/answer\/([A-Za-z0-9_-]{16,128})\/?$/.exec(text.trim());
	if (!m) throw new UsageError(`${text} is not a request link (https://<server>/app/answer/<slug>)`);
	return { server: serverOrigin(m[1] as string), slug: m[2] as string };
}

interface Probe {
	label: string;
	status: string;
	requiresPassword: boolean;
	requiresIdentifier: boolean;
	requireHandshake: boolean;
	template: TemplateItem[];
	requester: { name: string; domain: string };
}

export const answerCommand: Command = {
	name: "svc answer",
	summary:
		"Answers a request from this account: each item with a typed value or one of your vault entries (a living grant you can revoke).",
	help: `<request link> [--value key=value]… [--entry key=<vault key | id>]… [options]

  --value key=value     answer an item with a value typed here (kept as a new vault entry)
  --entry key=<ref>     answer an item with an existing vault entry (a file item needs a file entry)
  --identity <ref>      prove this identity (its key on this device); needed when the request asks
  --identifier <text>   the identifier the request asks for
  --name <text>         your name as the requester sees it (unverified)
  --password-file <f>   the request's password (or --password-stdin)
  --dry-run             show what the request asks and stop`,
	options: {
		value: { type: "string", multiple: true },
		entry: { type: "string", multiple: true },
		identity: { type: "string" },
		identifier: { type: "string" },
		name: { type: "string" },
		...secretOptions("password"),
		"dry-run": { type: "boolean" },
	},
	args: { min: 1, max: 1 },
	async run(ctx) {
		const { server, slug } = requestAddress(ctx.positionals[0] as string);
		const probe = await new ApiClient({ server }).get<Probe>(`/api/public/requests/${slug}`);
		if (ctx.values["dry-run"]) {
			if (ctx.json) printJson(probe);
			else {
				printLine(`${probe.label} from ${probe.requester.name} (${probe.requester.domain}), ${probe.status}`);
				printTable(
					["KEY", "TYPE", "REQUIRED", "LABEL"],
					probe.template.map((i) => [i.key, i.type, i.required ? "yes" : "no", i.label]),
				);
				if (probe.requireHandshake) note("It asks for a proven identity (--identity).");
			}
			return EXIT.ok;
		}
		// An answer is kept in the responder's own vault, on the request's server.
		const session = sessionFor(server);
		if (!session)
			throw new CliError(
				`answering needs an account on ${server}: run \`svc login ${server}\``,
				EXIT.signedOut,
			);
		const workspace = (ctx.values.workspace as string | undefined) ?? process.env.SVC_WORKSPACE;
		const api: Api = new ApiClient({ server, token: session.token, ...(workspace ? { workspace } : {}) });
		const pairs = (list: unknown, flag: string) =>
			((list as string[] | undefined) ?? []).map((text) => {
				const at = text.indexOf("=");
				if (at < 1) throw new UsageError(`--${flag} takes key=value, not ${text}`);
				return [text.slice(0, at), text.slice(at + 1)] as const;
			});
		const values = Object.fromEntries(
			pairs(ctx.values.value, "value").map(([k, v]) => [
				k,
				v.startsWith("@") ? fs.readFileSync(v.slice(1), "utf8").trim() : v,
			]),
		);
		const entries: Record<string, string> = {};
		for (const [k, ref] of pairs(ctx.values.entry, "entry")) entries[k] = (await findRecord(api, ref)).id;
		const body: Record<string, unknown> = {};
		if (Object.keys(values).length) body.values = values;
		if (Object.keys(entries).length) body.entries = entries;
		if (ctx.values.identifier) body.identifier = ctx.values.identifier;
		if (ctx.values.name) body.senderName = ctx.values.name;
		const password = readSecret(ctx.values, "password");
		if (password !== undefined) body.password = password;
		const identityRef = ctx.values.identity as string | undefined;
		if (probe.requireHandshake && !identityRef)
			throw new CliError("this request asks for a proven identity: pass --identity <ref>", EXIT.usage);
		if (identityRef) {
			const identity = findIdentity(server, identityRef);
			const { nonce } = await api.get<{ nonce: string }>(`/api/challenges/request/${slug}`);
			Object.assign(body, {
				identityId: identity.id,
				challengeNonce: nonce,
				challengeSignature: signChallenge(identity, nonce),
			});
		}
		const answer = await api.post<{ responseId: string; updated: boolean; identity: string }>(
			`/api/public/requests/${slug}`,
			body,
		);
		if (ctx.json) printJson(answer);
		else
			printLine(
				`${answer.updated ? "Updated your answer" : "Answered"} "${probe.label}" (${answer.responseId})${answer.identity ? " with a proven identity" : ""}. ` +
					"It is a share in your vault: `svc share revoke " +
					answer.responseId +
					"` takes it back.",
			);
		return EXIT.ok;
	},
};

export const requestCommands = [create, list, answers];
