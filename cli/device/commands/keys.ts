// `svc keys`: API keys for scripts. The token is shown once (the server's X-Plain-Token header) and
// never stored on this device; a key never opens the vault (spec "Authentication" rules 4-6).
import type { Command } from "../command.ts";
import { EXIT, UsageError } from "../errors.ts";
import { dateOnly, note, printJson, printLine, printTable } from "../output.ts";

interface ApiKey {
	id: string;
	name: string;
	permissions: string[];
	scopes: string[];
	expiresAt: string | null;
	created: string;
	lastUsed: string | null;
}

const KEYS = "/api/collections/apiKeys/records";

const create: Command = {
	name: "svc keys create",
	summary: "Creates an API key and prints its token once (it cannot be shown again).",
	help: `--name <name> --permission <name>… [--expires <iso>]

  --permission <name>   a permission from GET /api/permissions (repeat for more), e.g. links:read
  --expires <iso>       the key stops working then`,
	options: {
		name: { type: "string" },
		permission: { type: "string", multiple: true },
		expires: { type: "string" },
	},
	async run(ctx) {
		const v = ctx.values;
		const permissions = (v.permission as string[] | undefined) ?? [];
		if (!v.name || permissions.length === 0)
			throw new UsageError("svc keys create: --name and at least one --permission are required");
		const expires = v.expires === undefined ? undefined : Date.parse(v.expires as string);
		if (expires !== undefined && Number.isNaN(expires))
			throw new UsageError("--expires takes an ISO 8601 time");
		const { data, headers } = await ctx.api().call<ApiKey>("POST", KEYS, {
			name: v.name,
			permissions,
			...(expires !== undefined ? { expiresAt: new Date(expires).toISOString() } : {}),
		});
		const token = headers.get("x-plain-token") ?? "";
		if (ctx.json) printJson({ ...data, token });
		else {
			printLine(token);
			note(
				`API key ${data.name} (${data.id}) created with ${data.scopes.join(", ")}. The token above is shown once: keep it now.`,
			);
		}
		return EXIT.ok;
	},
};

const list: Command = {
	name: "svc keys list",
	summary: "Lists the API keys (never their tokens).",
	help: "[--json]",
	async run(ctx) {
		const { items } = await ctx.api().get<{ items: ApiKey[] }>(`${KEYS}?perPage=1000`);
		if (ctx.json) printJson(items);
		else
			printTable(
				["ID", "NAME", "PERMISSIONS", "EXPIRES", "LAST USED"],
				items.map((k) => [
					k.id,
					k.name,
					k.permissions.join(","),
					dateOnly(k.expiresAt),
					dateOnly(k.lastUsed),
				]),
			);
		return EXIT.ok;
	},
};

const revoke: Command = {
	name: "svc keys revoke",
	summary: "Revokes an API key: its next request is refused.",
	help: "<id>",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const id = ctx.positionals[0] as string;
		await ctx.api().delete(`${KEYS}/${id}`);
		if (ctx.json) printJson({ id, revoked: true });
		else printLine(`API key ${id} revoked`);
		return EXIT.ok;
	},
};

export const keyCommands = [create, list, revoke];
