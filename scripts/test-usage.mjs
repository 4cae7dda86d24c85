// Loaded into every process of a test run (NODE_OPTIONS=--import, set by scripts/test.mjs). In a
// test file's own process it writes, at exit, the file's wall time and the CPU time of the process
// and of the children it reaped (Chromium, spawned servers and CLIs): /proc/self/stat's utime,
// stime, cutime and cstime. The runner prints the slowest files with both, so a slow run says
// whether a file computes or waits. Other processes (servers, CLIs) write nothing.
import fs from "node:fs";
import path from "node:path";

const dir = process.env.SVC_TEST_USAGE_DIR;
const file = process.argv[1];
if (dir && /\.test\.[jt]s$|test-batch\.mjs$/.test(file ?? "")) {
	const started = Date.now() - process.uptime() * 1000;
	process.on("exit", () => {
		try {
			// Fields after the command name, which sits in parentheses and may hold spaces.
			const stat = fs.readFileSync("/proc/self/stat", "utf8");
			const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			const tick = 100; // USER_HZ on Linux
			const [utime, stime, cutime, cstime] = [f[11], f[12], f[13], f[14]].map((v) => Number(v) / tick);
			const record = {
				job: process.env.SVC_TEST_JOB,
				file: path.relative(process.cwd(), file),
				started,
				wall: (Date.now() - started) / 1000,
				cpu: utime + stime,
				children: cutime + cstime,
			};
			fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(record));
		} catch {
			// Not Linux, or the folder is gone: the run goes on without the figure.
		}
	});
}
