import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openApiErrors } from "../../scripts/openapi-check.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";

describe("the OpenAPI document", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp();
	});
	after(() => t.close());

	test("is served at /api/openapi.json with version 0.1.0", async () => {
		const res = await t.app.inject({ url: "/api/openapi.json" });
		assert.equal(res.statusCode, 200);
		const doc = res.json();
		assert.equal(doc.openapi, "3.1.0");
		assert.equal(doc.info.version, "0.1.0");
		assert.ok(doc.components.schemas.Problem, "the problem body is a component");
	});

	test("is a valid OpenAPI 3.1 document (@readme/openapi-parser, as `npm run openapi:check`)", async () => {
		const doc = (await t.app.inject({ url: "/api/openapi.json" })).json();
		assert.equal(await openApiErrors(doc), "");
	});

	test("every error response is documented as application/problem+json, the type the server sends", async () => {
		const doc = (await t.app.inject({ url: "/api/openapi.json" })).json();
		let problems = 0;
		const json: string[] = [];
		for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
			for (const [method, op] of Object.entries(item)) {
				for (const [status, response] of Object.entries(op.responses ?? {})) {
					if (Number(status) < 400) continue;
					const types = Object.keys(response.content ?? {});
					if (types.includes("application/problem+json")) problems++;
					// Plain JSON is an error's type only where OAuth says so (RFC 6749 §5.2, RFC 6750 §3).
					const oauth = path === "/oidc/token" || path === "/oidc/userinfo";
					if (types.includes("application/json") && !oauth) json.push(`${method} ${path} ${status}`);
				}
			}
		}
		assert.deepEqual(json, [], "error responses documented as application/json");
		assert.ok(problems >= 300, `${problems} error responses as application/problem+json`);
		const sent = await t.app.inject({ url: "/api/collections/records/records" });
		assert.equal(sent.statusCode, 401);
		assert.match(String(sent.headers["content-type"]), /^application\/problem\+json/);
	});

	test("lists every route the app serves, each with a summary and a 2xx response", async () => {
		const doc = (await t.app.inject({ url: "/api/openapi.json" })).json();
		const missing: string[] = [];
		for (const route of t.app.routeList) {
			if (route.hidden || route.url === "*") continue;
			const path = route.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
			const op = doc.paths[path]?.[route.method.toLowerCase()];
			if (!op) {
				missing.push(`${route.method} ${path}`);
				continue;
			}
			assert.ok(op.summary, `${route.method} ${path} has a summary`);
			assert.ok(
				Object.keys(op.responses ?? {}).some((s) => /^(2\d\d|default)$/.test(s)),
				`${route.method} ${path} documents its success response`,
			);
		}
		assert.deepEqual(missing, [], "routes missing from the OpenAPI document");
	});

	test("every query boolean says it takes 1 and 0 as well as true and false", async () => {
		const doc = (await t.app.inject({ url: "/api/openapi.json" })).json();
		let flags = 0;
		for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
			for (const [method, op] of Object.entries(item)) {
				for (const p of op.parameters ?? []) {
					if (p.in !== "query" || p.schema?.type !== "boolean") continue;
					flags++;
					assert.match(p.description ?? "", /`true` or `1`, `false` or `0`/, `${method} ${path} ${p.name}`);
				}
			}
		}
		assert.ok(flags >= 11, "skipTotal on every collection list");
	});

	test("every collection route that answers a record documents fields", async () => {
		const doc = (await t.app.inject({ url: "/api/openapi.json" })).json();
		const paths = Object.entries<Record<string, Operation>>(doc.paths).filter(([path]) =>
			path.startsWith("/api/collections/"),
		);
		let documented = 0;
		for (const [path, item] of paths) {
			for (const [method, op] of Object.entries(item)) {
				if (method === "delete") continue;
				const fields = op.parameters?.find((p) => p.in === "query" && p.name === "fields");
				assert.ok(fields, `${method} ${path} takes fields`);
				assert.match(fields.description ?? "", /top-level members/);
				documented++;
			}
		}
		assert.ok(documented >= 35, `${documented} operations`);
	});
});

interface Operation {
	parameters?: { in: string; name: string; description?: string; schema?: { type?: string } }[];
	responses?: Record<string, { content?: Record<string, unknown> }>;
}
