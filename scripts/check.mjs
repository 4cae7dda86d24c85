#!/usr/bin/env node
// `npm run check`: the static checks (lint, the layer rules, the type check, the docs drift check,
// the OpenAPI check), two at a time, then the suite (scripts/test.mjs) when all of them passed.
// The type check alone is single-threaded and takes a minute: side by side, the checks take about
// half the time they took one after another. Each check's output is printed whole as it ends.
import { spawn } from "node:child_process";

const checks = [
	["typecheck", "npm run typecheck"],
	["lint", "npm run lint"],
	["deps", "npm run deps"],
	["docs:check", "npm run docs:check"],
	["openapi:check", "npm run openapi:check"],
];
const AT_ONCE = 2;

function run(name, command) {
	const started = Date.now();
	return new Promise((resolve) => {
		const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		child.stdout.on("data", (d) => {
			output += d;
		});
		child.stderr.on("data", (d) => {
			output += d;
		});
		child.on("close", (code) => {
			const seconds = ((Date.now() - started) / 1000).toFixed(1);
			process.stdout.write(`\n==> ${name}: ${code === 0 ? "ok" : `FAILED (exit ${code})`} in ${seconds} s\n`);
			process.stdout.write(output);
			resolve(code === 0);
		});
	});
}

const queue = [...checks];
const results = [];
await Promise.all(
	Array.from({ length: AT_ONCE }, async () => {
		for (let next = queue.shift(); next; next = queue.shift()) results.push([next[0], await run(...next)]);
	}),
);
const failedChecks = results.filter(([, ok]) => !ok).map(([name]) => name);
if (failedChecks.length > 0) {
	console.error(`\n# failed: ${failedChecks.join(", ")}; the suite did not run`);
	process.exit(1);
}

const suite = spawn(process.execPath, ["scripts/test.mjs", ...process.argv.slice(2)], { stdio: "inherit" });
suite.on("close", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
