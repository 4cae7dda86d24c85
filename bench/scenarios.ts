// Benchmark scenarios. Each names a request against the real server; `setup` may prepare data
// through the server's own database (the same DATA_DIR / DATABASE_URL the server runs on) and
// returns the request to repeat. Later features add their endpoints here.
import { sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { randomToken, sha256Hex } from "../src/lib/crypto.ts";
import { seedRecords } from "./seed-records.ts";
import { shareFixture } from "./share-fixture.ts";

export interface BenchRequest {
	method: "GET" | "POST";
	path: string;
	headers?: Record<string, string>;
	body?: string;
	/**
	 * Each request from its own client address (X-Forwarded-For; the server runs with TRUST_PROXY),
	 * as many readers of a public page would be: per-client rate limits still run on every request.
	 */
	manyClients?: boolean;
}

export interface Scenario {
	name: string;
	/** `env` holds the variables the server was started with. */
	setup(base: string, env: Record<string, string>): Promise<BenchRequest>;
}

const LIST_ROWS = 100_000;

export const scenarios: Scenario[] = [
	{ name: "GET /healthz", setup: async () => ({ method: "GET", path: "/healthz" }) },
	{ name: "GET /api/server", setup: async () => ({ method: "GET", path: "/api/server" }) },
	listScenario("key = 'iban' && hidden = false", "-updated,name"),
	listScenario("key = 'iban' && hidden = false && name ~ '1'", "-updated,name"),
	// Three characters and more are looked up in the trigram index (one or two cannot be).
	listScenario("key = 'iban' && hidden = false && name ~ '123'", "-updated,name"),
	{
		name: "GET /api/public/links/{slug} (probe)",
		async setup(base, env) {
			const { slug } = await sharedFixture(base, env);
			return { method: "GET", path: `/api/public/links/${slug}`, manyClients: true };
		},
	},
	{
		name: "POST /api/public/links/{slug} (resolve, 5 records)",
		async setup(base, env) {
			const { slug } = await sharedFixture(base, env);
			return { method: "POST", path: `/api/public/links/${slug}`, manyClients: true };
		},
	},
	// The share page and its vCard: each a resolve (one view) rendered, beside the API resolve above.
	{
		name: "GET /s/{slug} (page, 5 records)",
		async setup(base, env) {
			const { slug } = await sharedFixture(base, env);
			return { method: "GET", path: `/s/${slug}`, headers: { accept: "text/html" }, manyClients: true };
		},
	},
	{
		name: "GET /s/{slug} (vCard, 5 records)",
		async setup(base, env) {
			const { slug } = await sharedFixture(base, env);
			return { method: "GET", path: `/s/${slug}`, headers: { accept: "text/vcard" }, manyClients: true };
		},
	},
	// Another server reading 100 grants in one call (each its own share of two records).
	{
		name: "POST /api/grants/resolve (100 grants)",
		async setup(base, env) {
			const grants = await grantFixture(base, env, 100);
			return {
				method: "POST",
				path: "/api/grants/resolve",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ grants }),
				manyClients: true,
			};
		},
	},
];

/** `n` shares of two records, each handed out as a grant with its token (as a relay makes them). */
async function grantFixture(base: string, env: Record<string, string>, n: number) {
	const store = await openStore(loadConfig(env));
	try {
		const now = Date.now();
		const account = await createAccount(store.db, { email: "grant-bench@bench.test" }, now);
		const { token } = await createSession(store.db, account.accountId, now);
		const post = async (collection: string, body: unknown) => {
			const res = await fetch(`${base}/api/collections/${collection}/records`, {
				method: "POST",
				headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
				body: JSON.stringify(body),
			});
			if (!res.ok) throw new Error(`${collection}: ${res.status} ${await res.text()}`);
			return (await res.json()) as { id: string };
		};
		const name = await post("records", { key: "name", value: "Ann Example" });
		const email = await post("records", { key: "email", value: "ann@example.org" });
		const grants = [];
		for (let i = 0; i < n; i++) {
			const link = await post("links", { label: `Grant ${i}`, records: [name.id, email.id] });
			grants.push({ id: link.id, token: randomToken(32) });
		}
		await store.db
			.insertInto("grant_tokens")
			.values(
				grants.map((g) => ({
					link: g.id,
					token_hash: sha256Hex(g.token),
					keys: JSON.stringify({ name: name.id, email: email.id }),
					peer: "reader.bench",
					request_slug: null,
					created: now,
					updated: now,
				})),
			)
			.execute();
		return grants;
	} finally {
		await store.destroy();
	}
}

/** The share of five value records (`shareFixture`), made once per run. */
let shared: Promise<{ slug: string }> | undefined;
function sharedFixture(base: string, env: Record<string, string>) {
	shared ??= shareFixture(base, env);
	return shared;
}
/** Seeds LIST_ROWS records once per server, then lists 20 of them filtered and sorted. */
let seeded: Promise<string> | undefined;
function listScenario(filter: string, sort: string): Scenario {
	return {
		name: `list 20 of ${LIST_ROWS / 1000}k: ${filter}, sort ${sort}`,
		async setup(_base, env) {
			seeded ??= seed(env);
			const token = await seeded;
			return {
				method: "GET",
				path: `/api/collections/records/records?filter=${encodeURIComponent(filter)}&sort=${sort}&perPage=20`,
				headers: { authorization: `Bearer ${token}` },
			};
		},
	};
}

async function seed(env: Record<string, string>): Promise<string> {
	const store = await openStore(loadConfig(env));
	try {
		const now = Date.now();
		const account = await createAccount(store.db, { email: "bench@bench.test" }, now);
		const { token } = await createSession(store.db, account.accountId, now);
		await seedRecords(store.db, account.workspaceId, LIST_ROWS, now);
		// What autovacuum does within a minute of a bulk insert on PostgreSQL (planner statistics,
		// the visibility map index-only scans need), done now so the run does not race it.
		if (store.dialect === "postgres") await sql`vacuum analyze records`.execute(store.db);
		return token;
	} finally {
		await store.destroy();
	}
}
