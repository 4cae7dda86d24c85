// The owner's device commands of `svc` (everything but `serve` and `admin`): which word runs what.
import { type Command, group, runCommand } from "./command.ts";
import { authCommands } from "./commands/auth.ts";
import { handlerCommands } from "./commands/handler.ts";
import { identityCommands } from "./commands/identity.ts";
import { keyCommands } from "./commands/keys.ts";
import { answerCommand, requestCommands } from "./commands/requests.ts";
import { shareCommands } from "./commands/shares.ts";
import { vaultCommands } from "./commands/vault.ts";

const single = (command: Command) => (argv: string[]) => runCommand(command, argv);

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
	login: single(authCommands.login),
	logout: single(authCommands.logout),
	open: single(authCommands.open),
	whoami: single(authCommands.whoami),
	handler: group(
		"svc handler",
		"Registers svc as the desktop's handler for svc:// links (Linux).",
		handlerCommands,
	),
	identity: group(
		"svc identity",
		"Identity keys: P-256 keys made on this device, certified by the server.",
		identityCommands,
	),
	vault: group(
		"svc vault",
		"The vault: value entries and files, exported and imported whole.",
		vaultCommands,
	),
	share: group("svc share", "Shares: living links to vault entries, and reading one.", shareCommands),
	request: group("svc request", "Data requests and the answers they collected.", requestCommands),
	answer: single(answerCommand),
	keys: group("svc keys", "API keys for scripts (they never open the vault).", keyCommands),
};

export const DEVICE_USAGE = `  svc login <server>                 sign this device in with a passkey (opens the /passkey page)
  svc open <svc://link>              open an app link: svc://auth, a tool's svc://connect or svc://p,
                                     an offer svc://a, a service's svc://present or svc://signin
  svc logout | svc whoami            end the session | show the account
  svc handler install|remove         make svc the desktop's handler for svc:// links (Linux)
  svc identity create|list|show|sign|revoke   identity keys kept on this device
  svc vault list|get|set|upload|download|delete|export|import   the vault
  svc share create|list|show|pause|resume|revoke|log|read   shares
  svc request create|list|answers    data requests
  svc answer <request link>          answer a request
  svc keys create|list|revoke        API keys
  Every command takes --help; listings take --json. Exit codes: docs/cli.md.
`;

/** The device command named `command`, undefined when it is not one. */
export function deviceCommand(command: string): ((argv: string[]) => Promise<number>) | undefined {
	return Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
}
