import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
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
});
