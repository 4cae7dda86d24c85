// One device command: its help text, its options (node:util parseArgs, strict) and what it does.
// Every command takes --help, --json, --server (or SVC_SERVER) and --workspace.
import fs from "node:fs";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { Api } from "./api.ts";
import { CliError, EXIT, UsageError } from "./errors.ts";
import { chosenServer, type Session, sessionFor } from "./sessions.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface Context {
	json: boolean;
	values: Values;
	positionals: string[];
	/** The server named by --server / SVC_SERVER, else the last one signed in to. */
	server(): string;
	/** The session for that server; exit 3 when there is none. */
	session(): Session;
	/** The API as the signed-in account (X-Workspace from --workspace / SVC_WORKSPACE). */
	api(): Api;
	/** The API without a credential, at `server`. */
	publicApi(server?: string): Api;
}

export interface Command {
	/** `svc vault upload`: how it is called. */
	name: string;
	summary: string;
	/** Usage line(s) after the name, and the options explained. */
	help: string;
	options?: Options;
	/** Most commands take an exact number of positionals; `min`/`max` say how many. */
	args?: { min: number; max: number };
	run(ctx: Context): Promise<number | undefined>;
}

const COMMON: Options = {
	help: { type: "boolean", short: "h" },
	json: { type: "boolean" },
	server: { type: "string" },
	workspace: { type: "string" },
};

const COMMON_HELP = `  --server <address>   the server (else SVC_SERVER, else the last one signed in to)
  --workspace <id>     act in this workspace (else SVC_WORKSPACE, else the account's first)
  --json               print the answer as JSON
  -h, --help           this help`;

export function helpOf(command: Command): string {
	return `usage: ${command.name} ${command.help.trimEnd()}\n\n${command.summary}\n\ncommon options:\n${COMMON_HELP}\n`;
}

export async function runCommand(command: Command, argv: string[]): Promise<number> {
	let parsed: { values: Values; positionals: string[] };
	try {
		parsed = parseArgs({
			args: argv,
			options: { ...COMMON, ...command.options },
			allowPositionals: true,
			strict: true,
		}) as { values: Values; positionals: string[] };
	} catch (err) {
		throw new UsageError(`${err instanceof Error ? err.message : String(err)}\n\n${helpOf(command)}`);
	}
	const { values, positionals } = parsed;
	if (values.help) {
		process.stdout.write(helpOf(command));
		return EXIT.ok;
	}
	const { min, max } = command.args ?? { min: 0, max: 0 };
	if (positionals.length < min || positionals.length > max) {
		throw new UsageError(
			`${command.name} takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? "" : "s"}, ` +
				`got ${positionals.length}\n\n${helpOf(command)}`,
		);
	}
	const server = () => {
		const chosen = chosenServer(values.server as string | undefined);
		if (!chosen) throw new CliError("no server: run `svc login <server>` or pass --server", EXIT.signedOut);
		return chosen;
	};
	const session = () => {
		const origin = server();
		const found = sessionFor(origin);
		if (!found) throw new CliError(`not signed in to ${origin}: run \`svc login ${origin}\``, EXIT.signedOut);
		return found;
	};
	const ctx: Context = {
		json: values.json === true,
		values,
		positionals,
		server,
		session,
		api() {
			const s = session();
			const workspace = (values.workspace as string | undefined) ?? process.env.SVC_WORKSPACE;
			return new Api({ server: s.server, token: s.token, ...(workspace ? { workspace } : {}) });
		},
		publicApi: (origin) => new Api({ server: origin ?? server() }),
	};
	return (await command.run(ctx)) ?? EXIT.ok;
}

/** A secret from a file or stdin, never from the command line (it would sit in the shell history). */
export function readSecret(values: Values, name: string): string | undefined {
	const file = values[`${name}-file`] as string | undefined;
	if (file) return fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
	if (values[`${name}-stdin`]) return fs.readFileSync(0, "utf8").replace(/\r?\n$/, "");
	return undefined;
}

/** Options for a secret read by readSecret. */
export const secretOptions = (name: string): Options => ({
	[`${name}-file`]: { type: "string" },
	[`${name}-stdin`]: { type: "boolean" },
});

/** A group of subcommands (`svc vault list|get|…`). */
export function group(name: string, summary: string, commands: Command[]) {
	const help = () =>
		`usage: ${name} <command> [options]\n\n${summary}\n\ncommands:\n${commands
			.map((c) => `  ${c.name.slice(name.length + 1).padEnd(10)} ${c.summary}`)
			.join("\n")}\n\nRun \`${name} <command> --help\` for its options.\n`;
	return async (argv: string[]): Promise<number> => {
		const [sub, ...rest] = argv;
		if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
			process.stdout.write(help());
			return sub === undefined ? EXIT.usage : EXIT.ok;
		}
		const command = commands.find((c) => c.name === `${name} ${sub}`);
		if (!command) throw new UsageError(`${name}: unknown command ${sub}\n\n${help()}`);
		return runCommand(command, rest);
	};
}
