// `svc share`: the owner's shares (create with the gates, list, pause, resume, revoke, read log)
// and `svc share read`, a reader opening a share through its gates (password, handshake).
import path from "node:path";
import { Api } from "../api.ts";
import { type Command, readSecret, secretOptions } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { findIdentity, signChallenge } from "../keystore.ts";
import { dateOnly, note, printJson, printLine, printTable, progressBar } from "../output.ts";
import { serverOrigin } from "../sessions.ts";
import { findRecord } from "./vault.ts";

interface Share {
	id: string;
	slug: string | null;
	label: string;
	status: string;
	records: string[];
	sections: string[];
	requiresPassword: boolean;
	viewCount: number;
	maxViews: number | null;
	expiresAt: string | null;
	requireHandshake: boolean;
	watermarked: boolean;
	stamp: string | null;
	purpose: string;
	ref: string | null;
	identity: string | null;
	created: string;
}

const LINKS = "/api/collections/links/records";
const shareUrl = (server: string, slug: string | null) => (slug ? `${server}/s/${slug}` : "");
const withUrl = (server: string, s: Share) => ({ ...s, url: shareUrl(server, s.slug) });

/** `--expires`: an ISO 8601 time, or a number of days from now (`30d`). */
function expiresAt(text: string | undefined): string | undefined {
	if (text === undefined) return undefined;
	const days = /^(\d{1,4})d$/.exec(text);
	if (days) return new Date(Date.now() + Number(days[1]) * 86_400_000).toISOString();
	const at = Date.parse(text);
	if (Number.isNaN(at)) throw new UsageError(`--expires takes an ISO 8601 time or days (30d), not ${text}`);
	return new Date(at).toISOString();
}

async function sectionId(api: Api, ref: string): Promise<string> {
	const filter = encodeURIComponent(`id = "${ref}" || key = "${ref.replace(/["\\]/g, "")}"`);
	const { items } = await api.get<{ items: { id: string }[] }>(
		`/api/collections/sections/records?filter=${filter}`,
	);
	if (items.length !== 1) throw new CliError(`no section ${ref}`, EXIT.notFound);
	return (items[0] as { id: string }).id;
}

const create: Command = {
	name: "svc share create",
	summary: "Creates a share of vault entries and sections, with its gates; prints its address.",
	help: `[--label <text>] [--entry <key | id>]… [--section <key | id>]… [gates]

  --entry <ref>         a vault entry to grant (repeat for more)
  --section <ref>       a section to grant, with every entry it holds now (repeat for more)
  --password-file <f>   gate: a password, read from a file (or --password-stdin)
  --max-views <n>       gate: a view cap
  --expires <when>      gate: an ISO 8601 time, or days from now (30d)
  --handshake           gate: readers prove an identity with a signed challenge
  --stamp <text>        watermark served files with this text
  --application         a rental application (needs --stamp)
  --identity <ref>      make the share under one of the workspace's identities
  --ref <text>          your own reference`,
	options: {
		label: { type: "string" },
		entry: { type: "string", multiple: true },
		section: { type: "string", multiple: true },
		...secretOptions("password"),
		"max-views": { type: "string" },
		expires: { type: "string" },
		handshake: { type: "boolean" },
		stamp: { type: "string" },
		application: { type: "boolean" },
		identity: { type: "string" },
		ref: { type: "string" },
	},
	async run(ctx) {
		const api = ctx.api();
		const v = ctx.values;
		const records: string[] = [];
		for (const ref of (v.entry as string[] | undefined) ?? []) records.push((await findRecord(api, ref)).id);
		const sections: string[] = [];
		for (const ref of (v.section as string[] | undefined) ?? []) sections.push(await sectionId(api, ref));
		const maxViews = v["max-views"] === undefined ? undefined : Number(v["max-views"]);
		if (maxViews !== undefined && !Number.isInteger(maxViews))
			throw new UsageError("--max-views takes a whole number");
		const password = readSecret(v, "password");
		const body = {
			...(v.label !== undefined ? { label: v.label } : {}),
			records,
			sections,
			...(password !== undefined ? { password } : {}),
			...(maxViews !== undefined ? { maxViews } : {}),
			...(v.expires !== undefined ? { expiresAt: expiresAt(v.expires as string) } : {}),
			...(v.handshake ? { requireHandshake: true } : {}),
			...(v.stamp !== undefined ? { stamp: v.stamp } : {}),
			...(v.application ? { purpose: "application" } : {}),
			...(v.identity !== undefined ? { identity: findIdentity(api.server, v.identity as string).id } : {}),
			...(v.ref !== undefined ? { ref: v.ref } : {}),
		};
		const share = await api.post<Share>(LINKS, body);
		if (ctx.json) printJson(withUrl(api.server, share));
		else {
			printLine(shareUrl(api.server, share.slug));
			note(
				`Share ${share.id} created${share.label ? ` (${share.label})` : ""}: anyone holding this address can read it.`,
			);
		}
		return EXIT.ok;
	},
};

const list: Command = {
	name: "svc share list",
	summary: "Lists the workspace's shares with their status, views and address.",
	help: "[--status <active|paused|revoked|expired>] [--json]",
	options: { status: { type: "string" } },
	async run(ctx) {
		const api = ctx.api();
		const status = ctx.values.status as string | undefined;
		const query = status ? `&filter=${encodeURIComponent(`status = "${status.replace(/["\\]/g, "")}"`)}` : "";
		const { items } = await api.get<{ items: Share[] }>(`${LINKS}?perPage=1000${query}`);
		const rows = items.map((s) => withUrl(api.server, s));
		if (ctx.json) printJson(rows);
		else
			printTable(
				["ID", "LABEL", "STATUS", "VIEWS", "EXPIRES", "ADDRESS"],
				rows.map((s) => [
					s.id,
					s.label || "-",
					s.status,
					`${s.viewCount}${s.maxViews === null ? "" : `/${s.maxViews}`}`,
					dateOnly(s.expiresAt),
					s.url,
				]),
			);
		return EXIT.ok;
	},
};

const show: Command = {
	name: "svc share show",
	summary: "Shows one share: its gates, status, views and address.",
	help: "<id> [--json]",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const api = ctx.api();
		const share = withUrl(api.server, await api.get<Share>(`${LINKS}/${ctx.positionals[0]}`));
		if (ctx.json) printJson(share);
		else {
			for (const [k, val] of Object.entries({
				label: share.label || "-",
				status: share.status,
				address: share.url,
				views: `${share.viewCount}${share.maxViews === null ? "" : ` of ${share.maxViews}`}`,
				expires: share.expiresAt ?? "never",
				password: share.requiresPassword ? "yes" : "no",
				handshake: share.requireHandshake ? "yes" : "no",
				watermark: share.stamp ?? "no",
				entries: String(share.records.length),
				sections: String(share.sections.length),
			}))
				printLine(`${`${k}:`.padEnd(11)} ${val}`);
		}
		return EXIT.ok;
	},
};

function statusCommand(verb: "pause" | "resume" | "revoke", status: string, summary: string): Command {
	return {
		name: `svc share ${verb}`,
		summary,
		help: "<id>",
		args: { min: 1, max: 1 },
		async run(ctx) {
			const api = ctx.api();
			const share = await api.patch<Share>(`${LINKS}/${ctx.positionals[0]}`, { status });
			if (ctx.json) printJson(withUrl(api.server, share));
			else printLine(`Share ${share.id} is ${share.status}`);
			return EXIT.ok;
		},
	};
}

interface Read {
	id: string;
	at: string;
	kind: string;
	view: number;
	record: string | null;
	readerFingerprint: string | null;
}

const log: Command = {
	name: "svc share log",
	summary: "The share's read log: every read that returned values, newest first.",
	help: "<id> [--json]",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const api = ctx.api();
		const id = ctx.positionals[0] as string;
		await api.get(`${LINKS}/${id}`); // an unknown share is a 404, not an empty log
		const filter = encodeURIComponent(`link = "${id.replace(/["\\]/g, "")}"`);
		const { items } = await api.get<{ items: Read[] }>(
			`/api/collections/linkReads/records?perPage=1000&filter=${filter}`,
		);
		if (ctx.json) printJson(items);
		else
			printTable(
				["AT", "KIND", "VIEW", "READER"],
				items.map((r) => [
					r.at,
					r.kind,
					String(r.view),
					r.readerFingerprint ? `${r.readerFingerprint.slice(0, 16)}…` : "-",
				]),
			);
		return EXIT.ok;
	},
};

interface Resolved {
	label: string;
	records: {
		id: string;
		key: string;
		name: string;
		type: string;
		value: string | null;
		hidden: boolean;
		file: { name: string; size: number; sha256: string } | null;
		downloadToken?: string;
	}[];
	viewCount: number;
	watermark?: string;
}

/** A share address (`https://host/s/<slug>`) to its server and slug; a bare slug is on --server. */
function shareAddress(text: string, fallback: () => string): { server: string; slug: string } {
	const m = /^(https?:\/\/[^/]+)\/s\/([A-Za-z0-9_-]{16,128})\/?$/.exec(text.trim());
	if (m) return { server: serverOrigin(m[1] as string), slug: m[2] as string };
	if (/^[A-Za-z0-9_-]{16,128}$/.test(text)) return { server: fallback(), slug: text };
	throw new UsageError(`${text} is not a share address (https://<server>/s/<slug>) or slug`);
}

const read: Command = {
	name: "svc share read",
	summary: "Reads a share as its reader does (takes one view): through its password and handshake gates.",
	help: `<address | slug> [--identity <ref>] [--password-file <f> | --password-stdin] [--files <folder>]

  --identity <ref>     prove this identity (its key on this device) when the share asks for a handshake
  --files <folder>     also download the files it grants into this folder`,
	options: { identity: { type: "string" }, ...secretOptions("password"), files: { type: "string" } },
	args: { min: 1, max: 1 },
	async run(ctx) {
		const { server, slug } = shareAddress(ctx.positionals[0] as string, ctx.server);
		const api = new Api({ server });
		const probe = await api.get<{
			status: string;
			requireHandshake: boolean;
			requiresPassword: boolean;
			label: string;
		}>(`/api/public/links/${slug}`);
		const body: Record<string, string> = {};
		const password = readSecret(ctx.values, "password");
		if (password !== undefined) body.password = password;
		const identityRef = ctx.values.identity as string | undefined;
		if (probe.requireHandshake || identityRef) {
			if (!identityRef)
				throw new CliError("this share asks for a proven identity: pass --identity <ref>", EXIT.usage);
			const identity = findIdentity(server, identityRef);
			const { nonce } = await api.get<{ nonce: string }>(`/api/challenges/link/${slug}`);
			Object.assign(body, {
				identityId: identity.id,
				challengeNonce: nonce,
				challengeSignature: signChallenge(identity, nonce),
			});
		}
		const resolved = await api.post<Resolved>(`/api/public/links/${slug}`, body);
		const saved: Record<string, string> = {};
		const folder = ctx.values.files as string | undefined;
		if (folder) {
			for (const r of resolved.records) {
				if (!r.file || !r.downloadToken) continue;
				const dest = path.join(folder, path.basename(r.file.name));
				const bar = progressBar(`Downloading ${r.file.name}`);
				await api
					.download(
						`/api/public/links/${slug}/files/${r.id}?dl=${encodeURIComponent(r.downloadToken)}`,
						dest,
						bar.update,
					)
					.finally(bar.done);
				saved[r.id] = dest;
			}
		}
		if (ctx.json) printJson({ ...resolved, server, slug, saved });
		else {
			printLine(
				`${resolved.label || "(no label)"}: view ${resolved.viewCount}${resolved.watermark ? `, stamped "${resolved.watermark}"` : ""}`,
			);
			printTable(
				["KEY", "NAME", "VALUE"],
				resolved.records.map((r) => [
					r.key,
					r.name,
					r.file ? `${r.file.name}${saved[r.id] ? ` -> ${saved[r.id]}` : ""}` : (r.value ?? ""),
				]),
			);
		}
		return EXIT.ok;
	},
};

export const shareCommands = [
	create,
	list,
	show,
	statusCommand("pause", "paused", "Pauses a share: reads are refused until it is resumed."),
	statusCommand("resume", "active", "Resumes a paused share."),
	statusCommand("revoke", "revoked", "Revokes a share for good."),
	log,
	read,
];
