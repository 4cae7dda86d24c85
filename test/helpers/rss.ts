// Resident memory of another process, read from /proc/<pid>/status, so the measuring process's
// own memory never counts.
import fs from "node:fs";

export const MB = 1024 * 1024;

export function rssBytes(pid: number): number {
	const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
	const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0);
	return kb * 1024;
}

/** Samples a process's RSS every 10 ms until stopped; answers the peak. */
export function sampleRss(pid: number) {
	let peak = rssBytes(pid);
	const timer = setInterval(() => {
		try {
			peak = Math.max(peak, rssBytes(pid));
		} catch {
			// the process may be gone at the very end
		}
	}, 10);
	return {
		stop() {
			clearInterval(timer);
			return peak;
		},
	};
}
