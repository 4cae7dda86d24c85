// Benchmark scenarios. Each names a request against the real server; `setup` may prepare data
// through the server's own API (or its database) and returns the request to repeat.
// Later features add their endpoints here.

export interface BenchRequest {
	method: "GET" | "POST";
	path: string;
	headers?: Record<string, string>;
	body?: string;
}

export interface Scenario {
	name: string;
	setup(base: string): Promise<BenchRequest>;
}

export const scenarios: Scenario[] = [
	{ name: "GET /healthz", setup: async () => ({ method: "GET", path: "/healthz" }) },
	{ name: "GET /api/server", setup: async () => ({ method: "GET", path: "/api/server" }) },
];
