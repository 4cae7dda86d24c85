// Validators and response serializers are compiled on a route's first request (src/http/validation.ts),
// so an idle server keeps none of them. Compiling every one here keeps a schema that Ajv or
// fast-json-stringify cannot compile a failing test instead of a 500 on that route's first request,
// and shows that a route answers the same before and after its compilation.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { compileAll } from "../../src/http/validation.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";

describe("schemas compiled on first use", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp();
		await t.app.ready();
	});
	after(() => t.close());

	test("a route validates and serializes on its first request", async () => {
		const { headers } = await buildAccount(t.app);
		const refused = await t.app.inject({
			method: "POST",
			url: "/api/collections/records/records",
			headers,
			payload: { key: 5 },
		});
		assert.equal(refused.statusCode, 400);
		assert.equal(refused.json().code, "validation_failed");
		const made = await t.app.inject({
			method: "POST",
			url: "/api/collections/records/records",
			headers,
			payload: { key: "phone", value: "+49 30 1234" },
		});
		assert.equal(made.statusCode, 200, made.body);
		assert.equal(made.json().key, "phone");
	});

	test("every schema the routes declare compiles", (ctx) => {
		// Hundreds: one per route part and status, less those already compiled above.
		const compiled = compileAll();
		ctx.diagnostic(`compiled ${compiled}`);
		assert.ok(compiled > 200, `compiled ${compiled}`);
		assert.equal(compileAll(), 0, "each compiles once");
	});

	test("routes answer the same once everything is compiled", async () => {
		const { headers } = await buildAccount(t.app);
		const res = await t.app.inject({ method: "GET", url: "/api/collections/records/records", headers });
		assert.equal(res.statusCode, 200, res.body);
		assert.deepEqual(Object.keys(res.json()).sort(), [
			"items",
			"page",
			"perPage",
			"totalItems",
			"totalPages",
		]);
		const bad = await t.app.inject({
			method: "GET",
			url: "/api/collections/records/records?perPage=x",
			headers,
		});
		assert.equal(bad.statusCode, 400);
	});
});
