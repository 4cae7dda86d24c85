#!/usr/bin/env node
// `npm start`'s prestart: builds dist/ only when an input changed since the last build, so a second
// start on an unchanged tree serves in about a second instead of waiting for tsc and esbuild again.
// The inputs are the sources and the files that say how they build; their paths, sizes and
// modification times are hashed into dist/.build-inputs after a build that succeeded.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INPUTS = [
	"src",
	"cli",
	"web",
	"scripts/build-web.mjs",
	"package.json",
	"package-lock.json",
	"tsconfig.json",
	"tsconfig.build.json",
];
const STAMP = path.join(ROOT, "dist/.build-inputs");

/** Every file under the inputs, as `path size mtime` lines, sorted: a deleted file changes it too. */
function inputLines() {
	const lines = [];
	const walk = (rel) => {
		const full = path.join(ROOT, rel);
		let stat;
		try {
			stat = fs.statSync(full);
		} catch {
			return;
		}
		if (stat.isDirectory()) {
			for (const name of fs.readdirSync(full)) if (name !== "node_modules") walk(path.join(rel, name));
		} else {
			lines.push(`${rel} ${stat.size} ${Math.trunc(stat.mtimeMs)}`);
		}
	};
	for (const input of INPUTS) walk(input);
	return lines.sort();
}

const fingerprint = crypto.createHash("sha256").update(inputLines().join("\n")).digest("hex");
const built =
	fs.existsSync(path.join(ROOT, "dist/src/main.js")) && fs.existsSync(STAMP)
		? fs.readFileSync(STAMP, "utf8").trim()
		: "";
if (built === fingerprint) {
	process.stdout.write("dist/ is up to date with the sources: not rebuilding\n");
	process.exit(0);
}
process.stdout.write("building dist/ (the sources changed since the last build)\n");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const result = spawnSync(npm, ["run", "build"], { cwd: ROOT, stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
fs.writeFileSync(STAMP, `${fingerprint}\n`);
