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
];

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
