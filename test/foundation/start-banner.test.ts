// The start-up banner: on a terminal, `npm start` names the address to open and, while the server has
// no account, the ticket command; piped output (and LOG_FORMAT=json) keeps to JSON log lines.
// Runs once, not per database: it starts the server on its embedded SQLite whatever the pass.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { startBanner, wantsBanner } from "../../src/start-banner.ts";
import { entryArgs, REPO_ROOT } from "../helpers/root.ts";

const root = REPO_ROOT;

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const s = net.createServer().listen(0, "127.0.0.1", () => {
			const { port } = s.address() as net.AddressInfo;
			s.close(() => resolve(port));
		});
		s.on("error", reject);
	});
}

/** Runs src/main.ts (under `script`, so stdout is a terminal, when `tty`) until `until` matches its output. */
async function startOutput(env: Record<string, string>, tty: boolean, until: RegExp): Promise<string> {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-banner-"));
	const port = await freePort();
	const node = [process.execPath, ...entryArgs("src/main.ts")].join(" ");
	const [cmd, args] = tty
		? ["script", ["-qfec", node, "/dev/null"]]
		: [process.execPath, entryArgs("src/main.ts")];
	const child = spawn(cmd, args, {
		cwd: root,
		env: {
			...process.env,
			DATA_DIR: dataDir,
			PORT: String(port),
			DOMAIN: "localhost",
			DATABASE_URL: "",
			LOG_LEVEL: "info",
			...env,
		},
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	try {
		return await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no match in 60 s:\n${out}`)), 60_000);
			const onData = (d: Buffer) => {
				out += d.toString();
				if (until.test(out)) {
					clearTimeout(timer);
					// What the start prints right after the line waited for is written in the same tick.
					setTimeout(
						() => resolve(out.replaceAll("\r\n", "\n").replace(/^.*?(?=svc is serving|\{)/s, "")),
						300,
					);
				}
			};
			child.stdout.on("data", onData);
			child.stderr.on("data", onData);
			child.on("close", (code) => reject(new Error(`exited with ${code}:\n${out}`)));
		}).then((text) => text.replaceAll(String(port), "<port>"));
	} finally {
		child.kill("SIGTERM");
		fs.rmSync(dataDir, { recursive: true, force: true });
	}
}

describe("start-up banner", () => {
	it("names the address and, with no account yet, the ticket command", () => {
		const first = startBanner({
			origin: "http://localhost:8080",
			listening: "0.0.0.0:8080",
			hasAccount: false,
		});
		assert.match(first, /Open http:\/\/localhost:8080\/ in your browser \(listening on 0\.0\.0\.0:8080\)/);
		assert.match(first, /svc\.js admin ticket --email/);
		const later = startBanner({
			origin: "https://svc.example.org",
			listening: "0.0.0.0:8080",
			hasAccount: true,
		});
		assert.match(later, /Open https:\/\/svc\.example\.org\//);
		assert.doesNotMatch(later, /admin ticket/);
	});

	it("is printed only on a terminal with LOG_FORMAT=auto", () => {
		assert.equal(wantsBanner("auto", true), true);
		assert.equal(wantsBanner("auto", false), false);
		assert.equal(wantsBanner("auto", undefined), false);
		assert.equal(wantsBanner("json", true), false);
	});

	it("a real start on a terminal prints it; a piped or LOG_FORMAT=json start does not", async () => {
		const onTty = await startOutput({}, true, /svc is serving/);
		assert.match(onTty, /Open http:\/\/localhost:<port>\/ in your browser/);
		assert.match(
			onTty,
			/No account yet: .*\n\s+node dist\/cli\/svc\.js admin ticket --email you@example\.org/s,
		);
		const piped = await startOutput({}, false, /"msg":"serving"/);
		assert.doesNotMatch(piped, /svc is serving/);
		const json = await startOutput({ LOG_FORMAT: "json" }, true, /"msg":"serving"/);
		assert.doesNotMatch(json, /svc is serving/);
	});
});
