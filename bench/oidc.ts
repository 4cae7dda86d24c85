// Server-side time of an OpenID Connect sign-in, authorize to token to userinfo, through the full
// app (routing, validation, WebAuthn verification, database, RS256 signing): the page, the passkey
// ceremony (login begin and finish), the page's session and consent calls, the code exchange and
// userinfo, with one vault entry shared as a grant. The software authenticator's own signing and
// the PKCE hashing of the client are not counted.
// Usage: npm run bench:oidc [-- --count 200 --pg postgres://…]
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
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-oidc-"));
const config = loadConfig(
	{ LOG_LEVEL: "silent" },
	{
		dataDir,
		allowSignups: true,
		...(values.pg ? { databaseUrl: values.pg, databaseSchema: `bench_oidc_${process.pid}` } : {}),
	},
);
const app = await buildApp(config);
/** One client address per sign-in keeps the per-IP rate limits out of the measurement. */
const addressOf = (i: number) => `10.77.${(i >> 8) & 255}.${i & 255}`;

const SERVICE = "https://shop.bench";
const steps = [
	"authorize page",
	"login begin",
	"login finish",
	"session",
	"consent",
	"token",
	"userinfo",
] as const;
const spent: Record<(typeof steps)[number] | "total", number[]> = {
	"authorize page": [],
	"login begin": [],
	"login finish": [],
	session: [],
	consent: [],
	token: [],
	userinfo: [],
	total: [],
};

async function timed<T>(step: (typeof steps)[number], fn: () => Promise<T>): Promise<T> {
	const t0 = performance.now();
	const out = await fn();
	spent[step].push(performance.now() - t0);
	return out;
}

function ok<T extends { statusCode: number; body: string }>(res: T, what: string): T {
	if (res.statusCode !== 200) throw new Error(`${what} ${res.statusCode}: ${res.body}`);
	return res;
}

try {
	const client = new PasskeyClient(app);
	const { token } = await client.signup("ada@bench.test");
	const entry = ok(
		await app.inject({
			method: "POST",
			url: "/api/collections/records/records",
			headers: { authorization: `Bearer ${token}` },
			payload: { key: "iban", value: "DE00 1234" },
		}),
		"record",
	).json() as { id: string };
	const claims = JSON.stringify({ userinfo: { svc_links: { values: ["iban"] } } });

	for (let i = 0; i < count; i++) {
		(client as { ip: string }).ip = addressOf(i);
		const service = pkce();
		const query = new URLSearchParams({
			client_id: SERVICE,
			redirect_uri: `${SERVICE}/cb`,
			response_type: "code",
			scope: "openid profile email",
			code_challenge: service.challenge,
			code_challenge_method: "S256",
			state: `s${i}`,
			nonce: `n${i}`,
			claims,
		});
		const page = ok(
			await timed("authorize page", () => client.request("GET", `/oidc/authorize?${query}`)),
			"authorize",
		);
		const handle = /data-request="([^"]+)"/.exec(page.body)?.[1] as string;
		const own = pkce();
		const begun = ok(
			await timed("login begin", () =>
				client.post("/api/passkeys/login/begin", { challenge: own.challenge }),
			),
			"login begin",
		).json();
		const credential = client.authenticator.get(begun.options);
		const finished = ok(
			await timed("login finish", () =>
				client.post("/api/passkeys/login/finish", { session: begun.session, credential }),
			),
			"login finish",
		).json();
		const consentData = ok(
			await timed("session", () =>
				client.post("/oidc/authorize/session", {
					request: handle,
					code: finished.code,
					verifier: own.verifier,
				}),
			),
			"session",
		).json();
		const answer = ok(
			await timed("consent", () =>
				client.post("/oidc/authorize/consent", {
					ticket: consentData.ticket,
					approve: true,
					scopes: ["profile", "email"],
					links: { iban: entry.id },
				}),
			),
			"consent",
		).json();
		const code = new URL(answer.redirect).searchParams.get("code") as string;
		const tokens = ok(
			await timed("token", () =>
				app.inject({
					method: "POST",
					url: "/oidc/token",
					remoteAddress: addressOf(i),
					headers: { "content-type": "application/x-www-form-urlencoded" },
					payload: new URLSearchParams({
						grant_type: "authorization_code",
						code,
						client_id: SERVICE,
						redirect_uri: `${SERVICE}/cb`,
						code_verifier: service.verifier,
					}).toString(),
				}),
			),
			"token",
		).json();
		ok(
			await timed("userinfo", () =>
				app.inject({
					method: "GET",
					url: "/oidc/userinfo",
					headers: { authorization: `Bearer ${tokens.access_token}` },
				}),
			),
			"userinfo",
		);
		spent.total.push(steps.reduce((sum, s) => sum + (spent[s][i] as number), 0));
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
	`\n${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model} · node ${process.version} · ${values.pg ? "PostgreSQL" : "SQLite"} · ${count} sign-ins, sequential, one entry shared each time\n`,
);
console.log("| step | mean ms | p50 ms | p99 ms |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, xs] of Object.entries(spent)) {
	const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
	const label = name === "total" ? "**authorize to userinfo (7 requests)**" : name;
	console.log(`| ${label} | ${mean.toFixed(2)} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`);
}
