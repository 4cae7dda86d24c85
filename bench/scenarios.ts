// Benchmark scenarios. Each names a request against the real server; `setup` may prepare data
// through the server's own database (the same DATA_DIR / DATABASE_URL the server runs on) and
// returns the request to repeat. Later features add their endpoints here.
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";
import { seedRecords } from "./seed-records.ts";

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
];

/** One share of five value records in two sections, made through the server's API, once per run. */
let shared: Promise<{ slug: string }> | undefined;
function sharedFixture(base: string, env: Record<string, string>) {
	shared ??= shareFixture(base, env);
	return shared;
}
async function shareFixture(base: string, env: Record<string, string>): Promise<{ slug: string }> {
	const store = await openStore(loadConfig(env));
	let token: string;
	try {
		const now = Date.now();
		const account = await createAccount(store.db, { email: "share-bench@bench.test" }, now);
		token = (await createSession(store.db, account.accountId, now)).token;
	} finally {
		await store.destroy();
	}
	const post = async (collection: string, body: unknown) => {
		const res = await fetch(`${base}/api/collections/${collection}/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
			body: JSON.stringify(body),
		});
		if (!res.ok) throw new Error(`${collection}: ${res.status} ${await res.text()}`);
		return (await res.json()) as { id: string; slug: string };
	};
	const contact = await post("sections", { key: "contact", name: "Contact" });
	const bank = await post("sections", { key: "bank", name: "Bank" });
	const records = [];
	for (const [key, value, section] of [
		["email", "ann@example.org", contact.id],
		["phone", "+49 30 1234567", contact.id],
		["address", "Hauptstr. 1, 10115 Berlin", contact.id],
		["iban", "DE89 3704 0044 0532 0130 00", bank.id],
		["bic", "COBADEFFXXX", bank.id],
	]) {
		records.push(await post("records", { key, value, section }));
	}
	const link = await post("links", { label: "Bench share", records: records.map((r) => r.id) });
	return { slug: link.slug };
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
		return token;
	} finally {
		await store.destroy();
	}
}
