// Server-side time of a passkey sign-up and a sign-in, end to end: begin, finish and the code
// redemption at /api/passkeys/token, through the full app (routing, validation, WebAuthn
// verification, database). The software authenticator's own signing is not counted.
// Usage: node --import tsx bench/passkeys.ts [--count 200] [--pg postgres://…]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { PasskeyClient } from "../test/helpers/passkeys.ts";
import { pkce } from "../test/helpers/webauthn.ts";

const { values } = parseArgs({
	options: { count: { type: "string", default: "200" }, pg: { type: "string" } },
});
const count = Number(values.count);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-pk-"));
const config = loadConfig(
	{ LOG_LEVEL: "silent" },
	{
		dataDir,
		allowSignups: true,
		...(values.pg ? { databaseUrl: values.pg, databaseSchema: `bench_pk_${process.pid}` } : {}),
	},
);
const app = await buildApp(config);

async function timed<T>(spent: number[], fn: () => Promise<T>): Promise<T> {
	const t0 = performance.now();
	const out = await fn();
	spent.push(performance.now() - t0);
	return out;
}

const signup: number[] = [];
const signin: number[] = [];
try {
	for (let i = 0; i < count; i++) {
		const client = new PasskeyClient(app);
		const up = pkce();
		const parts: number[] = [];
		const begun = await timed(parts, () =>
			client.post("/api/passkeys/register/begin", { email: `u${i}@bench.test`, challenge: up.challenge }),
		);
		const { response } = client.authenticator.create(begun.json().options);
		const fin = await timed(parts, () =>
			client.post("/api/passkeys/register/finish", { session: begun.json().session, credential: response }),
		);
		const tok = await timed(parts, () =>
			client.post("/api/passkeys/token", { code: fin.json().code, verifier: up.verifier }),
		);
		if (tok.statusCode !== 200) throw new Error(`signup failed: ${tok.body}`);
		signup.push(parts.reduce((a, b) => a + b, 0));

		const down = pkce();
		const inParts: number[] = [];
		const lb = await timed(inParts, () =>
			client.post("/api/passkeys/login/begin", { challenge: down.challenge }),
		);
		const credential = client.authenticator.get(lb.json().options);
		const lf = await timed(inParts, () =>
			client.post("/api/passkeys/login/finish", { session: lb.json().session, credential }),
		);
		const lt = await timed(inParts, () =>
			client.post("/api/passkeys/token", { code: lf.json().code, verifier: down.verifier }),
		);
		if (lt.statusCode !== 200) throw new Error(`signin failed: ${lt.body}`);
		signin.push(inParts.reduce((a, b) => a + b, 0));
	}
} finally {
	await app.close();
	fs.rmSync(dataDir, { recursive: true, force: true });
}

const pct = (xs: number[], p: number) => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
console.log(
	`\n${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model} · node ${process.version} · ${values.pg ? "PostgreSQL" : "SQLite"} · ${count} of each, sequential\n`,
);
console.log("| flow (3 requests) | mean ms | p50 ms | p99 ms |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, xs] of [
	["sign-up (register begin, finish, token)", signup],
	["sign-in (login begin, finish, token)", signin],
] as const) {
	const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
	console.log(`| ${name} | ${mean.toFixed(2)} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`);
}
