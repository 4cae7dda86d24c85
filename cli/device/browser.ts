// Opening an address in the desktop's browser: the /passkey page for `svc login`, a tool's return
// address for `svc open`. Nothing is tried without a desktop (no DISPLAY or WAYLAND_DISPLAY on
// Linux): the caller prints the address instead.
import { spawn } from "node:child_process";

/** Opens `url` in the desktop's browser when there is a desktop; false when it could not try. */
export function openBrowser(url: string): boolean {
	const opener =
		process.platform === "darwin"
			? ["open", [url]]
			: process.platform === "win32"
				? ["cmd", ["/c", "start", "", url]]
				: process.env.DISPLAY || process.env.WAYLAND_DISPLAY
					? ["xdg-open", [url]]
					: undefined;
	if (!opener) return false;
	try {
		const child = spawn(opener[0] as string, opener[1] as string[], { detached: true, stdio: "ignore" });
		child.on("error", () => undefined);
		child.unref();
		return true;
	} catch {
		return false;
	}
}
