// `svc handler install|remove`: makes this `svc` the desktop's handler for svc:// links on Linux
// (freedesktop.org): a .desktop file with `MimeType=x-scheme-handler/svc` in
// $XDG_DATA_HOME/applications, made the default with `xdg-mime` when it is installed. The browser
// then hands `svc://auth?…` to `svc open`, which completes a waiting `svc login`, and a tool's
// `svc://connect` or `svc://p`, which `svc open` (no terminal) passes on to the console's consent,
// an offer `svc://a/…` or a service's `svc://present`, passed on to the console's credential
// screens, and `svc://signin`, opened on the server's authorization page.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command } from "../command.ts";
import { CliError, EXIT } from "../errors.ts";
import { note, printJson, printLine } from "../output.ts";

const DESKTOP_FILE = "svc-handler.desktop";

function applicationsDir(): string {
	const base = process.env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share");
	return path.join(base, "applications");
}

/** An Exec argument quoted as the Desktop Entry spec asks (double quotes; \ " ` $ escaped). */
const execArg = (arg: string) =>
	/^[A-Za-z0-9_./:=+-]+$/.test(arg) ? arg : `"${arg.replace(/[\\"`$]/g, "\\$&")}"`;

function run(command: string, args: string[]): { ran: boolean; ok: boolean; output: string } {
	const result = spawnSync(command, args, { encoding: "utf8" });
	if (result.error) return { ran: false, ok: false, output: result.error.message };
	return { ran: true, ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

const install: Command = {
	name: "svc handler install",
	summary: "Registers this svc as the handler for svc:// links (Linux desktops).",
	help: "",
	async run(ctx) {
		if (process.platform !== "linux") {
			throw new CliError(
				"registering a link handler is done here for Linux desktops only; on other systems run `svc open <link>` by hand",
			);
		}
		const script = path.resolve(process.argv[1] ?? "");
		const dir = applicationsDir();
		const file = path.join(dir, DESKTOP_FILE);
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			file,
			[
				"[Desktop Entry]",
				"Type=Application",
				"Name=svc",
				"Comment=Opens svc:// links for the living-grants command line",
				`Exec=${execArg(process.execPath)} ${execArg(script)} open %u`,
				"Terminal=false",
				"NoDisplay=true",
				"MimeType=x-scheme-handler/svc;",
				"",
			].join("\n"),
		);
		const mime = run("xdg-mime", ["default", DESKTOP_FILE, "x-scheme-handler/svc"]);
		const database = run("update-desktop-database", [dir]);
		if (ctx.json)
			printJson({
				desktopFile: file,
				xdgMime: mime.ran ? mime.ok : null,
				updateDesktopDatabase: database.ran ? database.ok : null,
			});
		else {
			printLine(`Wrote ${file}`);
			if (mime.ok) printLine("svc is now the default handler for svc:// links (xdg-mime).");
			else if (!mime.ran)
				note(
					"xdg-mime is not installed (package xdg-utils): make svc the handler in your desktop's settings, or install it and run this again.",
				);
			else note(`xdg-mime refused: ${mime.output}`);
		}
		return mime.ran && !mime.ok ? EXIT.failed : EXIT.ok;
	},
};

const remove: Command = {
	name: "svc handler remove",
	summary: "Removes the svc:// link handler this command installed.",
	help: "",
	async run(ctx) {
		const file = path.join(applicationsDir(), DESKTOP_FILE);
		const existed = fs.existsSync(file);
		fs.rmSync(file, { force: true });
		run("update-desktop-database", [applicationsDir()]);
		if (ctx.json) printJson({ desktopFile: file, removed: existed });
		else printLine(existed ? `Removed ${file}` : "No svc link handler was installed.");
		return EXIT.ok;
	},
};

export const handlerCommands = [install, remove];
